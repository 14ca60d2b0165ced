import Foundation
import SuiteEnvironment
import HTTPTypes
import Hummingbird
import QuoteCore

/// The quote pages (seed 002): today's quote, another random one, the favourite toggle with its
/// count, categories, search with highlights, favourites, notes, the delivery history, and the
/// schedule as a settings form. The user is the one the CLI uses (`$USER`).
struct QuotePages {
    let app: WebApp

    var store: QuoteStore { app.quotes }
    var user: String { app.user }

    func register(on router: Router<WebContext>) {
        router.get("/quotes") { _, _ in try await home() }
        router.get("/quotes/random") { request, _ in try await random(category: WebForm.query(request).first("category")) }
        router.get("/quotes/quote/{id}") { _, context in try await quotePage(try quoteID(context)) }
        router.post("/quotes/quote/{id}/favorite") { _, context in try await favorite(try quoteID(context), context.form) }
        router.post("/quotes/quote/{id}/notes") { _, context in try await addNote(try quoteID(context), context.form) }
        router.get("/quotes/favorites") { request, _ in try await favoritesPage(WebForm.query(request)) }
        router.get("/quotes/categories") { _, _ in try await categories() }
        router.get("/quotes/browse") { request, _ in try await browse(WebForm.query(request)) }
        router.get("/quotes/search") { request, _ in try await search(WebForm.query(request)) }
        router.get("/quotes/history") { request, _ in try await history(WebForm.query(request)) }
        router.get("/quotes/schedule") { request, _ in try await schedule(saved: WebForm.query(request).first("saved") != nil) }
        router.post("/quotes/schedule") { _, context in try await setSchedule(context.form) }
        router.post("/quotes/nottodo") { _, context in try await addNotToDo(context.form) }
        router.post("/quotes/nottodo/{id}/remove") { _, context in try await removeNotToDo(context) }
    }

    private func menu(_ current: String) -> [WebPage.MenuItem] {
        [("HOME", "/quotes"), ("Another", "/quotes/random"), ("Categories", "/quotes/categories"), ("Search", "/quotes/search"),
         ("Favourites", "/quotes/favorites"), ("History", "/quotes/history"), ("Settings", "/quotes/schedule")].map {
            WebPage.MenuItem(label: $0.0, href: $0.1, current: $0.1 == current)
        }
    }

    private func page(_ content: some WebViewModel, title: String, current: String, status: HTTPResponse.Status = .ok) -> Response {
        WebPage.page(content, title: title, app: "quotes", menu: menu(current), secrets: app.secrets, status: status)
    }

    private func quoteID(_ context: WebContext) throws -> Quote.ID {
        guard let raw = context.parameters.get("id"), let number = Int64(raw), number > 0 else { throw HTTPError(.notFound, message: "no such quote") }
        return Quote.ID(number)
    }

    /// Adds the starter collection first when the store is due it, as the CLI does.
    private func seeded() async throws {
        if try await store.run({ try $0.needsStarterCollection() }) { _ = try await store.run { try $0.addStarterCollectionIfEmpty() } }
    }

    /// A quote as the templates show it.
    private func row(_ quote: Quote, favorite: Bool, back: String) -> QuoteRow {
        QuoteRow(id: quote.id.rawValue, text: quote.text, favoriteCount: quote.favoriteCount, back: back,
                 categories: quote.categories.map { QuoteRow.Category(name: $0, query: Self.queryValue($0)) },
                 source: quote.source?.name, favorite: favorite)
    }

    private func favorites() async throws -> Set<Quote.ID> {
        Set(try await store.run { try $0.favorites(user: user) }.map(\.id))
    }

    func home() async throws -> Response {
        try await seeded()
        let now = Calendar.current.dateComponents([.year, .month, .day], from: Date())
        guard let today = try await store.run({ try $0.todaysQuote(year: now.year ?? 2026, month: now.month ?? 1, day: now.day ?? 1, user: user) }) else {
            return page(Empty(error: nil), title: "Quotes", current: "/quotes")
        }
        var quote = row(today.quote, favorite: today.isFavorite, back: "/quotes")
        quote.notes = today.notes.map { QuoteRow.Note(text: $0.text) }
        return page(Home(heading: "Today's quote", quote: quote), title: "Today's quote", current: "/quotes")
    }

    func random(category: String?) async throws -> Response {
        try await seeded()
        let category = category.flatMap { $0.isEmpty ? nil : $0 }
        do {
            let quote = try await store.run { try $0.random(QuoteFilter(category: category), user: user) }
            let favorite = try await favorites().contains(quote.id)
            return page(Home(heading: category.map { "A random quote about \($0)" } ?? "A random quote",
                             quote: row(quote, favorite: favorite, back: "/quotes/quote/\(quote.id.rawValue)"), another: category.map(Self.queryValue) ?? ""),
                        title: "A random quote", current: "/quotes/random")
        } catch {
            return page(Empty(error: String(describing: error)), title: "Quotes", current: "/quotes/random", status: .notFound)
        }
    }

    func quotePage(_ id: Quote.ID, noteError: String? = nil, note: String = "", status: HTTPResponse.Status = .ok) async throws -> Response {
        let quote: Quote
        do {
            quote = try await store.run { s throws(QuoteError) in try s.quote(id) }
        } catch {
            throw HTTPError(.notFound, message: error.description)
        }
        var shown = row(quote, favorite: try await favorites().contains(id), back: "/quotes/quote/\(id.rawValue)")
        shown.notes = try await store.run { try $0.notes(on: id, user: user) }.map { QuoteRow.Note(text: $0.text) }
        return page(Home(heading: "Quote #\(id.rawValue)", quote: shown, note: note, withNotes: true, noteError: noteError),
                    title: "Quote #\(id.rawValue)", current: "", status: status)
    }

    func favorite(_ id: Quote.ID, _ form: WebForm) async throws -> Response {
        do {
            if form.first("on") == "1" { _ = try await store.run { s throws(QuoteError) in try s.favorite(id, user: user) } } else { _ = try await store.run { s throws(QuoteError) in try s.unfavorite(id, user: user) } }
        } catch {
            throw HTTPError(.notFound, message: error.description)
        }
        let back = form.first("back") ?? "/quotes"
        // Only a page of this app: never a redirect elsewhere ("//host", "/\\host" and the like).
        let safe = back.hasPrefix("/quotes") && !back.contains("\\") && !back.contains("//") && !back.unicodeScalars.contains { $0.value < 0x21 }
        return WebPage.redirect(safe ? back : "/quotes")
    }

    func addNote(_ id: Quote.ID, _ form: WebForm) async throws -> Response {
        let text = form.first("note") ?? ""
        do {
            _ = try await store.run { s throws(QuoteError) in try s.addNote(text, on: id, user: user) }
        } catch {
            return try await quotePage(id, noteError: error.description, note: text, status: .unprocessableContent)
        }
        return WebPage.redirect("/quotes/quote/\(id.rawValue)")
    }

    /// How many quotes a page of a list, of search hits or of the history holds (fortunes run to
    /// a few KB each).
    static let pageSize = 20
    /// How many search hits a page holds: fewer, as every match is marked.
    static let hitsPageSize = 10

    func list(title: String, current: String, back: String, quotes: [Quote], pager: WebPaging.Pager) async throws -> Response {
        let favorites = try await favorites()
        return page(List(heading: title, quotes: quotes.map { row($0, favorite: favorites.contains($0.id), back: back) }, pager: pager),
                    title: title, current: current)
    }

    /// The favourites, a page at a time, in the order ``QuoteStore/favorites(user:)`` gives.
    func favoritesPage(_ query: WebForm) async throws -> Response {
        let paging = WebPaging(query, size: Self.pageSize)
        let all = try await store.run { try $0.favorites(user: user) }
        let shown = Array(all.dropFirst(paging.offset).prefix(paging.size))
        return try await list(title: "Favourites", current: "/quotes/favorites", back: paging.page > 1 ? "/quotes/favorites?page=\(paging.page)" : "/quotes/favorites",
                              quotes: shown, pager: paging.pager(path: "/quotes/favorites", hasMore: paging.offset + shown.count < all.count,
                                                                 total: all.count, noun: "More favourites"))
    }

    func categories() async throws -> Response {
        try await seeded()
        let categories = try await store.run { try $0.categories() }.map { Categories.Row(name: $0.name, query: Self.queryValue($0.name), count: $0.count) }
        return page(Categories(categories: categories), title: "Categories", current: "/quotes/categories")
    }

    func browse(_ query: WebForm) async throws -> Response {
        let category = query.first("category").flatMap { $0.isEmpty ? nil : $0 }
        let filter = QuoteFilter(category: category)
        let paging = WebPaging(query, size: Self.pageSize)
        do {
            // One more than a page: whether another page follows.
            let quotes = try await store.run { try $0.browse(filter, user: user, limit: paging.size + 1, offset: paging.offset) }
            let pager = paging.pager(path: "/quotes/browse", fields: [("category", category ?? "")], hasMore: quotes.count > paging.size, noun: "More quotes")
            let here = (category.map { "/quotes/browse?category=" + Self.queryValue($0) } ?? "/quotes/browse")
                + (paging.page > 1 ? (category == nil ? "?" : "&") + "page=\(paging.page)" : "")
            return try await list(title: category.map { "Quotes about \($0)" } ?? "All quotes", current: "/quotes/categories", back: here,
                                  quotes: Array(quotes.prefix(paging.size)), pager: pager)
        } catch {
            return page(Empty(error: String(describing: error)), title: "Quotes", current: "/quotes/categories", status: .notFound)
        }
    }

    func search(_ form: WebForm) async throws -> Response {
        let query = form.first("q") ?? ""
        let paging = WebPaging(form, size: Self.hitsPageSize)
        var shown = Search(query: query)
        if !query.isEmpty {
            do {
                // Markers no quote can hold (control characters are refused in quotes), turned
                // into <mark> by the template, each piece escaped. The search ranks every match
                // anyway, so a later page is the best ones up to it, less the pages before;
                // one more than a page says whether another follows.
                let ranked = try await store.run { try $0.search(query, user: user, limit: paging.offset + paging.size + 1, markers: ("\u{1}", "\u{2}")) }
                let hits = ranked.dropFirst(paging.offset).prefix(paging.size)
                let favorites = try await favorites()
                let back = "/quotes/search?q=" + Self.queryValue(query) + (paging.page > 1 ? "&page=\(paging.page)" : "")
                shown.pager = paging.pager(path: "/quotes/search", fields: [("q", query)], hasMore: ranked.count > paging.offset + paging.size,
                                           noun: "More results")
                shown.hits = hits.map { hit in
                    var found = row(hit.quote, favorite: favorites.contains(hit.quote.id), back: back)
                    found.pieces = Self.pieces(hit.highlighted)
                    return found
                }
                shown.searched = true
            } catch {
                shown.error = String(describing: error)
            }
        }
        return page(shown, title: "Search", current: "/quotes/search", status: shown.error == nil ? .ok : .unprocessableContent)
    }

    /// A value for a URL's query: everything but letters, digits and `-._~` percent-encoded.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `plain \u{1}match\u{2} plain` as pieces, each marked or not.
    static func pieces(_ highlighted: String) -> [QuoteRow.Piece] {
        var pieces: [QuoteRow.Piece] = []
        var current = "", marked = false
        for character in highlighted {
            if character == "\u{1}" || character == "\u{2}" {
                if !current.isEmpty { pieces.append(QuoteRow.Piece(text: current, mark: marked)) }
                current = ""
                marked = character == "\u{1}"
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { pieces.append(QuoteRow.Piece(text: current, mark: marked)) }
        return pieces
    }

    /// The deliveries, newest first, a page at a time: `?before=` the slot (in milliseconds since
    /// 1970) of the last one of the page before.
    func history(_ query: WebForm) async throws -> Response {
        let favorites = try await favorites()
        let before = query.first("before").flatMap(Int64.init).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        let back = before.map { "/quotes/history?before=" + String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? "/quotes/history"
        // One more than a page: whether older ones follow.
        let found = try await store.run { try $0.history(user: user, before: before, limit: Self.pageSize + 1) }
        let shown = found.prefix(Self.pageSize)
        let deliveries = shown.map { delivery in
            History.Delivery(when: BMMPages.stamp(delivery.deliveredAt),
                             quote: row(delivery.quote, favorite: favorites.contains(delivery.quote.id), back: back))
        }
        let older = found.count > Self.pageSize ? shown.last.map { "/quotes/history?before=" + String(Int64(($0.slot.timeIntervalSince1970 * 1000).rounded())) } : nil
        let pager = History.Pager(shown: before != nil || found.count > Self.pageSize, newest: before != nil ? "/quotes/history" : nil, older: older)
        return page(History(deliveries: deliveries, pager: pager), title: "History", current: "/quotes/history")
    }

    func schedule(saved: Bool = false, fields: [String: String]? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let current = try await store.run { try $0.schedule(user: user) }
        let values = fields ?? [
            "times": current?.timesText ?? "", "weekdays": current?.weekdaysText ?? "mon,tue,wed,thu,fri,sat,sun",
            "quiet": current?.quietHours.map(\.description).joined(separator: ",") ?? "",
            "tz": current?.timeZoneIdentifier ?? TimeZone.current.identifier, "category": current?.category ?? "",
            "missed": current?.missedSlots.rawValue ?? "latest",
            "tailored": current?.tailored == true ? "1" : "", "reminders": current?.reminders == true ? "1" : "",
        ]
        let next = current.map { current in
            // In the schedule's own zone, named when it is not the local one.
            let zone = TimeZone(identifier: current.timeZoneIdentifier) ?? .current
            return current.nextSlots(after: Date(), count: 5).map { Settings.Slot(when: PeopleTime.stamp($0, in: zone)) }
        }
        let shown = Settings(
            times: values["times"] ?? "", weekdays: values["weekdays"] ?? "", quiet: values["quiet"] ?? "", tz: values["tz"] ?? "",
            tailoredChecked: values["tailored"] == "1", remindersChecked: values["reminders"] == "1",
            nottodos: try await store.run { try $0.notToDos(user: user) }.map { Settings.NotToDo(id: $0.id.rawValue, text: $0.text, category: $0.category.flatMap { $0.isEmpty ? nil : $0 }) },
            hasSchedule: current != nil, saved: saved,
            missedOptions: Schedule.MissedSlots.allCases.map { WebPage.Choice(value: $0.rawValue, selected: $0.rawValue == values["missed"]) },
            categories: try await store.run { try $0.categories() }.map { Settings.Category(name: $0.name, selected: $0.name == values["category"]) },
            error: error, next: next ?? [])
        return page(shown, title: "Settings", current: "/quotes/schedule", status: status)
    }

    func setSchedule(_ form: WebForm) async throws -> Response {
        if form.first("clear") != nil {
            try await store.run { try $0.setSchedule(nil, user: user) }
            return WebPage.redirect("/quotes/schedule?saved=1")
        }
        let fields = ["times", "weekdays", "quiet", "tz", "category", "missed", "tailored", "reminders"].reduce(into: [String: String]()) { $0[$1] = form.first($1) ?? "" }
        do {
            let quiet = try fields["quiet", default: ""].split(separator: ",").map { range throws(QuoteError) in
                try TimeRange.parse(range.trimmingCharacters(in: .whitespaces))
            }
            let schedule = try Schedule(
                times: try Schedule.parseTimes(fields["times", default: ""]), weekdays: try Schedule.parseWeekdays(fields["weekdays", default: ""]),
                quietHours: quiet, timeZoneIdentifier: fields["tz", default: ""],
                category: fields["category"].flatMap { $0.isEmpty ? nil : $0 }, missedSlots: try WebForm.choice(Schedule.MissedSlots.self, fields["missed", default: ""], named: "missed slots") ?? .latest,
                tailored: fields["tailored"] == "1", reminders: fields["reminders"] == "1")
            try await store.run { try $0.setSchedule(schedule, user: user) }
        } catch {
            return try await schedule(fields: fields, error: String(describing: error), status: .unprocessableContent)
        }
        return WebPage.redirect("/quotes/schedule?saved=1")
    }

    /// The not-to-do list (seed 002's NotToDo): added from the settings page, each with a category
    /// or none; a bad entry is refused beside the form.
    func addNotToDo(_ form: WebForm) async throws -> Response {
        let text = form.first("nottodo") ?? ""
        let category = form.first("nottodoCategory").flatMap { $0.isEmpty ? nil : $0 }
        do {
            try await store.run { s throws(QuoteError) in try s.addNotToDo(text, category: category, user: user) }
        } catch {
            return try await schedule(error: error.description, status: .unprocessableContent)
        }
        return WebPage.redirect("/quotes/schedule?saved=1")
    }

    func removeNotToDo(_ context: WebContext) async throws -> Response {
        guard let raw = context.parameters.get("id"), let number = Int64(raw), number > 0 else { throw HTTPError(.notFound, message: "no such not-to-do") }
        do {
            try await store.run { s throws(QuoteError) in try s.removeNotToDo(NotToDo.ID(number), user: user) }
        } catch {
            throw HTTPError(.notFound, message: error.description)
        }
        return WebPage.redirect("/quotes/schedule?saved=1")
    }
}

// MARK: - View models

extension QuotePages {
    /// A quote as the `quote` partial shows it.
    struct QuoteRow: TemplateValues {
        struct Category: TemplateValues {
            let name: String
            /// The name for a link's query.
            let query: String
        }

        struct Note: TemplateValues { let text: String }

        /// A piece of a search hit's text, marked where it matched or not.
        struct Piece: TemplateValues {
            let text: String
            let mark: Bool
        }

        let id: Int64
        let text: String
        let favoriteCount: Int
        /// Where the favourite form leads back to.
        let back: String
        let categories: [Category]
        let source: String?
        let favorite: Bool
        /// Your notes, on the pages that show them (none: no "Your notes" heading).
        var notes: [Note] = []
        /// The text with the matches marked, on the search page.
        var pieces: [Piece]?
    }

    /// A quote with your notes: today's, a random one or any one.
    struct Home: WebViewModel {
        static let template = "quotes-home"
        let heading: String
        let quote: QuoteRow
        /// The category of "Another one", on a random quote's page (empty for any category).
        var another: String?
        /// The note field's text, on a quote's own page.
        var note: String?
        var withNotes = false
        var noteError: String?
    }

    /// No quote to show: none yet, or why not.
    struct Empty: WebViewModel {
        static let template = "quotes-empty"
        let error: String?
    }

    /// A page of quotes (favourites, a category, every one).
    struct List: WebViewModel {
        static let template = "quotes-list"
        let heading: String
        let quotes: [QuoteRow]
        let pager: WebPaging.Pager
    }

    struct Categories: WebViewModel {
        static let template = "quotes-categories"

        struct Row: TemplateValues {
            let name: String
            let query: String
            let count: Int
        }

        let categories: [Row]
    }

    /// The search form, and a page of hits once there is a query.
    struct Search: WebViewModel {
        static let template = "quotes-search"
        let query: String
        var pager: WebPaging.Pager?
        var hits: [QuoteRow]?
        var searched = false
        var error: String?
    }

    /// The quotes sent, newest first.
    struct History: WebViewModel {
        static let template = "quotes-history"

        struct Delivery: TemplateValues {
            let when: String
            let quote: QuoteRow
        }

        /// Links to the newest page and to older deliveries.
        struct Pager: TemplateValues {
            let shown: Bool
            let newest: String?
            let older: String?
        }

        let deliveries: [Delivery]
        let pager: Pager
    }

    /// The schedule form, the next deliveries and the not-to-do list.
    struct Settings: WebViewModel {
        static let template = "quotes-schedule"

        struct NotToDo: TemplateValues {
            let id: Int64
            let text: String
            let category: String?
        }

        struct Category: TemplateValues {
            let name: String
            let selected: Bool
        }

        struct Slot: TemplateValues { let when: String }

        /// The form's fields, as saved or as sent when refused.
        let times: String
        let weekdays: String
        let quiet: String
        let tz: String
        let tailoredChecked: Bool
        let remindersChecked: Bool
        let nottodos: [NotToDo]
        let hasSchedule: Bool
        let saved: Bool
        let missedOptions: [WebPage.Choice]
        let categories: [Category]
        let error: String?
        /// The next deliveries, when there is a schedule (none: no "Next deliveries" heading).
        let next: [Slot]
    }
}
