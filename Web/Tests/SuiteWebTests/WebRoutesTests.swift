import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import SuiteWeb
import Testing

/// Every route of the web app, in process (Hummingbird's router test client), beside the Chromium
/// tests of `Scripts/check-web`: each page answers, and each form (POST) is refused without this
/// run's form token, refused beside its field when its input is bad — both with every store file
/// byte for byte as it was — and saved when it is good.
@Suite("Web routes", .serialized)
struct WebRoutesTests {
    /// Routes answered elsewhere: the event stream never ends (the live-update tests read it).
    static let elsewhere: Set<String> = [
        "GET /events",
        // WebPushTests, and check-push with a loopback push service.
        "GET /push/key", "POST /push/subscribe", "POST /push/remove", "POST /push/test",
    ]

    @Test func everyRouteAnswersAndEveryFormIsGuarded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-routes-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = try await WebApp(folder: folder)
        // The router test client sends every request to "localhost".
        let router = web.router(hosts: { ["localhost"] })
        let declared = Set(router.routes.map { "\($0.method) \($0.path)" })
        let app = Application(router: router)
        let tested = try await app.test(.router) { client -> Set<String> in
            let session = Session(client: client, web: web, folder: folder)

            // Business model: a name refused, then given; renamed; a section saved; restored.
            try await session.refused("POST /bmm/models", "/bmm/models", ["name": ""])
            let first = try await session.saved("POST /bmm/models", "/bmm/models", ["name": "Acme Bakery"])
            let section = String(try #require(first.split(separator: "/").last))
            try await session.saved("POST /bmm/models", "/bmm/models", ["name": "Second Shop"])
            let acme = try #require(try await web.bmm.run({ try $0.models() }).first { $0.name == "Acme Bakery" })
            try await session.saved("POST /bmm/use", "/bmm/use", ["model": acme.id.uuidString])
            try await session.refused("POST /bmm/rename", "/bmm/rename", ["rename": ""])
            try await session.saved("POST /bmm/rename", "/bmm/rename", ["rename": "Acme Bakers"])
            try await session.refused("POST /bmm/section/{section}", "/bmm/section/\(section)", ["text": "Fresh bread", "confidence": "sure-ish"])
            try await session.saved("POST /bmm/section/{section}", "/bmm/section/\(section)", ["text": "Fresh bread at dawn", "then": "stay"])
            try await session.saved("POST /bmm/section/{section}", "/bmm/section/\(section)", ["text": "Fresh bread by six", "then": "stay"])
            try await session.saved("POST /bmm/section/{section}/restore", "/bmm/section/\(section)/restore", ["version": "1"])

            // Bundles: a todo refused, then added; a check-in; its bundle's actions; a move.
            try await session.refused("POST /bundle/todos", "/bundle/todos", ["text": "", "preposition": "before", "event": "go to the bank"])
            try await session.refused("POST /bundle/todos", "/bundle/todos", ["text": "Pay the rent", "preposition": "before", "event": "go to the bank", "deadline": "31.12."])
            try await session.saved("POST /bundle/todos", "/bundle/todos", ["text": "Pay the rent", "preposition": "before", "event": "go to the bank", "newEvent": "1"])
            try await session.saved("POST /bundle/todos", "/bundle/todos", ["text": "Get the agreement signed", "preposition": "before", "event": "go to the bank"])
            let todos = try await web.bundles.run { try $0.todos() }
            let rent = try #require(todos.first { $0.text == "Pay the rent" }), agreement = try #require(todos.first { $0.text == "Get the agreement signed" })
            try await session.refused("POST /bundle/checkin", "/bundle/checkin", ["event": "go to the bank", "direction": "sideways", "todo": "\(rent.id.rawValue)"])
            let bundle = try await session.saved("POST /bundle/checkin", "/bundle/checkin", ["event": "go to the bank", "direction": "about-to", "todo": "\(rent.id.rawValue)"])
            #expect(bundle.hasPrefix("/bundle/bundles/"))
            let action = "POST /bundle/bundles/{id}/{action}"
            try await session.refused(action, "\(bundle)/rename", ["title": ""])
            try await session.saved(action, "\(bundle)/rename", ["title": "Bank run"])
            try await session.saved(action, "\(bundle)/icon", ["icon": "🏦"])
            try await session.saved(action, "\(bundle)/pull", ["todo": "\(agreement.id.rawValue)"])
            try await session.saved(action, "\(bundle)/done", ["todo": "\(rent.id.rawValue)"])
            try await session.saved(action, "\(bundle)/throwback", ["todo": "\(agreement.id.rawValue)"])
            try await session.saved(action, "\(bundle)/complete", [:])
            try await session.refused("POST /bundle/todos", "/bundle/todos", ["text": "Sign", "preposition": "sideways", "event": "go to the bank"])
            try await session.refused("POST /bundle/todos/{id}/move", "/bundle/todos/\(agreement.id.rawValue)/move", ["event": "go to the bank", "preposition": "sideways"])
            try await session.saved("POST /bundle/todos/{id}/move", "/bundle/todos/\(agreement.id.rawValue)/move", ["event": "go to the bank", "preposition": "after"])

            // Places: a location refused, then set; a place refused, then added and rated.
            try await session.refused("POST /places/location", "/places/location", ["location": "91,200"])
            try await session.saved("POST /places/location", "/places/location", ["location": "52.52,13.405"])
            try await session.refused("POST /places/add", "/places/add", ["name": "Werkbank", "at": "52.52,999", "type": "cafe"])
            let place = try await session.saved("POST /places/add", "/places/add", ["name": "Werkbank", "at": "52.521,13.41", "type": "cafe"])
            try await session.refused("POST /places/place/{id}/rate", "\(place)/rate", ["wifi": "7"])
            try await session.refused("POST /places/place/{id}/rate", "\(place)/rate", ["wifi": "4", "pin": "chartreuse"])
            try await session.saved("POST /places/place/{id}/rate", "\(place)/rate", ["wifi": "4", "notes": "quiet <b>upstairs</b>"])
            // Fetching asks the network: only its refusals here (check-web fetches from loopback providers).
            try await session.refused("POST /places/fetch", "/places/fetch", ["provider": "osm", "radius": "-5"])
            try await session.refused("POST /places/fetch", "/places/fetch", ["provider": "gopher", "radius": "1km"])

            // Quotes: a favourite, a note refused then kept, a schedule, the not-to-do list.
            let quote = try await web.quotes.run { try $0.add("Well begun is half done.", source: "Aristotle", categories: ["work"]) }
            let quotePath = "/quotes/quote/\(quote.id.rawValue)"
            try await session.saved("POST /quotes/quote/{id}/favorite", "\(quotePath)/favorite", ["on": "1", "back": "//evil.example/"])
            try await session.refused("POST /quotes/quote/{id}/notes", "\(quotePath)/notes", ["note": " "])
            try await session.saved("POST /quotes/quote/{id}/notes", "\(quotePath)/notes", ["note": "On the fridge"])
            try await session.refused("POST /quotes/schedule", "/quotes/schedule", ["times": "25:99"])
            try await session.refused("POST /quotes/schedule", "/quotes/schedule", ["times": "08:00", "weekdays": "all", "tz": "UTC", "missed": "sometimes"])
            try await session.saved("POST /quotes/schedule", "/quotes/schedule", ["times": "08:00", "weekdays": "all", "tz": "UTC"])
            try await session.refused("POST /quotes/nottodo", "/quotes/nottodo", ["nottodo": ""])
            try await session.saved("POST /quotes/nottodo", "/quotes/nottodo", ["nottodo": "Doomscrolling"])
            let notToDo = try #require(try await web.quotes.run({ try $0.notToDos(user: web.user) }).first)
            try await session.saved("POST /quotes/nottodo/{id}/remove", "/quotes/nottodo/\(notToDo.id.rawValue)/remove", [:])

            // Sync now, without an account: nothing to do, nothing changed.
            try await session.post("POST /sync", "/sync", [:], expect: .seeOther, changes: false)

            // Every page, with the data above.
            let pages: [(String, String, HTTPResponse.Status)] = [
                ("GET /", "/", .ok), ("GET /suite.css", "/suite.css", .ok), ("GET /live.js", "/live.js", .ok), ("GET /map.js", "/map.js", .ok),
                // Installing the app (WebInstallTests checks them).
                ("GET /manifest.webmanifest", "/manifest.webmanifest", .ok), ("GET /sw.js", "/sw.js", .ok),
                ("GET /icons/{file}", "/icons/icon-192.png", .ok), ("GET /offline", "/offline", .ok), ("GET /settings", "/settings", .ok),
                // Only Debian's Leaflet files are served (WebMapTests checks them); any other name is not there.
                ("GET /leaflet/{file}", "/leaflet/..%2F..%2Fetc%2Fpasswd", .notFound),
                ("GET /bmm", "/bmm", .ok), ("GET /bmm/goto", "/bmm/goto", .ok), ("GET /bmm/about", "/bmm/about", .ok),
                ("GET /bmm/section/{section}", "/bmm/section/\(section)", .ok),
                ("GET /bmm/section/{section}/history", "/bmm/section/\(section)/history", .ok),
                ("GET /bmm/share", "/bmm/share?force=1", .ok), ("GET /bmm/share/{format}", "/bmm/share/markdown?force=1", .ok),
                ("GET /bmm/print", "/bmm/print?force=1", .ok),
                ("GET /bundle", "/bundle", .ok), ("GET /bundle/checkin", "/bundle/checkin?event=go+to+the+bank&direction=about-to", .ok),
                ("GET /bundle/bundles/{id}", bundle, .ok), ("GET /bundle/review", "/bundle/review", .ok), ("GET /bundle/all", "/bundle/all", .ok),
                ("GET /places", "/places", .ok), ("GET /places/add", "/places/add", .ok), ("GET /places/place/{id}", place, .ok),
                ("GET /places/fetch/{job}", "/places/fetch/\(UUID().uuidString)", .notFound),
                ("GET /quotes", "/quotes", .ok), ("GET /quotes/random", "/quotes/random", .ok), ("GET /quotes/quote/{id}", quotePath, .ok),
                ("GET /quotes/favorites", "/quotes/favorites", .ok), ("GET /quotes/categories", "/quotes/categories", .ok),
                ("GET /quotes/browse", "/quotes/browse?category=work", .ok), ("GET /quotes/search", "/quotes/search?q=begun", .ok),
                ("GET /quotes/history", "/quotes/history", .ok), ("GET /quotes/schedule", "/quotes/schedule", .ok),
            ]
            for (route, path, status) in pages {
                let response = try await session.get(path)
                #expect(response.status == status, "\(route): \(path) answered \(response.status)")
                session.covered.insert(route)
            }
            // A page that is not there, and an id that is not one, say so as pages.
            #expect(try await session.get("/bundle/bundles/999999").status == .notFound)
            #expect(try await session.get("/places/place/abc").status == .notFound)
            return session.covered
        }
        let covered = tested.union(Self.elsewhere)
        #expect(declared.subtracting(covered).isEmpty, "routes without a test here: \(declared.subtracting(covered).sorted())")
        #expect(covered.subtracting(declared).isEmpty, "tested here but not routes: \(covered.subtracting(declared).sorted())")
    }
}

extension WebRoutesTests {
    /// No heading over nothing and no empty brackets: a random quote without notes, the
    /// schedule page before there is a schedule, a not-to-do without a category.
    @Test func emptyPartsShowNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-empty-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = try await WebApp(folder: folder)
        _ = try await web.quotes.run { try $0.add("Well begun is half done.", source: "Aristotle", categories: ["work"]) }
        _ = try await web.quotes.run { try $0.addNotToDo("Doomscrolling", user: web.user) }
        let cookie: HTTPFields = [.cookie: "\(WebGuard.cookieName)=\(web.secrets.token)"]
        try await Application(router: web.router(hosts: { ["localhost"] })).test(.router) { client in
            let random = String(buffer: try await client.execute(uri: "/quotes/random", method: .get, headers: cookie).body)
            #expect(random.contains("Well begun") && !random.contains("Your notes"), "\(random)")
            let schedule = String(buffer: try await client.execute(uri: "/quotes/schedule", method: .get, headers: cookie).body)
            #expect(schedule.contains("Doomscrolling") && !schedule.contains("[]") && !schedule.contains("Next deliveries"), "\(schedule)")
        }
    }

    /// The guards, one by one, in front of every route: the host, other sites, the token (and
    /// its cookie), the form's origin and size; every answer, refusals included, never kept or framed.
    @Test func theGuardsRefuseWhatIsNotThisRunsOwn() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-guards-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = try await WebApp(folder: folder)
        let cookie = "\(WebGuard.cookieName)=\(web.secrets.token)"
        @Sendable func refusedEverywhere(_ response: TestResponse, _ status: HTTPResponse.Status, _ what: String) {
            #expect(response.status == status, "\(what): \(response.status)")
            #expect(response.headers[.cacheControl] == "no-store" && response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(what): \(response.headers)")
        }
        // Another host name (DNS rebinding): the router test client always says "localhost".
        try await Application(router: web.router(hosts: { ["127.0.0.1:8422"] })).test(.router) { client in
            refusedEverywhere(try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]), .misdirectedRequest, "another host")
        }
        try await Application(router: web.router(hosts: { ["localhost"] })).test(.router) { client in
            refusedEverywhere(try await client.execute(uri: "/bmm", method: .get, headers: [:]), .forbidden, "no token")
            refusedEverywhere(try await client.execute(uri: "/bmm", method: .get, headers: [.cookie: "\(WebGuard.cookieName)=\(String(repeating: "0", count: 64))"]), .forbidden, "a wrong cookie")
            refusedEverywhere(try await client.execute(uri: "/bmm?token=nope", method: .get, headers: [:]), .forbidden, "a wrong token")
            refusedEverywhere(try await client.execute(uri: "/bmm", method: .get, headers: [.cookie: cookie, HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]), .forbidden, "another site")
            let landing = try await client.execute(uri: "/bmm?token=\(web.secrets.token)&x=1", method: .get, headers: [:])
            #expect(landing.status == .found && landing.headers[.location] == "/bmm?x=1")
            let set = landing.headers[.setCookie] ?? ""
            #expect(set.contains(web.secrets.token) && set.contains("HttpOnly") && set.contains("SameSite=Strict"), "\(set)")
            #expect(try await client.execute(uri: "/bmm", method: .get, headers: [.cookie: cookie]).status == .ok)
            // A form from another origin, or too large, changes nothing.
            var form: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded", .origin: "http://evil.example"]
            refusedEverywhere(try await client.execute(uri: "/bmm/models", method: .post, headers: form, body: ByteBuffer(string: "name=X&csrf=\(web.secrets.formToken)")),
                              .forbidden, "another origin")
            form[.origin] = nil
            refusedEverywhere(try await client.execute(uri: "/bmm/models", method: .post, headers: form,
                                                       body: ByteBuffer(string: "csrf=\(web.secrets.formToken)&name=" + String(repeating: "x", count: 10 * 1024 * 1024 + 1))),
                              .contentTooLarge, "a form too large")
            #expect(try await web.bmm.run({ try $0.models() }).isEmpty)
        }
    }
}

/// A browser with this run's cookie, and the store folder's fingerprint around each form.
private final class Session: @unchecked Sendable {
    let client: any TestClientProtocol
    let web: WebApp
    let folder: URL
    var covered: Set<String> = []

    init(client: any TestClientProtocol, web: WebApp, folder: URL) {
        self.client = client
        self.web = web
        self.folder = folder
    }

    var cookie: HTTPFields { [.cookie: "\(WebGuard.cookieName)=\(web.secrets.token)"] }

    func get(_ path: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: cookie, body: nil)
    }

    /// Every store file's bytes (the write-ahead logs included; the shared-memory index and the
    /// lock files are not data).
    func fingerprint() throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix("-shm") && !$0.hasSuffix(".lock") }.sorted()
        var hash = SHA256()
        for name in names {
            hash.update(data: Data(name.utf8))
            hash.update(data: try Data(contentsOf: folder.appendingPathComponent(name)))
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Posts `fields` with the form token, after checking that the same form without it is
    /// refused with nothing changed; returns where the answer leads (its `Location`).
    @discardableResult
    func post(_ route: String, _ path: String, _ fields: [String: String], expect status: HTTPResponse.Status, changes: Bool?) async throws -> String {
        covered.insert(route)
        let body = fields.sorted { $0.key < $1.key }.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&")
        var headers = cookie
        headers[.contentType] = "application/x-www-form-urlencoded"
        let before = try fingerprint()
        let forged = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
        #expect(forged.status == .forbidden, "\(route) without the form token: \(forged.status)")
        #expect(try fingerprint() == before, "\(route) without the form token changed a store")
        let signed = body.isEmpty ? "csrf=\(web.secrets.formToken)" : body + "&csrf=\(web.secrets.formToken)"
        let response = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: signed))
        #expect(response.status == status, "\(route) \(fields): \(response.status) \(String(buffer: response.body).prefix(300))")
        if let changes {
            #expect((try fingerprint() != before) == changes, "\(route) \(fields): the stores \(changes ? "did not change" : "changed")")
        }
        return response.headers[.location] ?? ""
    }

    /// A good form: saved, and the answer leads to a page (POST, redirect, GET).
    @discardableResult
    func saved(_ route: String, _ path: String, _ fields: [String: String]) async throws -> String {
        try await post(route, path, fields, expect: .seeOther, changes: true)
    }

    /// Bad input: answered with the form again and the message beside its field, nothing changed.
    func refused(_ route: String, _ path: String, _ fields: [String: String]) async throws {
        try await post(route, path, fields, expect: .unprocessableContent, changes: false)
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
