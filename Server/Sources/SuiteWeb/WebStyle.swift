/// Suite's look: one hand-written style sheet, served as `/suite.css`, and the icons, drawn once
/// per page as SVG symbols.
///
/// Phone first: below 600 px wide the four apps sit in a tab bar at the bottom of the screen, titles
/// are large and every control is at least 44 px tall; wider, the tabs move into the header and the
/// pages use the width. Light and dark follow the system (`prefers-color-scheme`). The colours
/// are the seeds' own: green ✓ and red ! for a business model's sections, red pins for places you
/// have not rated and blue for yours.
enum WebStyle {
    static let css = """
        :root {
          color-scheme: light dark;
          --font: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
          --emoji: "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji", "Twemoji Mozilla", "Noto Emoji", var(--font);
          --mono: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace;
          /* type scale (1.25) and spacing scale (4 px steps) */
          --text-sm: .875rem; --text-base: 1rem; --text-lg: 1.25rem; --text-xl: 1.5625rem; --text-2xl: 2rem;
          --space-1: .25rem; --space-2: .5rem; --space-3: .75rem; --space-4: 1rem; --space-5: 1.5rem; --space-6: 2rem;
          --tap: 44px; --radius: .75rem; --width: 72rem;
          --bg: #f4f5f7; --surface: #fff; --text: #1b1f24; --muted: #57606a; --line: #d8dde3; --field: #8c959f;
          --accent: #0a5fc4; --on-accent: #fff; --accent-soft: #e3eefb;
          --ok: #1a7f37; --todo: #c62828; --on-mark: #fff; --danger: #b42318; --late: #b42318; --on-late: #fff;
          --pin-red: #d32f2f; --pin-blue: #1565c0; --focus: #0a5fc4; --mark: #fff3a3;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #0f1217; --surface: #191e25; --text: #e6e9ed; --muted: #a2acb7; --line: #2f3741; --field: #6e7781;
            --accent: #6aa8f7; --on-accent: #0b1526; --accent-soft: #1b2a3d;
            --ok: #56c271; --todo: #ff7b72; --danger: #ff8b80; --late: #ff8b80; --on-late: #2a0b08; --focus: #8cbcff; --mark: #5c4d00;
          }
        }
        *, *::before, *::after { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; }
        body { margin: 0; font: var(--text-base)/1.5 var(--font); background: var(--bg); color: var(--text); overflow-wrap: anywhere; }
        a { color: var(--accent); text-underline-offset: .15em; }
        a:hover { text-decoration-thickness: 2px; }
        :focus-visible, input:focus, input:focus-within, select:focus, textarea:focus { outline: 3px solid var(--focus); outline-offset: 2px; }
        .skip { position: absolute; left: var(--space-2); top: -10rem; z-index: 20; background: var(--surface); padding: var(--space-3) var(--space-4); border-radius: var(--radius); }
        .skip:focus { top: var(--space-2); }
        .icon { width: 1.25em; height: 1.25em; flex: none; fill: none; stroke: currentColor; stroke-width: 2; stroke-linecap: round; stroke-linejoin: round; vertical-align: -.25em; }
        .sprite { position: absolute; width: 0; height: 0; overflow: hidden; }

        /* The header: the name, the four apps (a tab bar on a phone), the app's own pages. */
        .top { background: var(--surface); border-bottom: 1px solid var(--line); }
        .bar { display: flex; align-items: center; gap: var(--space-4); max-width: var(--width); margin: 0 auto; padding: 0 var(--space-4); }
        .brand { display: inline-flex; align-items: center; gap: var(--space-2); min-height: var(--tap); font-weight: 700; font-size: var(--text-lg); color: var(--text); text-decoration: none; }
        .brand .icon { color: var(--accent); }
        .apps ul { display: flex; gap: var(--space-1); margin: 0; padding: 0; list-style: none; }
        .apps a { display: flex; align-items: center; gap: var(--space-2); min-height: var(--tap); padding: 0 var(--space-3); border-radius: 999px; color: var(--muted); font-weight: 600; text-decoration: none; }
        .apps a:hover { color: var(--text); background: var(--bg); }
        .apps a[aria-current="page"] { color: var(--accent); background: var(--accent-soft); }
        .menu ul { display: flex; gap: var(--space-2); max-width: var(--width); margin: 0 auto; padding: var(--space-2) var(--space-4); list-style: none; overflow-x: auto; scrollbar-width: thin; }
        .menu a { display: inline-flex; align-items: center; min-height: var(--tap); padding: 0 var(--space-4); border: 1px solid var(--line); border-radius: 999px; background: var(--surface); color: var(--text); text-decoration: none; white-space: nowrap; }
        .menu a[aria-current="page"] { background: var(--text); border-color: var(--text); color: var(--surface); }
        main { max-width: var(--width); margin: 0 auto; padding: var(--space-4) var(--space-4) var(--space-6); }

        /* Type */
        h1 { font-size: var(--text-2xl); line-height: 1.15; letter-spacing: -.01em; margin: var(--space-3) 0 var(--space-4); }
        h2 { font-size: var(--text-lg); line-height: 1.3; margin: var(--space-6) 0 var(--space-3); }
        small, .meta { color: var(--muted); font-size: var(--text-sm); }
        .overdue { display: inline-block; padding: 0 var(--space-2); border-radius: 999px; background: var(--late); color: var(--on-late); font-size: var(--text-sm); font-weight: 600; }
        code, pre { font-family: var(--mono); font-size: .9em; }
        mark { background: var(--mark); color: inherit; border-radius: 3px; padding: 0 2px; }
        .lead { font-size: var(--text-lg); color: var(--muted); }

        /* Cards and list rows */
        .card, main > form:not(.inline), main > section, blockquote.quote { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: var(--space-4); margin: 0 0 var(--space-4); }
        .rows, ul.plain { list-style: none; padding: 0; margin: 0 0 var(--space-4); background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); }
        .rows > li, ul.plain > li { display: flex; flex-wrap: wrap; align-items: center; gap: 0 var(--space-2); min-height: calc(var(--tap) + var(--space-2)); padding: var(--space-1) var(--space-4); border-top: 1px solid var(--line); }
        .rows > li:first-child, ul.plain > li:first-child { border-top: 0; }
        .rows a, .plain a { display: inline-flex; align-items: center; min-height: var(--tap); }
        .rows > li > a:first-of-type { flex: 1 1 12rem; font-weight: 600; }
        .rows > li > small:last-child { margin-left: auto; }
        .pager { display: flex; flex-wrap: wrap; align-items: center; gap: var(--space-2) var(--space-4); margin: 0 0 var(--space-4); }
        .pager a { display: inline-flex; align-items: center; min-height: var(--tap); }
        .tiles { display: grid; gap: var(--space-3); grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); padding: 0; list-style: none; }
        .tiles a { display: flex; gap: var(--space-3); align-items: flex-start; height: 100%; padding: var(--space-4); background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); color: var(--text); text-decoration: none; }
        .tiles a:hover { border-color: var(--accent); }
        .tiles strong { display: block; color: var(--accent); font-size: var(--text-lg); }
        .tiles .icon { width: 2rem; height: 2rem; color: var(--accent); }

        /* The seeds' marks: green ✓ answered, red ! still to do; a bundle's own icon. */
        .mark { display: inline-grid; place-items: center; width: 1.75rem; height: 1.75rem; flex: none; border-radius: 50%; background: var(--todo); color: var(--on-mark); font-weight: 800; font-size: var(--text-sm); line-height: 1; vertical-align: middle; }
        .ok { color: var(--ok); }
        .todo, .error { color: var(--todo); }
        .mark.ok { background: #1a7f37; color: var(--on-mark); }
        .mark.todo { background: #c62828; color: var(--on-mark); }
        h1 .mark { width: 2.25rem; height: 2.25rem; font-size: 1.25rem; vertical-align: .15em; }
        .error { font-weight: 600; }
        .bicon { display: inline-grid; place-items: center; min-width: 2.25rem; height: 2.25rem; padding: 0 var(--space-1); border-radius: .6rem; background: var(--accent-soft); color: var(--accent); font: 1.25rem/1 var(--emoji); vertical-align: middle; }
        .bicon[data-missing] { font-size: 0; }
        .bicon[data-missing]::before { content: attr(data-initial); font: 700 1.125rem/2.25rem var(--font); }
        h1 .bicon { margin-right: var(--space-2); }
        .state { display: inline-flex; color: var(--muted); }
        .state.done { color: var(--ok); }

        /* Forms */
        label { display: block; margin: var(--space-4) 0 var(--space-2); font-weight: 600; }
        form > label:first-of-type, fieldset + label { margin-top: var(--space-2); }
        input[type=text], input[type=date], input:not([type]), select, textarea {
          font: inherit; color: var(--text); background: var(--surface); width: 100%; max-width: 36rem; min-height: var(--tap);
          padding: var(--space-2) var(--space-3); border: 1px solid var(--field); border-radius: .5rem;
        }
        textarea { max-width: none; min-height: 14rem; line-height: 1.5; }
        input[aria-invalid="true"], textarea[aria-invalid="true"] { border: 2px solid var(--todo); }
        input[type=checkbox], input[type=radio] { width: 1.25rem; height: 1.25rem; margin: 0; accent-color: var(--accent); flex: none; }
        label:has(> input[type=checkbox]), label:has(> input[type=radio]), label.inline { display: inline-flex; align-items: center; gap: var(--space-2); min-height: var(--tap); margin: 0 var(--space-4) 0 0; font-weight: 400; }
        fieldset { min-width: 0; margin: var(--space-4) 0 0; padding: var(--space-2) var(--space-4) var(--space-3); border: 1px solid var(--line); border-radius: var(--radius); }
        legend { font-weight: 600; padding: 0 var(--space-1); }
        form.filters h2 { margin-top: 0; }
        form.filters > label { display: inline-flex; align-items: center; gap: var(--space-2); margin: var(--space-2) var(--space-4) 0 0; font-weight: 400; }
        form.filters select { width: auto; }
        form.filters input[type=text] { width: 6rem; }
        details > summary { min-height: var(--tap); display: flex; align-items: center; cursor: pointer; color: var(--accent); }

        /* Buttons look like buttons: outlined, the screen's one primary action filled. */
        button, .button {
          display: inline-flex; align-items: center; justify-content: center; gap: var(--space-2); min-height: var(--tap);
          margin: var(--space-4) var(--space-2) 0 0; padding: var(--space-2) var(--space-4); border: 1.5px solid var(--accent); border-radius: .625rem;
          background: var(--surface); color: var(--accent); font: inherit; font-weight: 600; text-decoration: none; cursor: pointer;
        }
        button:hover, .button:hover { background: var(--accent-soft); }
        button.primary, .button.primary { background: var(--accent); color: var(--on-accent); }
        button.primary:hover, .button.primary:hover { filter: brightness(1.1); }
        button.danger { border-color: var(--danger); color: var(--danger); }
        button[aria-pressed="true"] .icon { fill: currentColor; }
        .inline { display: inline; }
        .inline button, li button { margin: 0 var(--space-2) 0 0; padding: var(--space-1) var(--space-3); }
        .actions { display: flex; flex-wrap: wrap; gap: var(--space-2); align-items: center; }
        .actions button, .actions .button { margin: 0; }

        /* Pages */
        blockquote.quote { margin: 0 0 var(--space-2); }
        blockquote.quote p { font-size: var(--text-lg); line-height: 1.45; margin: 0; }
        blockquote.quote footer { margin-top: var(--space-2); color: var(--muted); }
        div.meta { display: flex; flex-wrap: wrap; align-items: center; gap: var(--space-2); margin: 0 0 var(--space-5); }
        div.meta a { display: inline-flex; align-items: center; min-height: var(--tap); }
        .note { border-left: 4px solid var(--accent); padding: var(--space-2) var(--space-3); background: var(--accent-soft); border-radius: 0 .5rem .5rem 0; }
        pre.version { white-space: pre-wrap; border: 1px solid var(--line); border-radius: .5rem; padding: var(--space-3); background: var(--bg); }
        .progress { font-size: var(--text-lg); }
        .places { display: grid; gap: var(--space-4); grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); align-items: start; }
        .places .map { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); overflow: hidden; }
        .places .map > svg { display: block; width: 100%; height: auto; }
        .places .list h2 { margin-top: 0; }
        .places ol { padding: 0; }
        .places ol li { display: block; padding: var(--space-2) var(--space-4); }
        /* The map with streets (Leaflet, /map.js): pins in their colours, clusters ringed by theirs. */
        .places .map .streets { width: 100%; aspect-ratio: 4 / 3; max-height: 70vh; background: #f4f1ea; }
        .places .map .legend { margin: 0; padding: var(--space-2) var(--space-3); font-size: var(--text-sm); color: var(--muted); border-top: 1px solid var(--line); }
        .places .map .legend .you { display: inline-block; width: .75rem; height: .75rem; margin-right: var(--space-2); border: 3px solid #111; border-radius: 50%; background: #fff; vertical-align: -.1em; }
        .map-pin { background: none; border: 0; }
        .map-pin a { position: relative; display: block; width: 28px; height: 30px; }
        .map-pin a::before { content: ""; position: absolute; left: 4px; top: 0; width: 20px; height: 20px; box-sizing: border-box; background: var(--pin); border: 1.5px solid #222; border-radius: 50% 50% 50% 0; transform: rotate(-45deg); }
        .map-pin a::after { content: ""; position: absolute; left: 11px; top: 7px; width: 6px; height: 6px; border-radius: 50%; background: #fff; }
        .map-cluster { background: none; border: 0; }
        .map-cluster .ring { display: grid; place-items: center; width: 40px; height: 40px; border-radius: 50%; box-shadow: 0 0 0 1.5px #222; }
        .map-cluster .count { display: grid; place-items: center; width: 28px; height: 28px; border-radius: 50%; background: #fff; color: #111; font-weight: 700; font-size: var(--text-sm); }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .leaflet-container { font: inherit; }
        /* Leaflet hides the outline of what a key or the mouse touched; the keyboard's ring stays. */
        .leaflet-container:focus-visible, .leaflet-container :focus-visible { outline: 3px solid var(--focus) !important; outline-offset: 2px; }
        .leaflet-container .leaflet-control-attribution { font-size: .75rem; color: #222; }
        .pin { display: inline-block; width: .75rem; height: .75rem; border-radius: 50%; margin-right: var(--space-2); }
        .pin.red { background: var(--pin-red); }
        .pin.blue { background: var(--pin-blue); }
        .checklist s { color: var(--muted); }

        /* A phone: the apps become a tab bar at the bottom; titles stay large. */
        @media (max-width: 600px) {
          body { padding-bottom: calc(4.25rem + env(safe-area-inset-bottom)); }
          .bar { justify-content: space-between; }
          .apps { position: fixed; left: 0; right: 0; bottom: 0; z-index: 10; background: var(--surface); border-top: 1px solid var(--line); padding-bottom: env(safe-area-inset-bottom); }
          .apps ul { gap: 0; }
          .apps li { flex: 1 1 0; }
          .apps a { flex-direction: column; justify-content: center; gap: 2px; min-height: 4.25rem; padding: var(--space-1); border-radius: 0; font-size: .75rem; text-align: center; line-height: 1.2; }
          .apps a .icon { width: 1.625rem; height: 1.625rem; }
          .apps a[aria-current="page"] { background: none; }
          .apps a[aria-current="page"] .icon { fill: var(--accent-soft); }
          main { padding: var(--space-3) var(--space-3) var(--space-5); }
          h1 { font-size: var(--text-2xl); margin-top: var(--space-2); }
          .places { grid-template-columns: minmax(0, 1fr); }
          .places .map .streets { aspect-ratio: 1; }
          .leaflet-touch .leaflet-bar a { width: var(--tap); height: var(--tap); line-height: var(--tap); }
          button.primary, .button.primary { width: 100%; margin-right: 0; }
          .menu ul { padding: var(--space-2) var(--space-3); scrollbar-width: none; }
        }
        @media (min-width: 601px) {
          .bar { min-height: 3.75rem; }
          .apps { margin-left: auto; }
          input + button, select + button { margin-left: var(--space-2); }
          h1 { font-size: 2.25rem; }
        }
        @media print {
          header, nav, form, .noprint, .skip { display: none !important; }
          body { background: none; color: #000; font-size: 11pt; padding: 0; }
          main { max-width: none; padding: 0; }
          main > section { border: 0; padding: 0; }
          h2 { break-after: avoid; } section { break-inside: avoid; }
        }
        """

    /// The icons, as SVG symbols drawn once per page and used with `<use href="#i-…">`: nothing
    /// depends on an emoji font.
    static let sprite = """
        <svg class="sprite" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">
        <symbol id="i-suite" viewBox="0 0 24 24"><rect x="3.5" y="3.5" width="7" height="7" rx="2"/><rect x="13.5" y="3.5" width="7" height="7" rx="2"/><rect x="3.5" y="13.5" width="7" height="7" rx="2"/><rect x="13.5" y="13.5" width="7" height="7" rx="2"/></symbol>
        <symbol id="i-bmm" viewBox="0 0 24 24"><rect x="3" y="7" width="18" height="13" rx="2"/><path d="M8.5 7V5.5a2 2 0 0 1 2-2h3a2 2 0 0 1 2 2V7M3 13h18"/></symbol>
        <symbol id="i-places" viewBox="0 0 24 24"><path d="M12 21.5s-7-6.3-7-11.8a7 7 0 0 1 14 0c0 5.5-7 11.8-7 11.8z"/><circle cx="12" cy="9.7" r="2.6"/></symbol>
        <symbol id="i-quotes" viewBox="0 0 24 24"><path d="M4.5 4h15a1.5 1.5 0 0 1 1.5 1.5v10a1.5 1.5 0 0 1-1.5 1.5H10l-5.5 4V5.5A1.5 1.5 0 0 1 4.5 4z"/><path d="M9 9.5v2.5M14.5 9.5v2.5"/></symbol>
        <symbol id="i-bundle" viewBox="0 0 24 24"><path d="M3.5 7.5 12 3l8.5 4.5v9L12 21l-8.5-4.5z"/><path d="m3.5 7.5 8.5 4.5 8.5-4.5M12 12v9"/></symbol>
        <symbol id="i-star" viewBox="0 0 24 24"><path d="m12 3 2.8 5.7 6.2.9-4.5 4.4 1.1 6.2L12 17.3l-5.6 2.9 1.1-6.2L3 9.6l6.2-.9z"/></symbol>
        <symbol id="i-heart" viewBox="0 0 24 24"><path d="M12 20s-7.5-4.6-9-9.3A4.6 4.6 0 0 1 12 7a4.6 4.6 0 0 1 9 3.7C19.5 15.4 12 20 12 20z"/></symbol>
        <symbol id="i-check" viewBox="0 0 24 24"><path d="m5 12.5 4.5 4.5L19 7.5"/></symbol>
        <symbol id="i-open" viewBox="0 0 24 24"><circle cx="12" cy="12" r="8"/></symbol>
        <symbol id="i-back" viewBox="0 0 24 24"><path d="M9 14 4 9l5-5"/><path d="M4 9h10.5a5.5 5.5 0 0 1 0 11H11"/></symbol>
        </svg>
        """
}

/// The style sheet and the script at addresses that change with their content
/// (`/suite.css?v=…`), so a browser keeps them (`immutable`) instead of fetching them for every
/// page, and a new version is fetched at once.
enum WebAssets {
    static let styleURL = "/suite.css?v=" + version(WebStyle.css)
    static let scriptURL = "/live.js?v=" + version(WebScript.live)
    /// How long a browser keeps them (a year; the address changes with the content).
    static let cacheControl = "private, max-age=31536000, immutable"

    /// FNV-1a (64 bits) of the text, in hexadecimal: a version, not a secret.
    static func version(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
