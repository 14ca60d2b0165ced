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

    private func page(_ template: String, title: String, current: String, values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        WebPage.page(template, title: title, app: "quotes", menu: menu(current), values: values, secrets: app.secrets, status: status)
    }

    private func quoteID(_ context: WebContext) throws -> Quote.ID {
        guard let raw = context.parameters.get("id"), let number = Int64(raw), number > 0 else { throw HTTPError(.notFound, message: "no such quote") }
        return Quote.ID(number)
    }

    /// Adds the starter collection first when the store is due it, as the CLI does.
    private func seeded() async throws {
        if try await store.needsStarterCollection() { _ = try await store.addStarterCollectionIfEmpty() }
    }

    /// A quote as the templates show it.
    private func row(_ quote: Quote, favorite: Bool? = nil, back: String) -> [String: Any] {
        var row: [String: Any] = [
            "id": quote.id.rawValue, "text": quote.text, "favoriteCount": quote.favoriteCount, "back": back,
            "categories": quote.categories.map { ["name": $0, "query": Self.queryValue($0)] },
        ]
        if let source = quote.source { row["source"] = source.name }
        if let favorite { row["favorite"] = favorite }
        return row
    }

    private func favorites() async throws -> Set<Quote.ID> {
        Set(try await store.favorites(user: user).map(\.id))
    }

    func home() async throws -> Response {
        try await seeded()
        let now = Calendar.current.dateComponents([.year, .month, .day], from: Date())
        guard let today = try await store.todaysQuote(year: now.year ?? 2026, month: now.month ?? 1, day: now.day ?? 1, user: user) else {
            return page("quotes-empty", title: "Quotes", current: "/quotes", values: [:])
        }
        var quote = row(today.quote, favorite: today.isFavorite, back: "/quotes")
        quote["notes"] = today.notes.map { ["text": $0.text] }
        return page("quotes-home", title: "Today's quote", current: "/quotes", values: ["heading": "Today's quote", "quote": quote])
    }

    func random(category: String?) async throws -> Response {
        try await seeded()
        let category = category.flatMap { $0.isEmpty ? nil : $0 }
        do {
            let quote = try await store.random(QuoteFilter(category: category), user: user)
            let favorite = try await favorites().contains(quote.id)
            return page("quotes-home", title: "A random quote", current: "/quotes/random", values: [
                "heading": category.map { "A random quote about \($0)" } ?? "A random quote",
                "quote": row(quote, favorite: favorite, back: "/quotes/quote/\(quote.id.rawValue)"), "another": category.map(Self.queryValue) ?? "",
            ])
        } catch {
            return page("quotes-empty", title: "Quotes", current: "/quotes/random", values: ["error": String(describing: error)], status: .notFound)
        }
    }

    func quotePage(_ id: Quote.ID, noteError: String? = nil, note: String = "", status: HTTPResponse.Status = .ok) async throws -> Response {
        let quote: Quote
        do {
            quote = try await store.quote(id)
        } catch {
            throw HTTPError(.notFound, message: error.description)
        }
        var shown = row(quote, favorite: try await favorites().contains(id), back: "/quotes/quote/\(id.rawValue)")
        shown["notes"] = try await store.notes(on: id, user: user).map { ["text": $0.text] }
        var values: [String: Any] = ["heading": "Quote #\(id.rawValue)", "quote": shown, "note": note, "withNotes": true]
        if let noteError { values["noteError"] = noteError }
        return page("quotes-home", title: "Quote #\(id.rawValue)", current: "", values: values, status: status)
    }

    func favorite(_ id: Quote.ID, _ form: WebForm) async throws -> Response {
        do {
            if form.first("on") == "1" { _ = try await store.favorite(id, user: user) } else { _ = try await store.unfavorite(id, user: user) }
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
            _ = try await store.addNote(text, on: id, user: user)
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

    func list(title: String, current: String, back: String, quotes: [Quote], pager: [String: Any]) async throws -> Response {
        let favorites = try await favorites()
        return page("quotes-list", title: title, current: current, values: [
            "heading": title, "quotes": quotes.map { row($0, favorite: favorites.contains($0.id), back: back) }, "pager": pager,
        ])
    }

    /// The favourites, a page at a time, in the order ``QuoteStore/favorites(user:)`` gives.
    func favoritesPage(_ query: WebForm) async throws -> Response {
        let paging = WebPaging(query, size: Self.pageSize)
        let all = try await store.favorites(user: user)
        let shown = Array(all.dropFirst(paging.offset).prefix(paging.size))
        return try await list(title: "Favourites", current: "/quotes/favorites", back: paging.page > 1 ? "/quotes/favorites?page=\(paging.page)" : "/quotes/favorites",
                              quotes: shown, pager: paging.values(path: "/quotes/favorites", hasMore: paging.offset + shown.count < all.count,
                                                                  total: all.count, noun: "More favourites"))
    }

    func categories() async throws -> Response {
        try await seeded()
        let categories = try await store.categories().map { ["name": $0.name, "query": Self.queryValue($0.name), "count": $0.count] as [String: Any] }
        return page("quotes-categories", title: "Categories", current: "/quotes/categories", values: ["categories": categories])
    }

    func browse(_ query: WebForm) async throws -> Response {
        let category = query.first("category").flatMap { $0.isEmpty ? nil : $0 }
        let filter = QuoteFilter(category: category)
        let paging = WebPaging(query, size: Self.pageSize)
        do {
            // One more than a page: whether another page follows.
            let quotes = try await store.browse(filter, user: user, limit: paging.size + 1, offset: paging.offset)
            let pager = paging.values(path: "/quotes/browse", fields: [("category", category ?? "")], hasMore: quotes.count > paging.size, noun: "More quotes")
            let here = (category.map { "/quotes/browse?category=" + Self.queryValue($0) } ?? "/quotes/browse")
                + (paging.page > 1 ? (category == nil ? "?" : "&") + "page=\(paging.page)" : "")
            return try await list(title: category.map { "Quotes about \($0)" } ?? "All quotes", current: "/quotes/categories", back: here,
                                  quotes: Array(quotes.prefix(paging.size)), pager: pager)
        } catch {
            return page("quotes-empty", title: "Quotes", current: "/quotes/categories", values: ["error": String(describing: error)], status: .notFound)
        }
    }

    func search(_ form: WebForm) async throws -> Response {
        let query = form.first("q") ?? ""
        let paging = WebPaging(form, size: Self.hitsPageSize)
        var values: [String: Any] = ["query": query]
        if !query.isEmpty {
            do {
                // Markers no quote can hold (control characters are refused in quotes), turned
                // into <mark> by the template, each piece escaped. The search ranks every match
                // anyway, so a later page is the best ones up to it, less the pages before;
                // one more than a page says whether another follows.
                let ranked = try await store.search(query, user: user, limit: paging.offset + paging.size + 1, markers: ("\u{1}", "\u{2}"))
                let hits = ranked.dropFirst(paging.offset).prefix(paging.size)
                let favorites = try await favorites()
                let back = "/quotes/search?q=" + Self.queryValue(query) + (paging.page > 1 ? "&page=\(paging.page)" : "")
                values["pager"] = paging.values(path: "/quotes/search", fields: [("q", query)], hasMore: ranked.count > paging.offset + paging.size,
                                                noun: "More results")
                values["hits"] = hits.map { hit -> [String: Any] in
                    var shown = row(hit.quote, favorite: favorites.contains(hit.quote.id), back: back)
                    shown["pieces"] = Self.pieces(hit.highlighted)
                    return shown
                }
                values["searched"] = true
            } catch {
                values["error"] = String(describing: error)
            }
        }
        return page("quotes-search", title: "Search", current: "/quotes/search", values: values, status: values["error"] == nil ? .ok : .unprocessableContent)
    }

    /// A value for a URL's query: everything but letters, digits and `-._~` percent-encoded.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `plain \u{1}match\u{2} plain` as pieces, each marked or not.
    static func pieces(_ highlighted: String) -> [[String: Any]] {
        var pieces: [[String: Any]] = []
        var current = "", marked = false
        for character in highlighted {
            if character == "\u{1}" || character == "\u{2}" {
                if !current.isEmpty { pieces.append(["text": current, "mark": marked]) }
                current = ""
                marked = character == "\u{1}"
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { pieces.append(["text": current, "mark": marked]) }
        return pieces
    }

    /// The deliveries, newest first, a page at a time: `?before=` the slot (in milliseconds since
    /// 1970) of the last one of the page before.
    func history(_ query: WebForm) async throws -> Response {
        let favorites = try await favorites()
        let before = query.first("before").flatMap(Int64.init).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        let back = before.map { "/quotes/history?before=" + String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? "/quotes/history"
        // One more than a page: whether older ones follow.
        let found = try await store.history(user: user, before: before, limit: Self.pageSize + 1)
        let shown = found.prefix(Self.pageSize)
        var values: [String: Any] = ["deliveries": shown.map { delivery -> [String: Any] in
            ["when": BMMPages.stamp(delivery.deliveredAt),
             "quote": row(delivery.quote, favorite: favorites.contains(delivery.quote.id), back: back)]
        }]
        var pager: [String: Any] = ["shown": before != nil || found.count > Self.pageSize]
        if before != nil { pager["newest"] = "/quotes/history" }
        if found.count > Self.pageSize, let last = shown.last {
            pager["older"] = "/quotes/history?before=" + String(Int64((last.slot.timeIntervalSince1970 * 1000).rounded()))
        }
        values["pager"] = pager
        return page("quotes-history", title: "History", current: "/quotes/history", values: values)
    }

    func schedule(saved: Bool = false, fields: [String: String]? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let current = try await store.schedule(user: user)
        let values = fields ?? [
            "times": current?.timesText ?? "", "weekdays": current?.weekdaysText ?? "mon,tue,wed,thu,fri,sat,sun",
            "quiet": current?.quietHours.map(\.description).joined(separator: ",") ?? "",
            "tz": current?.timeZoneIdentifier ?? TimeZone.current.identifier, "category": current?.category ?? "",
            "missed": current?.missedSlots.rawValue ?? "latest",
            "tailored": current?.tailored == true ? "1" : "", "reminders": current?.reminders == true ? "1" : "",
        ]
        var shown: [String: Any] = values
        shown["tailoredChecked"] = values["tailored"] == "1"
        shown["remindersChecked"] = values["reminders"] == "1"
        shown["nottodos"] = try await store.notToDos(user: user).map { ["id": $0.id.rawValue, "text": $0.text, "category": $0.category ?? ""] as [String: Any] }
        shown["hasSchedule"] = current != nil
        shown["saved"] = saved
        shown["missedOptions"] = Schedule.MissedSlots.allCases.map { ["value": $0.rawValue, "selected": $0.rawValue == values["missed"]] }
        shown["categories"] = try await store.categories().map { ["name": $0.name, "selected": $0.name == values["category"]] as [String: Any] }
        if let error { shown["error"] = error }
        if let current {
            // In the schedule's own zone, named when it is not the local one.
            let zone = TimeZone(identifier: current.timeZoneIdentifier) ?? .current
            shown["next"] = current.nextSlots(after: Date(), count: 5).map { ["when": PeopleTime.stamp($0, in: zone)] }
        }
        return page("quotes-schedule", title: "Settings", current: "/quotes/schedule", values: shown, status: status)
    }

    func setSchedule(_ form: WebForm) async throws -> Response {
        if form.first("clear") != nil {
            try await store.setSchedule(nil, user: user)
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
                category: fields["category"].flatMap { $0.isEmpty ? nil : $0 }, missedSlots: try BundlePages.choice(Schedule.MissedSlots.self, fields["missed", default: ""], named: "missed slots") ?? .latest,
                tailored: fields["tailored"] == "1", reminders: fields["reminders"] == "1")
            try await store.setSchedule(schedule, user: user)
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
            try await store.addNotToDo(text, category: category, user: user)
        } catch {
            return try await schedule(error: error.description, status: .unprocessableContent)
        }
        return WebPage.redirect("/quotes/schedule?saved=1")
    }

    func removeNotToDo(_ context: WebContext) async throws -> Response {
        guard let raw = context.parameters.get("id"), let number = Int64(raw), number > 0 else { throw HTTPError(.notFound, message: "no such not-to-do") }
        do {
            try await store.removeNotToDo(NotToDo.ID(number), user: user)
        } catch {
            throw HTTPError(.notFound, message: error.description)
        }
        return WebPage.redirect("/quotes/schedule?saved=1")
    }
}
