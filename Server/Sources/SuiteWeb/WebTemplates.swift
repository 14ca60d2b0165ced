/// The web app's templates (swift-mustache). `{{x}}` escapes; `{{{body}}}` in the layout is the
/// page's own rendered template, never user data.
enum WebTemplates {
    static let all: [String: String] = [
        "layout": layout, "refusal": refusal, "home": home,
        "bmm-intro": bmmIntro, "bmm-section": bmmSection, "bmm-goto": bmmGoto, "bmm-history": bmmHistory,
        "bmm-share": bmmShare, "bmm-print": bmmPrint, "bmm-about": bmmAbout,
        "quote": quote, "quotes-home": quotesHome, "quotes-empty": quotesEmpty, "quotes-list": quotesList,
        "bundle-home": bundleHome, "bundle-checkin": bundleCheckIn, "bundle-bundle": bundleBundle, "bundle-review": bundleReview,
        "bundle-all": bundleAll, "todo": todo, "places-map": placesMap, "places-location": placesLocation, "bundle-icon": bundleIcon, "places-add": placesAdd, "places-place": placesPlace, "places-fetch": placesFetch,
        "quotes-categories": quotesCategories, "quotes-search": quotesSearch, "quotes-history": quotesHistory, "quotes-schedule": quotesSchedule,
        "pager": pager,
    ]

    /// Links to the page before and after of a long list (a partial, given `pager` values of
    /// ``WebPaging``); nothing when everything fits on one page.
    static let pager = """
        {{#pager}}{{#shown}}<nav class="pager" aria-label="Pages">{{#previous}}<a href="{{previous}}" rel="prev">← Previous</a> {{/previous}}<span>page {{page}}{{#pages}} of {{pages}}{{/pages}}</span>{{#next}} <a href="{{next}}" rel="next">{{noun}} →</a>{{/next}}</nav>{{/shown}}{{/pager}}
        """

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
        <meta name="color-scheme" content="light dark">
        <title>{{title}} · Suite</title>
        <link rel="stylesheet" href="\(WebAssets.styleURL)">
        <script src="\(WebAssets.scriptURL)" defer></script>
        </head>
        <body data-app="{{app}}">
        <a class="skip" href="#main">Skip to the page</a>
        \(WebStyle.sprite)
        <header class="top">
        <div class="bar">
        <a class="brand" href="/"{{#home}} aria-current="page"{{/home}}><svg class="icon" aria-hidden="true"><use href="#i-suite"/></svg>Suite</a>
        <nav class="apps" aria-label="Apps"><ul>{{#apps}}<li><a href="{{href}}"{{#current}} aria-current="page"{{/current}}><svg class="icon" aria-hidden="true"><use href="#i-{{id}}"/></svg><span>{{label}}</span></a></li>{{/apps}}</ul></nav>
        </div>
        {{^empty(menu)}}<nav class="menu" aria-label="{{appLabel}}"><ul>{{#menu}}<li><a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a></li>{{/menu}}</ul></nav>{{/empty(menu)}}
        </header>
        <main id="main">
        {{{body}}}
        </main>
        </body>
        </html>
        """

    static let refusal = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{title}} · Suite</title><link rel="stylesheet" href="\(WebAssets.styleURL)"></head>
        <body><main id="main"><h1>{{title}}</h1><p>{{message}}</p><p><a href="/">Suite's home page</a></p></main></body></html>
        """

    static let home = """
        <h1>Suite</h1>
        <ul class="tiles">
        <li><a href="/bmm"><svg class="icon" aria-hidden="true"><use href="#i-bmm"/></svg><span><strong>Business model</strong> Walk the ten sections, see what is done, share and print.</span></a></li>
        <li><a href="/places"><svg class="icon" aria-hidden="true"><use href="#i-places"/></svg><span><strong>Places</strong> Good places to work, on a map, rated 0–5.</span></a></li>
        <li><a href="/quotes"><svg class="icon" aria-hidden="true"><use href="#i-quotes"/></svg><span><strong>Quotes</strong> Today's quote, favourites, notes and the schedule.</span></a></li>
        <li><a href="/bundle"><svg class="icon" aria-hidden="true"><use href="#i-bundle"/></svg><span><strong>Bundles</strong> Todos tied to what you are about to do, checked in together.</span></a></li>
        </ul>
        <p><small>The same stores as the <code>suite</code> command: {{storeDir}}</small></p>
        {{#sync}}
        <h2>Sync</h2>
        {{#syncing}}
        <p>With {{server}} as {{account}}: {{pending}}. Last sync: {{lastSuccess}}.</p>
        {{#lastError}}<p class="error" role="alert">{{lastError}}</p>{{/lastError}}
        <form method="post" action="/sync">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="primary">Sync now</button>
        </form>
        {{/syncing}}
        {{^syncing}}<p>Not syncing. <code>suite sync signup …</code> or <code>suite sync login …</code> adds this folder to an account.</p>{{/syncing}}
        {{#problem}}<p class="error" role="alert">{{problem}}</p>{{/problem}}
        {{/sync}}
        """

    static let bmmIntro = """
        <h1>{{#model}}{{name}}{{/model}}{{^model}}Business model{{/model}}</h1>
        <p>Ten questions about a business, after Nick Malik's Enterprise Business Motivation Model: what you offer, to whom, how it reaches them, what it takes and how it pays. Answer them in any order; the guide suggests one.</p>
        {{#model}}
        <p><strong>{{percent}}%</strong> answered{{^next}}: every section is answered{{/next}}.</p>
        <p class="actions">{{#next}}<a class="button primary" href="/bmm/section/{{id}}">Continue with {{title}}</a> {{/next}}<a class="button" href="/bmm/section/{{first}}">Go to {{firstTitle}}</a></p>
        <form method="post" action="/bmm/rename">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="rename">Business name</label>
        <input type="text" id="rename" name="rename" value="{{rename}}" maxlength="200" required{{#renameError}} aria-invalid="true" aria-describedby="rename-error"{{/renameError}}>
        {{#renameError}}<p class="error" id="rename-error" role="alert">{{renameError}}</p>{{/renameError}}
        <button type="submit">Rename</button>
        </form>
        {{/model}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/bmm/models">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="name">{{#model}}Start another business model{{/model}}{{^model}}What is the business called?{{/model}}</label>
        <input type="text" id="name" name="name" value="{{name}}" maxlength="200" required{{#nameError}} aria-invalid="true" aria-describedby="name-error"{{/nameError}}>
        {{#nameError}}<p class="error" id="name-error">{{nameError}}</p>{{/nameError}}
        <button type="submit"{{^model}} class="primary"{{/model}}>Start</button>
        </form>
        {{^empty(models)}}
        <h2>Your models</h2>
        <ul class="rows">
        {{#models}}<li>{{#current}}<strong>{{name}}</strong> <small>(current)</small>{{/current}}{{^current}}{{name}}
        <form class="inline" method="post" action="/bmm/use"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="model" value="{{id}}"><button type="submit">Open</button></form>{{/current}} <small>{{percent}}% answered</small></li>
        {{/models}}
        </ul>
        {{/empty(models)}}
        """

    static let bmmSection = """
        <p class="noprint">{{#back}}<a href="/bmm/section/{{id}}" title="Back to {{title}}">‹ {{short}}</a> · {{/back}}<a href="/bmm/goto">GOTO</a> · {{modelName}} · {{percent}}% answered</p>
        <h1><span class="mark {{#answered}}ok{{/answered}}{{^answered}}todo{{/answered}}" role="img" aria-label="{{#answered}}answered{{/answered}}{{^answered}}not answered{{/answered}}">{{#answered}}✓{{/answered}}{{^answered}}!{{/answered}}</span> {{title}}</h1>
        {{#sentence}}<p><em>{{sentence}}</em></p>{{/sentence}}
        <p>{{summary}}</p>
        <ul>{{#prompts}}<li>{{.}}</li>{{/prompts}}</ul>
        {{#disagreeing}}<p class="note" role="note">Versions {{disagreeing}} of this section were saved on two devices at once and could not be merged line by line; it shows the latest. <a href="/bmm/section/{{id}}/history">See them</a>, restore one or save a new text to settle it.</p>{{/disagreeing}}
        {{#saved}}<p class="ok" role="status">Saved.</p>{{/saved}}
        <form method="post" action="/bmm/section/{{id}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="text">Your text</label>
        <textarea id="text" name="text" maxlength="1000000"{{#textError}} aria-invalid="true" aria-describedby="text-error"{{/textError}}>{{text}}</textarea>
        {{#textError}}<p class="error" id="text-error" role="alert">{{textError}}</p>{{/textError}}
        <label for="confidence">Confidence</label>
        <select id="confidence" name="confidence">
        {{#confidences}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/confidences}}
        </select>
        <button type="submit" name="then" value="stay"{{#empty(continueTo)}} class="primary"{{/empty(continueTo)}}>Save</button>
        {{^empty(continueTo)}}<button type="submit" name="then" value="continue" class="primary">Save and continue</button>{{/empty(continueTo)}}
        </form>
        <h2>Continue to</h2>
        <ul class="rows">
        {{#continueTo}}<li><span class="mark {{#answered}}ok{{/answered}}{{^answered}}todo{{/answered}}" role="img" aria-label="{{#answered}}answered{{/answered}}{{^answered}}not answered{{/answered}}">{{#answered}}✓{{/answered}}{{^answered}}!{{/answered}}</span> <a href="/bmm/section/{{id}}?from={{section}}">{{title}}</a></li>{{/continueTo}}
        </ul>
        <p class="noprint"><a href="/bmm/section/{{id}}/history">History of this section</a></p>
        """

    static let bmmGoto = """
        <h1>GOTO · {{modelName}}</h1>
        <p><strong>{{percent}}%</strong> answered{{#hasName}}{{/hasName}}{{^hasName}}; the business has no name yet{{/hasName}}.</p>
        <ol class="rows">
        {{#sections}}<li><span class="mark {{#answered}}ok{{/answered}}{{^answered}}todo{{/answered}}" role="img" aria-label="{{#answered}}answered{{/answered}}{{^answered}}not answered{{/answered}}">{{#answered}}✓{{/answered}}{{^answered}}!{{/answered}}</span> <a href="/bmm/section/{{id}}">{{title}}</a> <small>{{level}}</small></li>{{/sections}}
        </ol>
        """

    static let bmmHistory = """
        <p><a href="/bmm/section/{{id}}">Back to {{title}}</a></p>
        <h1>History of {{title}}</h1>
        {{#disagreeing}}<p class="note" role="note">Versions {{disagreeing}} disagree: restore the one to keep, or save a new text.</p>{{/disagreeing}}
        {{#empty(versions)}}<p>No saved versions yet.</p>{{/empty(versions)}}
        {{#versions}}
        <section>
        <h2>Version {{version}} <small>{{savedAt}}{{#confidence}} · {{confidence}}{{/confidence}}{{#head}} · current{{/head}}</small></h2>
        <pre class="version">{{text}}</pre>
        <form method="post" action="/bmm/section/{{id}}/restore"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="version" value="{{version}}"><button type="submit">Restore version {{version}}</button></form>
        </section>
        {{/versions}}
        """

    static let bmmShare = """
        <h1>SHARE · {{modelName}}</h1>
        {{#refusal}}<p class="error" role="alert">{{refusal}}</p>{{/refusal}}
        {{#warning}}<p class="note">{{warning}}</p>{{/warning}}
        <ul class="rows">
        <li><a href="/bmm/share/markdown{{forceQuery}}">Markdown</a> <small>for notes and e-mail</small></li>
        <li><a href="/bmm/share/html{{forceQuery}}">HTML</a> <small>a page to send or publish</small></li>
        <li><a href="/bmm/share/json{{forceQuery}}">JSON</a> <small>with the history; imports back with <code>suite bmm import</code></small></li>
        </ul>
        {{#refusal}}<p><a href="/bmm/share?force=1">Share anyway</a></p>{{/refusal}}
        """

    static let bmmPrint = """
        {{#refusal}}<p class="error" role="alert">{{refusal}}</p><p class="noprint"><a href="/bmm/print?force=1">Print anyway</a></p>{{/refusal}}
        {{^refusal}}
        {{#warning}}<p class="note noprint">{{warning}}</p>{{/warning}}
        <p class="noprint">Use the browser's Print command; menus and buttons are left out of the page.</p>
        <h1>{{modelName}}</h1>
        {{#sections}}<section><h2>{{title}}</h2>{{#answered}}<p style="white-space: pre-wrap">{{text}}</p>{{#confidence}}<p><small>Confidence: {{confidence}}</small></p>{{/confidence}}{{/answered}}{{^answered}}<p><em>Not answered yet.</em></p>{{/answered}}</section>{{/sections}}
        {{/refusal}}
        """

    static let bmmAbout = """
        <h1>About</h1>
        {{#paragraphs}}<p>{{.}}</p>{{/paragraphs}}
        """

    /// One quote, with its favourite toggle (a partial).
    static let quote = """
        <blockquote class="quote">
        <p>{{^pieces}}{{text}}{{/pieces}}{{#pieces}}{{#mark}}<mark>{{text}}</mark>{{/mark}}{{^mark}}{{text}}{{/mark}}{{/pieces}}</p>
        {{#source}}<footer>— {{source}}</footer>{{/source}}
        </blockquote>
        <div class="meta"><a href="/quotes/quote/{{id}}">#{{id}}</a>{{#categories}} · <a href="/quotes/browse?category={{query}}">{{name}}</a>{{/categories}}
        · <span class="favcount"><svg class="icon" role="img" aria-label="favourites:"><use href="#i-heart"/></svg> {{favoriteCount}}</span>
        <form class="inline" method="post" action="/quotes/quote/{{id}}/favorite">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="back" value="{{back}}">
        {{#favorite}}<input type="hidden" name="on" value="0"><button type="submit" aria-pressed="true"><svg class="icon" aria-hidden="true"><use href="#i-star"/></svg>Favourite</button>{{/favorite}}
        {{^favorite}}<input type="hidden" name="on" value="1"><button type="submit" aria-pressed="false"><svg class="icon" aria-hidden="true"><use href="#i-star"/></svg>Add to favourites</button>{{/favorite}}
        </form></div>
        """

    static let quotesHome = """
        <h1>{{heading}}</h1>
        {{#quote}}{{> quote}}
        {{#withNotes}}{{/withNotes}}
        {{^empty(notes)}}<h2>Your notes</h2><ul>{{#notes}}<li>{{text}}</li>{{/notes}}</ul>{{/empty(notes)}}
        <form method="post" action="/quotes/quote/{{id}}/notes">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="note">Write a note</label>
        <input type="text" id="note" name="note" value="{{note}}" maxlength="2000"{{#noteError}} aria-invalid="true" aria-describedby="note-error"{{/noteError}}>
        {{#noteError}}<p class="error" id="note-error" role="alert">{{noteError}}</p>{{/noteError}}
        <button type="submit">Save the note</button>
        </form>
        {{/quote}}
        <p><a class="button primary" href="/quotes/random{{#another}}?category={{another}}{{/another}}">Another one</a></p>
        """

    static let quotesEmpty = """
        <h1>Quotes</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{^error}}<p>No quotes yet: add some with <code>suite quotes add</code> or <code>suite quotes import</code>.</p>{{/error}}
        """

    static let quotesList = """
        <h1>{{heading}}</h1>
        {{#empty(quotes)}}<p>None yet.</p>{{/empty(quotes)}}
        {{#quotes}}{{> quote}}{{/quotes}}
        {{> pager}}
        """

    static let quotesCategories = """
        <h1>Categories</h1>
        <ul class="rows">{{#categories}}<li><a href="/quotes/browse?category={{query}}">{{name}}</a> <small>{{count}}</small> <a href="/quotes/random?category={{query}}">a random one</a></li>{{/categories}}</ul>
        """

    static let quotesSearch = """
        <h1>Search</h1>
        <form method="get" action="/quotes/search" role="search">
        <label for="q">Words, "exact phrases" or prefixes*</label>
        <input type="text" id="q" name="q" value="{{query}}"{{#error}} aria-invalid="true" aria-describedby="q-error"{{/error}}>
        {{#error}}<p class="error" id="q-error" role="alert">{{error}}</p>{{/error}}
        <button type="submit" class="primary">Search</button>
        </form>
        {{#searched}}{{#empty(hits)}}<p>Nothing found.</p>{{/empty(hits)}}{{/searched}}
        {{#hits}}{{> quote}}{{/hits}}
        {{> pager}}
        """

    static let quotesHistory = """
        <h1>Quotes you were sent</h1>
        {{#empty(deliveries)}}<p>None yet: set a schedule in <a href="/quotes/schedule">Settings</a>.</p>{{/empty(deliveries)}}
        {{#deliveries}}<h2><small>{{when}}</small></h2>{{#quote}}{{> quote}}{{/quote}}{{/deliveries}}
        {{#pager}}{{#shown}}<nav class="pager" aria-label="Pages">{{#newest}}<a href="{{newest}}">← The newest</a>{{/newest}}{{#older}} <a href="{{older}}" rel="next">Older →</a>{{/older}}</nav>{{/shown}}{{/pager}}
        """

    static let quotesSchedule = """
        <h1>Settings: when quotes come</h1>
        {{#saved}}<p class="ok" role="status">Saved.</p>{{/saved}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/quotes/schedule">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="times">Times</label>
        <input type="text" id="times" name="times" value="{{times}}" placeholder="09:00,13:30 or 3 between 09:00-21:00 jitter 15" required>
        <label for="weekdays">Days</label>
        <input type="text" id="weekdays" name="weekdays" value="{{weekdays}}" placeholder="mon-fri, weekends or all">
        <label for="quiet">Quiet hours</label>
        <input type="text" id="quiet" name="quiet" value="{{quiet}}" placeholder="22:00-07:00,12:00-13:00">
        <label for="tz">Time zone</label>
        <input type="text" id="tz" name="tz" value="{{tz}}">
        <label for="category">Only quotes of</label>
        <select id="category" name="category"><option value="">any category</option>{{#categories}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/categories}}</select>
        <label for="missed">Slots missed while the machine was off</label>
        <select id="missed" name="missed">{{#missedOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/missedOptions}}</select>
        <label><input type="checkbox" id="tailored" name="tailored" value="1"{{#tailoredChecked}} checked{{/tailoredChecked}}> Tailored to my favourites and notes</label>
        <label><input type="checkbox" id="reminders" name="reminders" value="1"{{#remindersChecked}} checked{{/remindersChecked}}> With a reminder from my not-to-do list</label>
        <button type="submit" class="primary">Save</button>
        {{#hasSchedule}}<button type="submit" name="clear" value="1" class="danger">Remove the schedule</button>{{/hasSchedule}}
        </form>
        {{^empty(next)}}<h2>Next deliveries</h2><ul>{{#next}}<li>{{when}}</li>{{/next}}</ul>{{/empty(next)}}
        <h2>Not to do</h2>
        {{#empty(nottodos)}}<p>Nothing on the list yet.</p>{{/empty(nottodos)}}
        <ul id="nottodos" class="rows">{{#nottodos}}<li>{{text}}{{#category}} <small>[{{category}}]</small>{{/category}}
        <form method="post" action="/quotes/nottodo/{{id}}/remove" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Remove</button></form></li>{{/nottodos}}</ul>
        <form method="post" action="/quotes/nottodo">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="nottodo">Something to avoid</label>
        <input type="text" id="nottodo" name="nottodo" required>
        <label for="nottodoCategory">With quotes of</label>
        <select id="nottodoCategory" name="nottodoCategory"><option value="">any category</option>{{#categories}}<option value="{{name}}">{{name}}</option>{{/categories}}</select>
        <button type="submit">Add to the list</button>
        </form>
        """

    /// One todo's line (a partial).
    static let todo = """
        {{text}}{{#trigger}} <small>({{trigger}})</small>{{/trigger}}{{#deadline}} {{#overdue}}<strong class="overdue">overdue: due {{deadline}}</strong>{{/overdue}}{{^overdue}}<small>[due {{deadline}}]</small>{{/overdue}}{{/deadline}}
        """

    static let bundleHome = """
        <h1>Bundles</h1>
        {{^empty(open)}}<h2>Open bundles</h2><ul class="rows">{{#open}}<li>{{> bundle-icon}} <a href="/bundle/bundles/{{id}}">{{title}}</a> <small>{{event}}</small></li>{{/open}}</ul>{{/empty(open)}}
        {{^empty(coming)}}<h2>Coming up</h2><ul id="coming" class="rows">{{#coming}}<li>{{event}} — {{when}}: {{count}} todo(s){{^empty(todos)}}<ul>{{#todos}}<li>#{{id}} {{> todo}}</li>{{/todos}}</ul>{{/empty(todos)}}{{#more}} <a href="/bundle/checkin?event={{checkin}}">and {{more}} more: check in</a>{{/more}}</li>{{/coming}}</ul>{{/empty(coming)}}
        <h2>Add a todo</h2>
        {{#error}}<p class="error" id="todo-error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/bundle/todos">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="text">What to do</label>
        <input type="text" id="text" name="text" value="{{text}}" maxlength="500" required{{#error}} aria-invalid="true" aria-describedby="todo-error"{{/error}}>
        <fieldset><legend>When</legend>
        {{#prepositions}}<label class="inline"><input type="radio" name="preposition" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}}</label> {{/prepositions}}
        </fieldset>
        <label for="event">Trigger event</label>
        <input type="text" id="event" name="event" value="{{event}}" list="events" placeholder="go to the bank">
        <datalist id="events">{{#events}}<option value="{{name}}">{{/events}}</datalist>
        <label class="inline"><input type="checkbox" name="newEvent" value="1"> a new event even if it looks like one I have</label>
        <label for="deadline">Deadline</label>
        <input type="date" id="deadline" name="deadline" value="{{deadlineField}}">
        <button type="submit" class="primary">Add</button>
        </form>
        <h2 id="pile">Waiting ({{waiting}})</h2>
        {{#empty(todos)}}<p>Nothing waiting{{#pager.shown}} on this page{{/pager.shown}}.</p>{{/empty(todos)}}
        {{^empty(todos)}}<p><small>Soonest deadline first; by event in <a href="/bundle/all">All todos</a>.</small></p>{{/empty(todos)}}
        <ul id="waiting" class="rows">{{#todos}}<li>#{{id}} {{> todo}}</li>{{/todos}}</ul>
        {{> pager}}
        """

    static let bundleCheckIn = """
        <h1>Check in</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="get" action="/bundle/checkin">
        <fieldset><legend>Where are you?</legend>
        <label class="inline"><input type="radio" name="direction" value="about-to"{{#aboutTo}} checked{{/aboutTo}}> I'm about to…</label>
        <label class="inline"><input type="radio" name="direction" value="just-finished"{{^aboutTo}} checked{{/aboutTo}}> I just finished…</label>
        </fieldset>
        <label for="event">Trigger event</label>
        <select id="event" name="event">{{#events}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/events}}</select>
        <button type="submit"{{^eventName}} class="primary"{{/eventName}}>See what to bundle</button>
        </form>
        {{#eventName}}
        <h2>{{phrase}} {{eventName}}</h2>
        {{#empty(offered)}}<p>Nothing to bundle for that.</p>{{/empty(offered)}}
        {{^empty(offered)}}
        <form method="post" action="/bundle/checkin">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="event" value="{{eventName}}"><input type="hidden" name="direction" value="{{direction}}">
        <fieldset><legend>Todos to bundle</legend>
        <ul class="rows">{{#offered}}<li><label class="inline"><input type="checkbox" name="todo" value="{{id}}" checked> {{> todo}}</label></li>{{/offered}}</ul>
        </fieldset>
        <button type="submit" class="primary">Bundle them</button>
        </form>
        {{/empty(offered)}}
        {{/eventName}}
        """

    static let bundleBundle = """
        <h1>{{> bundle-icon}}{{title}}</h1>
        <p>{{phrase}} {{event}} · {{status}}</p>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <ul class="rows checklist">
        {{#items}}<li>{{#done}}<svg class="icon state done" role="img" aria-label="done"><use href="#i-check"/></svg> <s>{{text}}</s>{{/done}}{{#thrownBack}}<svg class="icon state" role="img" aria-label="thrown back"><use href="#i-back"/></svg> {{text}} <small>(thrown back)</small>{{/thrownBack}}{{#itemOpen}}<svg class="icon state" role="img" aria-label="to do"><use href="#i-open"/></svg> <span>{{> todo}}</span>{{#alsoIn}} <small>(also in <a href="/bundle/bundles/{{alsoIn}}">bundle #{{alsoIn}}</a>: checked in on two devices at once)</small>{{/alsoIn}}
        <form class="inline" method="post" action="/bundle/bundles/{{bundle}}/done"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="todo" value="{{id}}"><button type="submit" aria-label="Done: {{text}}">Done</button></form>
        <form class="inline" method="post" action="/bundle/bundles/{{bundle}}/throwback"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="todo" value="{{id}}"><button type="submit" aria-label="Throw back: {{text}}">Throw back</button></form>{{/itemOpen}}</li>
        {{/items}}
        </ul>
        {{#isOpen}}
        {{^empty(pullable)}}
        <form method="post" action="/bundle/bundles/{{id}}/pull"><input type="hidden" name="csrf" value="{{csrf}}">
        <label for="pull">Pull another</label><select id="pull" name="todo">{{#pullable}}<option value="{{id}}">{{text}}</option>{{/pullable}}</select>
        <button type="submit">Pull</button></form>
        {{/empty(pullable)}}
        <form method="post" action="/bundle/bundles/{{id}}/rename"><input type="hidden" name="csrf" value="{{csrf}}">
        <label for="title">Title</label><input type="text" id="title" name="title" value="{{title}}" maxlength="200"><button type="submit">Rename</button></form>
        <form method="post" action="/bundle/bundles/{{id}}/icon"><input type="hidden" name="csrf" value="{{csrf}}">
        <label for="icon">Icon</label><input type="text" id="icon" name="icon" value="{{icon}}" maxlength="16"><button type="submit">Change icon</button></form>
        <form class="inline" method="post" action="/bundle/bundles/{{id}}/complete"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit"{{#canComplete}} class="primary"{{/canComplete}}{{^canComplete}} aria-describedby="complete-hint"{{/canComplete}}>Complete</button></form>
        <form class="inline" method="post" action="/bundle/bundles/{{id}}/abandon"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="danger">Abandon</button></form>
        {{^canComplete}}<p id="complete-hint"><small>Complete files the bundle once every todo is done or thrown back.</small></p>{{/canComplete}}
        {{/isOpen}}
        """

    static let bundleReview = """
        <h1>Review</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="get" action="/bundle/review"><label for="event">By event</label>
        <select id="event" name="event"><option value="">every event</option>{{#events}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/events}}</select>
        <button type="submit" class="primary">Show</button></form>
        {{#event}}<p>Bundles of <strong>{{event}}</strong>.</p>{{/event}}
        {{#empty(days)}}<p>No completed bundles{{#pager.shown}} on this page{{/pager.shown}}{{^pager.shown}} yet{{/pager.shown}}.</p>{{/empty(days)}}
        {{^empty(days)}}<p><small>The latest first.</small></p>{{/empty(days)}}
        {{#days}}<h2>{{day}}</h2><ul class="rows">{{#bundles}}<li>{{> bundle-icon}} <a href="/bundle/bundles/{{id}}">{{title}}</a> <small>{{event}}: {{done}} of {{count}} done</small></li>{{/bundles}}</ul>{{/days}}
        {{> pager}}
        """

    static let bundleAll = """
        <h1>All todos</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="get" action="/bundle/all" role="search"><label for="filter">Of the event</label>
        <select id="filter" name="event"><option value="">every event</option>{{#events}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/events}}</select>
        <button type="submit">Show</button></form>
        <p>{{total}} todo(s){{#filtered}} of <strong>{{filtered}}</strong>{{/filtered}}, by event then deadline.</p>
        <datalist id="events">{{#events}}<option value="{{name}}">{{/events}}</datalist>
        <ul class="plain">
        {{#todos}}<li>#{{id}} {{> todo}} <small>{{status}}</small>
        {{#pending}}<details><summary>Change trigger</summary>
        <form method="post" action="/bundle/todos/{{id}}/move"><input type="hidden" name="csrf" value="{{csrf}}">
        <label for="p{{id}}">When</label><select id="p{{id}}" name="preposition">{{#prepositions}}<option value="{{value}}">{{label}}</option>{{/prepositions}}</select>
        <label for="e{{id}}">Event</label><input type="text" id="e{{id}}" name="event" list="events">
        <button type="submit">Move</button></form></details>{{/pending}}
        </li>{{/todos}}
        </ul>
        {{> pager}}
        """

    static let placesMap = """
        <h1>Places near you</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{^location}}{{> places-location}}{{/location}}
        {{#location}}
        {{#live}}{{#styles}}<link rel="stylesheet" href="{{href}}">{{/styles}}{{/live}}
        <div class="places">
        <div class="map" role="img" aria-label="Map of the places listed: red pins are places you have not rated, blue ones yours"{{#live}} data-lat="{{lat}}" data-lon="{{lon}}" data-radius="{{radius}}" data-tiles="{{tiles}}" data-attribution="{{attribution}}"{{/live}}>{{{map}}}</div>
        <div class="list"><h2>{{count(places)}} places</h2>{{#full}}<p><small>The nearest {{count(places)}}: the filters below, or a smaller radius, show others.</small></p>{{/full}}
        <ol class="rows">{{#places}}<li data-id="{{id}}" data-lat="{{lat}}" data-lon="{{lon}}" data-color="{{color}}" data-hex="{{hex}}" data-state="{{#rated}}yours{{/rated}}{{^rated}}not rated{{/rated}}"><span class="pin {{#rated}}blue{{/rated}}{{^rated}}red{{/rated}}" aria-hidden="true"></span><a href="/places/place/{{id}}">{{name}}</a> <small>{{type}} · {{distance}}{{#open}} · {{open}}{{/open}} · {{#rated}}yours{{/rated}}{{^rated}}not rated{{/rated}}</small></li>{{/places}}</ol>
        </div></div>
        <p><small>Map drawn here from your store; © OpenStreetMap contributors for places from OpenStreetMap.</small></p>
        <form method="get" action="/places" class="filters" aria-labelledby="filters"><h2 id="filters">Filters</h2>
        <fieldset><legend>Kind</legend>{{#types}}<label><input type="checkbox" name="type" value="{{value}}"{{#selected}} checked{{/selected}}> {{value}}</label>{{/types}}</fieldset>
        <label><input type="checkbox" name="open" value="1"{{#openNow}} checked{{/openNow}}> open now</label>
        {{#dimensions}}<label>{{name}} <select name="min-{{name}}" aria-label="{{name}} at least">{{#options}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/options}}</select>
        <select name="max-{{name}}" aria-label="{{name}} at most">{{#maxOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/maxOptions}}</select></label>{{/dimensions}}
        <label>within <input type="text" name="radius" value="{{radius}}" size="6"> m</label>
        <button type="submit" class="primary">Show</button></form>
        <form method="post" action="/places/fetch"><input type="hidden" name="csrf" value="{{csrf}}">
        <label for="provider">Fetch places around you from</label>
        <select id="provider" name="provider"><option value="osm">OpenStreetMap</option><option value="yelp">Yelp (needs YELP_API_KEY)</option></select>
        <label for="fradius">within</label><input type="text" id="fradius" name="radius" value="1.5km" size="8">
        <button type="submit">Fetch</button></form>
        {{> places-location}}
        {{#live}}{{#scripts}}<script src="{{src}}" defer></script>{{/scripts}}{{/live}}
        {{/location}}
        """

    /// The form that sets where you are (a partial: first without a location, last with one).
    static let placesLocation = """
        <form method="post" action="/places/location">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="location">Your location (latitude,longitude)</label>
        <input type="text" id="location" name="location" value="{{location}}" placeholder="52.5200,13.4050" required>
        <button type="submit"{{^location}} class="primary"{{/location}}>Set</button>
        </form>
        """

    /// A bundle's own icon as typed (a partial), in a badge that shows the title's initial
    /// instead when the browser has no font to draw it (see `WebScript.live`); an SVG without one.
    static let bundleIcon = """
        {{#hasIcon}}<span class="bicon" role="img" aria-label="{{icon}}" data-initial="{{initial}}">{{icon}}</span>{{/hasIcon}}{{^hasIcon}}<span class="bicon" aria-hidden="true"><svg class="icon"><use href="#i-bundle"/></svg></span>{{/hasIcon}}
        """

    static let placesAdd = """
        <h1>Add a place</h1>
        {{#error}}<p class="error" id="add-error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/places/add">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="name">Name</label>
        <input type="text" id="name" name="name" value="{{name}}" maxlength="200" aria-describedby="where-hint">
        <label for="at">Where (latitude,longitude)</label>
        <input type="text" id="at" name="at" value="{{at}}" aria-describedby="where-hint">
        <label for="address">…or its address (looked up on OpenStreetMap with its name, kind, hours, phone and website)</label>
        <input type="text" id="address" name="address" value="{{address}}" aria-describedby="where-hint">
        <p id="where-hint"><small>Coordinates win when both are given; with an address, an empty name or kind is the one found.</small></p>
        <label for="type">Kind</label>
        <select id="type" name="type"><option value="">as found (other)</option>{{#types}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/types}}</select>
        <button type="submit" class="primary">Add</button>
        </form>
        """

    static let placesPlace = """
        <h1>{{name}}</h1>
        <p>{{type}} · {{coordinate}} · from {{origin}} · {{#rated}}your pin{{/rated}}{{^rated}}not rated yet{{/rated}}{{#quality}} · quality {{quality}} of 5 (smoothed, as <code>suite places show</code>){{/quality}}</p>
        {{#address}}<p>{{address}}</p>{{/address}}{{#phone}}<p>Phone: {{phone}}</p>{{/phone}}{{#website}}<p>{{website}}</p>{{/website}}{{#hours}}<p>Hours: {{hours}}</p>{{/hours}}
        {{#saved}}<p class="ok" role="status">Saved.</p>{{/saved}}
        {{#error}}<p class="error" id="rate-error" role="alert">{{error}}</p>{{/error}}
        <h2>Your rating</h2>
        <form method="post" action="/places/place/{{id}}/rate">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#dimensions}}<label for="r-{{name}}">{{name}} (0–5)</label>
        <select id="r-{{name}}" name="{{name}}">{{#options}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/options}}</select>{{/dimensions}}
        <label for="wifiMbps">Measured wifi (Mbit/s)</label>
        <input type="text" id="wifiMbps" name="wifiMbps" value="{{wifiMbps}}" inputmode="decimal">
        <label for="menu">Menu</label>
        <select id="menu" name="menu">{{#menus}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/menus}}</select>
        <label for="ptype">Kind of place</label>
        <select id="ptype" name="type">{{#types}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/types}}</select>
        <label for="pin">Pin colour</label>
        <select id="pin" name="pin">{{#pins}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/pins}}</select>
        <label for="notes">Notes</label>
        <textarea id="notes" name="notes" style="min-height: 5rem">{{notes}}</textarea>
        <button type="submit" class="primary">Save the rating</button>
        </form>
        <p><a href="/places">Back to the map</a></p>
        """

    static let placesFetch = """
        <h1>Fetching from {{provider}}</h1>
        {{#running}}<p role="status" class="progress">Working… {{elapsed}} so far. This page updates by itself.</p>{{/running}}
        <ul>{{#messages}}<li>{{text}}</li>{{/messages}}</ul>
        {{#summary}}<p class="ok" role="status">{{summary}}</p>{{/summary}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <p><a href="/places">Back to the map</a></p>
        """
}
