import BundleCore
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuoteCore
@testable import SuiteWeb
import Testing
import WorkplaceCore

/// Issue #36 §3: every page of the web app within 100 KB of HTML at real sizes — 10,000 todos
/// (a tenth done, 150 completed bundles), places enough to fill the map's list, quotes as long
/// as Debian's longest fortune, a favourites list and a delivery history longer than a page —
/// and the pages' links reaching everything the first page leaves out. (Times are measured by
/// `Benchmarks/web-pages`, not here.)
@Suite("Web pages at real sizes")
struct WebPageSizeTests {
    static let budget = 100 * 1024

    /// A store folder with the data set, and the web app on it.
    static func filled() async throws -> (WebApp, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-web-sizes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let web = try await WebApp(folder: folder)

        // 10,000 todos over 100 events, a third with a deadline, a tenth done.
        var lines = ""
        let preps = ["before", "after", "when", "none"]
        for i in 0..<10_000 {
            let done = i % 10 == 9 ? "x 2026-11-20 " : ""
            let due = i % 3 == 0 ? " due:2026-12-\(String(format: "%02d", 1 + i % 28))" : ""
            lines += "\(done)2026-11-\(String(format: "%02d", 1 + i % 20)) Errand number \(i) for the errand pile @event-\(i % 100) prep:\(preps[i % 4])\(due)\n"
        }
        let data = Data(lines.utf8)
        _ = try await web.bundles.run { try $0.importData(data, format: .todotxt, timeZone: .current) }
        // 150 bundles checked in, worked through and completed; one left open.
        for k in 0..<151 {
            let event = "event \(k % 100)"
            let direction: CheckInDirection = k % 4 == 1 ? .justFinished : .aboutTo
            let offered = try await web.bundles.run { try $0.checkInListing(event: event, direction: direction, timeZone: .current) }.todos
                .filter { $0.status == .pending }.prefix(3)
            guard !offered.isEmpty else { continue }
            let bundle = try await web.bundles.run { try $0.checkIn(event: event, direction: direction, todoIDs: offered.map(\.id), timeZone: .current) }
            if k == 150 { break }
            for todo in offered { _ = try await web.bundles.run { try $0.markDone(todo.id, in: bundle.id) } }
            _ = try await web.bundles.run { try $0.complete(bundle.id) }
        }

        // Quotes as long as Debian's longest fortune (2,383 characters), so that a page of them
        // is as large as a page can be; more than a page in one category.
        let text = String(repeating: "Those who \"know\" & <say> it ", count: 85)   // 2,380 characters, many of them escaped
        var csv = ""
        for i in 0..<300 { csv += "\"\(i) \(text.replacingOccurrences(of: "\"", with: "\"\""))\",Author \(i % 7),\(i % 2 == 0 ? "long" : "longer")\n" }
        let csvData = Data(csv.utf8)
        _ = try await web.quotes.run { try $0.importData(csvData, name: "long.csv", format: .csv) }
        let ids = try await web.quotes.run { try $0.browse(QuoteFilter(), user: web.user, limit: 300) }.map(\.id)
        for id in ids.prefix(60) { _ = try await web.quotes.run { try $0.favorite(id, user: web.user) } }
        // A delivery history of 70 quotes, one a day (as `suite quotes tick` records them).
        let queue = try DatabaseQueue(path: folder.appendingPathComponent(QuoteStore.fileName).path)
        try await queue.write { [user = web.user] db in
            for (day, id) in ids.suffix(70).enumerated() {
                let slot = Int64(1_750_000_000_000) + Int64(day) * 86_400_000
                try db.execute(sql: "INSERT INTO delivery (user, slot_ms, quote_id, delivered_ms, channel) VALUES (?, ?, ?, ?, 'stdout')",
                               arguments: [user, slot, id.rawValue, slot])
            }
        }

        // 3,000 places within a kilometre (the map lists at most 100 of them whatever the count).
        let center = try Coordinate(latitude: 52.52, longitude: 13.405)
        try await web.places.run { try $0.setLocation(center) }
        var features: [String] = []
        for i in 0..<3_000 {
            let latitude = 52.52 + Double(i % 60 - 30) * 0.0002, longitude = 13.405 + Double(i / 60 - 25) * 0.0003
            features.append(#"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [\#(longitude), \#(latitude)]}, "properties": {"name": "A place with a long name, number \#(i)", "type": "coffee-shop", "opening_hours": "Mo-Fr 08:00-18:00"}}"#)
        }
        let geojson = Data(#"{"type": "FeatureCollection", "features": [\#(features.joined(separator: ","))]}"#.utf8)
        _ = try await web.places.run { try $0.importFile(geojson, name: "places.geojson") }
        return (web, folder)
    }

    /// Runs `body` with a GET that returns a page's HTML (expecting 200).
    static func withPages(_ web: WebApp, _ body: @escaping @Sendable (_ get: @Sendable (String) async throws -> String) async throws -> Void) async throws {
        let app = Application(router: web.router(hosts: { ["localhost"] }))
        try await app.test(.router) { client in
            try await body { path in
                let response = try await client.execute(uri: path, method: .get, headers: [.cookie: "\(WebGuard.cookieName)=\(web.secrets.token)"])
                #expect(response.status == .ok, "\(path): \(response.status)")
                return String(buffer: response.body)
            }
        }
    }

    /// The `#id` numbers of the todos a pile or list page shows, in order.
    static func todoNumbers(_ html: String, list id: String) -> [Int] {
        guard let start = html.range(of: "<ul id=\"\(id)\""), let end = html[start.upperBound...].range(of: "</ul>") else { return [] }
        return html[start.upperBound..<end.lowerBound].matches(of: /<li>#(\d+)[ ]/).compactMap { Int($0.output.1) }
    }

    static func nextLink(_ html: String) -> String? {
        html.firstMatch(of: /<a href="([^"]+)" rel="next">/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") }
    }

    @Test func everyPageStaysWithinTheBudgetAndItsLinksReachTheRest() async throws {
        let (web, folder) = try await Self.filled()
        defer { try? FileManager.default.removeItem(at: folder) }
        let open = try #require(try await web.bundles.run({ try $0.openBundles() }).first)
        let completed = try #require(try await web.bundles.run({ try $0.review() }).first)
        let quote = try #require(try await web.quotes.run({ try $0.browse(QuoteFilter(), user: web.user, limit: 1) }).first)
        let place = try #require(try await web.places.run({ try $0.near(PlaceQuery(center: Coordinate(latitude: 52.52, longitude: 13.405), radius: 1000, limit: 1)) }).first)
        let byDeadline = try await web.bundles.run { try $0.todos(order: .byDeadline) }
        let everyTodo = try await web.bundles.run { try $0.todos(includeFinished: true) }
        let waiting = byDeadline.count

        try await Self.withPages(web) { get in
            // Every GET page of the routers (with ids: an open and a completed bundle, a quote, a place).
            let pages = [
                "/", "/bmm", "/bmm/about",
                "/quotes", "/quotes/random", "/quotes/quote/\(quote.id.rawValue)", "/quotes/favorites", "/quotes/categories",
                "/quotes/browse", "/quotes/browse?category=long", "/quotes/search?q=know", "/quotes/search?q=say*", "/quotes/history",
                "/quotes/schedule",
                "/bundle", "/bundle/checkin", "/bundle/checkin?event=event%203&direction=about-to", "/bundle/bundles/\(open.id.rawValue)",
                "/bundle/bundles/\(completed.id.rawValue)", "/bundle/review", "/bundle/review?event=event%203", "/bundle/all",
                "/places", "/places?radius=50000", "/places/add", "/places/place/\(place.place.id.rawValue)",
            ]
            for page in pages {
                let html = try await get(page)
                #expect(html.utf8.count <= Self.budget, "\(page) is \(html.utf8.count) bytes, over \(Self.budget)")
            }

            // The pile: soonest deadline first, a page at a time, the last page without "more".
            let pile = try await get("/bundle")
            #expect(pile.contains("Waiting (\(waiting))"))
            #expect(Self.todoNumbers(pile, list: "waiting") == byDeadline.prefix(BundlePages.pileSize).map { Int($0.id.rawValue) })
            let second = try await get(try #require(Self.nextLink(pile)))
            #expect(Self.todoNumbers(second, list: "waiting")
                == byDeadline.dropFirst(BundlePages.pileSize).prefix(BundlePages.pileSize).map { Int($0.id.rawValue) })
            let lastPile = (waiting + BundlePages.pileSize - 1) / BundlePages.pileSize
            let last = try await get("/bundle?page=\(lastPile)")
            #expect(Self.todoNumbers(last, list: "waiting").last == byDeadline.last.map { Int($0.id.rawValue) })
            #expect(Self.nextLink(last) == nil)

            // All todos: by event, every one reachable, the last page without "more".
            let all = try await get("/bundle/all")
            #expect(all.contains("\(everyTodo.count) todo(s)"))
            let allSecond = try await get(try #require(Self.nextLink(all)))
            #expect(allSecond.contains("#\(everyTodo[BundlePages.allSize].id.rawValue) "))
            let allLast = try await get("/bundle/all?page=\((everyTodo.count + BundlePages.allSize - 1) / BundlePages.allSize)")
            #expect(allLast.contains("#\(try #require(everyTodo.last).id.rawValue) "))
            #expect(Self.nextLink(allLast) == nil)
            // …and filtered by event.
            let ofEvent = try await get("/bundle/all?event=event%203")
            #expect(ofEvent.contains("100 todo(s) of <strong>event 3</strong>"))

            // The review: the latest first, then older pages down to the first bundle.
            var review = try await get("/bundle/review")
            var pagesSeen = 1
            while let next = Self.nextLink(review) {
                review = try await get(next)
                pagesSeen += 1
            }
            #expect(pagesSeen == (150 + BundlePages.reviewSize - 1) / BundlePages.reviewSize)
            #expect(review.contains("/bundle/bundles/\(completed.id.rawValue)\""))

            // Quotes: a category page at a time, then the next; the last page without "more".
            let inCategory = try await web.quotes.run { try $0.browse(QuoteFilter(category: "long"), user: web.user, limit: 1000) }
            let browse = try await get("/quotes/browse?category=long")
            let browseNext = try await get(try #require(Self.nextLink(browse)))
            #expect(browseNext.contains("href=\"/quotes/quote/\(inCategory[QuotePages.pageSize].id.rawValue)\""))
            let browseLast = try await get("/quotes/browse?category=long&page=\((inCategory.count + QuotePages.pageSize - 1) / QuotePages.pageSize)")
            #expect(browseLast.contains("href=\"/quotes/quote/\(try #require(inCategory.last).id.rawValue)\""))
            #expect(Self.nextLink(browseLast) == nil)

            // Search: the next page of hits, then none.
            let hits = try await web.quotes.run { try $0.search("know", user: web.user, limit: 1000) }
            let search = try await get("/quotes/search?q=know")
            let searchNext = try await get(try #require(Self.nextLink(search)))
            #expect(searchNext.contains("href=\"/quotes/quote/\(hits[QuotePages.hitsPageSize].quote.id.rawValue)\""))
            #expect(!search.contains("href=\"/quotes/quote/\(hits[QuotePages.hitsPageSize].quote.id.rawValue)\""))

            // Favourites and the history: every one reachable by "more".
            var favourites = try await get("/quotes/favorites"), favouritePages = 1
            while let next = Self.nextLink(favourites) { favourites = try await get(next); favouritePages += 1 }
            #expect(favouritePages == (60 + QuotePages.pageSize - 1) / QuotePages.pageSize)
            let history = try await web.quotes.run { try $0.history(user: web.user, limit: 1000) }
            #expect(history.count == 70)
            var shown = try await get("/quotes/history"), historyPages = 1
            #expect(shown.contains("href=\"/quotes/quote/\(history[0].quote.id.rawValue)\""))
            while let next = Self.nextLink(shown) { shown = try await get(next); historyPages += 1 }
            #expect(historyPages == (70 + QuotePages.pageSize - 1) / QuotePages.pageSize)
            #expect(shown.contains("href=\"/quotes/quote/\(try #require(history.last).quote.id.rawValue)\""))
        }
    }
}
