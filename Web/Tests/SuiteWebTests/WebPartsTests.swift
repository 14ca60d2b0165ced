import BundleCore
import Foundation
import SuiteEnvironment
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import SuiteWeb
import Testing
import WorkplaceCore

/// The web app's small parts; `Scripts/check-web` drives the whole app in Chromium.
@Suite("Web parts")
struct WebPartsTests {
    @Test func formsDecodePlusesPercentsAndRepeatedFields() {
        let form = WebForm(urlEncoded: "text=Fresh+bread%0Aat+dawn&todo=3&todo=5&empty=&flag&caf%C3%A9=%E2%98%85")
        #expect(form.first("text") == "Fresh bread\nat dawn")
        #expect(form.all("todo") == ["3", "5"])
        #expect(form.first("empty") == "")
        #expect(form.first("flag") == "")
        #expect(form.first("café") == "★")
        #expect(form.first("missing") == nil)
        // A malformed escape is an empty value, not a crash.
        #expect(WebForm(urlEncoded: "a=%ZZ").first("a") == "")
    }

    @Test func theTokenLeavesTheAddressItCameIn() {
        #expect(WebGuard.withoutToken(path: "/", query: "token=abc") == "/")
        #expect(WebGuard.withoutToken(path: "/bmm", query: "token=abc&x=1") == "/bmm?x=1")
        #expect(WebGuard.withoutToken(path: "", query: nil) == "/")
    }

    @Test func secretsAreLongRandomAndComparedWhole() {
        let one = WebSecrets(), other = WebSecrets()
        #expect(one.token.count == 64 && one.token != other.token && one.formToken != one.token)
        #expect(WebSecrets.same(one.token, one.token))
        #expect(!WebSecrets.same(one.token, String(one.token.dropLast())))
        #expect(!WebSecrets.same(one.token, other.token))
    }

    @Test func hostsAreTheLoopbackAddressAndPort() {
        #expect(WebApp.hosts(host: "127.0.0.1", port: 8422) == ["127.0.0.1:8422", "localhost:8422"])
        #expect(WebApp.hosts(host: "::1", port: 9) == ["[::1]:9", "localhost:9"])
    }

    @Test func searchHighlightsBecomePiecesNotMarkup() {
        let pieces = QuotePages.pieces("The \u{1}hard\u{2}er <b>conflict</b>")
        #expect(pieces.map(\.text) == ["The ", "hard", "er <b>conflict</b>"])
        #expect(pieces.map(\.mark) == [false, true, false])
    }

    @Test func pinsBecomeLinksToTheirPlaces() {
        let svg = #"<svg><g class="pin" data-id="12" data-color="red"><title>A</title><path/></g><g class="other"></g></svg>"#
        #expect(PlacePages.linkingPins(svg)
            == #"<svg><a href="/places/place/12"><g class="pin" data-id="12" data-color="red"><title>A</title><path/></g></a><g class="other"></g></svg>"#)
    }

    @Test func pinsBecomeLinksWhateverTheTextAround() {
        let svg = #"<svg><text>Café ☕ – Straße</text><g class="pin" data-id="7"><title>Ä</title></g><g class="pin" data-id="1234"></g>€</svg>"#
        #expect(PlacePages.linkingPins(svg)
            == #"<svg><text>Café ☕ – Straße</text><a href="/places/place/7"><g class="pin" data-id="7"><title>Ä</title></g></a><a href="/places/place/1234"><g class="pin" data-id="1234"></g></a>€</svg>"#)
        #expect(PlacePages.linkingPins("") == "" && PlacePages.linkingPins("<g class=\"pin\" data-id=\"3\">") == "<g class=\"pin\" data-id=\"3\">")
    }

    /// A `TemplateValues` value gives every stored property by its name, as `Mirror` sees it
    /// (a nil Optional as no value), and nothing for any other name.
    @Test func templateValuesAnswerEveryStoredPropertyAndNothingElse() throws {
        let row = PlacePages.Map.Row(id: 4, name: "Café <b>", type: "coffee-shop", distance: "120 m", rated: true, open: nil,
                                     lat: "52.5", lon: "13.4", color: "blue", hex: "#0a84ff")
        let quote = QuotePages.QuoteRow(id: 9, text: "Well begun", favoriteCount: 2, back: "/quotes", categories: [.init(name: "a", query: "a")],
                                        source: "Aristotle", favorite: false, notes: [], pieces: [.init(text: "Well", mark: true)])
        let todo = BundlePages.TodoRow(id: 3, text: "Buy stamps", status: "pending", pending: true, trigger: "before the bank", deadline: nil, overdue: false)
        let samples: [any TemplateValues] = [row, quote, quote.categories[0], try #require(quote.pieces?.first), todo,
                                             WebPage.Option(value: "1", label: "≥ 1", selected: true), WebPage.Choice(value: "bar", selected: false),
                                             PlacePages.Map.Live(lat: "1", lon: "2", radius: "3", tiles: "t", attribution: "a", styles: [], scripts: [])]
        for sample in samples {
            let children = Mirror(reflecting: sample).children
            #expect(!children.isEmpty)
            for child in children {
                let label = try #require(child.label)
                let optional = Mirror(reflecting: child.value)
                let expected: Any? = optional.displayStyle == .optional ? optional.children.first?.value : child.value
                #expect(sample.child(named: label).map { String(describing: $0) } == expected.map { String(describing: $0) }, "\(type(of: sample)).\(label)")
            }
            #expect(sample.child(named: "csrf") == nil && sample.child(named: "") == nil)
        }
        #expect(row.child(named: "open") == nil && todo.child(named: "deadline") == nil)
        #expect(quote.child(named: "source") as? String == "Aristotle")
    }

    @Test func theTemplatesEscapeWhatTheyShow() {
        let html = WebPage.render(WebPage.Refusal(title: "<script>alert(1)</script>", message: "a & \"b\"", styleURL: WebAssets.styleURL))
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;") && html.contains("a &amp; &quot;b&quot;"))
    }

    /// A page's view model as its template reads it: a nil Optional is no value (its section is
    /// false, and it never shows as "nil"), and the form token reaches the forms inside a list.
    @Test func aNilValueIsNoValueAndEveryFormCarriesTheToken() {
        func render(_ content: some WebViewModel) -> String {
            WebPage.library.render(WithFormToken(content: content, csrf: "token"), withTemplate: type(of: content).template) ?? ""
        }
        let none = render(QuotePages.Empty(error: nil))
        #expect(none.contains("No quotes yet") && !none.contains("class=\"error\"") && !none.contains("nil"), "\(none)")
        let refused = render(QuotePages.Empty(error: "no <such> category"))
        #expect(refused.contains("no &lt;such&gt; category") && !refused.contains("No quotes yet"), "\(refused)")

        let history = render(BMMPages.History(id: "value-proposition", title: "Value Proposition", versions: [
            .init(version: 2, text: "Fresh bread", savedAt: "Mon 2026-11-23 16:31", head: true, id: "value-proposition", confidence: nil),
            .init(version: 1, text: "Bread", savedAt: "Sun 2026-11-22 09:00", head: false, id: "value-proposition", confidence: "tested"),
        ], disagreeing: nil))
        #expect(history.components(separatedBy: "<input type=\"hidden\" name=\"csrf\" value=\"token\">").count == 3, "\(history)")
        #expect(history.contains("Mon 2026-11-23 16:31 · current</small>") && history.contains("Sun 2026-11-22 09:00 · tested</small>"), "\(history)")
        #expect(!history.contains("disagree") && !history.contains("nil"), "\(history)")
    }
}

@Suite("Web parts, continued")
struct WebPartsMoreTests {
    /// The home page's sync part goes through SuiteSync's SyncClient: not syncing, then a
    /// folder whose server cannot be reached — *Sync now* keeps the change waiting and shows why.
    @Test func theHomePageSaysWhatSyncsAndSyncsNow() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-sync-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = try await WebApp(folder: folder)
        let panel = SyncPanel(app: app)
        #expect(await panel.view().syncing == false)

        // What `suite sync login` writes (the server cannot be reached).
        let settings = #"{"account":"ada <b>","dataKey":"\#(Data(count: 32).base64EncodedString())","deviceID":"d","server":"http://127.0.0.1:9","token":"t"}"#
        try Data(settings.utf8).write(to: folder.appendingPathComponent("sync.json"))
        try await app.bundles.run { try $0.addTodo("Buy stamps", event: nil, preposition: .none) }
        await panel.syncNow()
        let view = await panel.view()
        #expect(view.syncing == true)
        #expect(view.lastError?.contains("cannot reach the sync server") == true, "\(view)")
        #expect(view.pending.hasSuffix("to be sent") && view.pending != "nothing waits to be sent", "\(view)")
        let html = WebPage.library.render(WithFormToken(content: HomePage(storeDir: folder.path, sync: view), csrf: "x"), withTemplate: HomePage.template) ?? ""
        #expect(html.contains("action=\"/sync\"") && html.contains("Sync now") && html.contains("ada &lt;b&gt;") && !html.contains("ada <b>"))
    }

    /// Live updates: a commit to an app's store is announced to open pages as that app's change,
    /// without reading the store (one signal per commit; the cores' tests count them).
    @Test func aCommitToEachStoreIsAnnouncedAsItsApp() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-live-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = try await WebApp(folder: folder)
        let (id, stream) = app.live.listen()
        defer { app.live.stop(id) }
        let deadline = Date().addingTimeInterval(120)
        while app.live.followed.count < 4 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(app.live.followed == ["bmm", "quotes", "bundle", "places"])
        var heard = stream.makeAsyncIterator()
        try await app.bundles.run { try $0.addTodo("Buy stamps", event: nil, preposition: .none) }
        #expect(await heard.next() == "bundle")
        try await app.places.run { try $0.setLocation(try Coordinate(latitude: 52.52, longitude: 13.405)) }
        #expect(await heard.next() == "places")
        _ = try await app.bmm.run { try $0.create(name: "Acme Bakery") }
        #expect(await heard.next() == "bmm")
        _ = try await app.quotes.run { try $0.add("Well begun is half done.", source: "Aristotle") }
        #expect(await heard.next() == "quotes")
    }

    /// The tasks following the stores keep neither the app nor its hub alive: when the app is
    /// let go of, the hub goes with it (its `deinit` cancels them).
    @Test func aReleasedAppTakesItsStoreFollowersWithIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-live-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        weak var hub: LiveUpdates?
        weak var store: BundleStore?
        do {
            let app = try await WebApp(folder: folder)
            hub = app.live
            store = app.bundles
            var checks = 0
            while app.live.followed.count < 4 && checks < 12_000 { checks += 1; try await Task.sleep(for: .milliseconds(10)) }
            #expect(app.live.followed.count == 4)
        }
        var checks = 0
        while (hub != nil || store != nil) && checks < 12_000 { checks += 1; try await Task.sleep(for: .milliseconds(10)) }
        #expect(hub == nil)
        #expect(store == nil)
    }

    /// The web app finds the store folder as `suite` does (one rule, SuiteEnvironment): `~`
    /// expanded, then $SUITE_HOME, $XDG_DATA_HOME, ~/.local/share.
    @Test func theStoreFolderIsTheOneSuiteUses() throws {
        #expect(try SuiteWebCommand.folder(storeDirectory: "~/notes", environment: ["HOME": "/home/ada"]) == URL(fileURLWithPath: "/home/ada/notes"))
        #expect(try SuiteWebCommand.folder(storeDirectory: nil, environment: ["HOME": "/home/ada", "SUITE_HOME": "~/s"]) == URL(fileURLWithPath: "/home/ada/s"))
        #expect(try SuiteWebCommand.folder(storeDirectory: nil, environment: ["HOME": "/home/ada", "XDG_DATA_HOME": "relative"])
            == URL(fileURLWithPath: "/home/ada/.local/share/suite"))
        #expect(throws: (any Error).self) { try SuiteWebCommand.folder(storeDirectory: nil, environment: [:]) }
    }

    /// Templates are files (Resources/templates, built into the binary): each one is registered
    /// under its file's name, and each parses.
    @Test func everyTemplateFileIsRegisteredAndParses() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/SuiteWeb/Resources/templates").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mustache") }.map { String($0.dropLast(".mustache".count)) }
        #expect(Set(files) == Set(WebTemplates.all.keys) && files.count == WebTemplates.all.count)
        for (name, text) in WebTemplates.all {
            let file = try String(contentsOf: folder.appendingPathComponent(name + ".mustache"), encoding: .utf8)
            #expect(text + "\n" == file || text == file, "\(name) differs from its file")
        }
        #expect(WebStyle.css.contains("--tap: 44px") && WebScript.live.contains("EventSource") && WebScript.map.contains("markerClusterGroup"))
    }

    @Test func queryValuesAreEncodedWhole() {
        #expect(QuotePages.queryValue("arts & crafts+more#1") == "arts%20%26%20crafts%2Bmore%231")
        #expect(QuotePages.queryValue("café") == "caf%C3%A9")
    }

    @Test func theTokenLandingNeverLeavesThisSite() {
        #expect(WebGuard.withoutToken(path: "//evil.example/", query: "token=t") == "/")
        #expect(WebGuard.withoutToken(path: "/\\evil.example", query: "token=t") == "/")
    }

    /// Times for people: local, `Mon 2026-11-23 16:31`, the zone named when it is not the local
    /// one; never an ISO stamp in UTC (issue: the schedule showed UTC, deadlines a Z time).
    @Test func timesAreShownAsPeopleReadThem() throws {
        let moment = try #require(ISO8601DateFormatter().date(from: "2026-12-03T16:00:00Z"))
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let local = PeopleTime.stamp(moment)
        #expect(!local.contains("T16:00") && !local.hasSuffix("Z"))
        #expect(local.range(of: #"^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) 2026-12-0[34] \d\d:\d\d"#, options: .regularExpression) != nil, "\(local)")
        let named = PeopleTime.stamp(moment, in: berlin)
        #expect(named == "Thu 2026-12-03 17:00" || named == "Thu 2026-12-03 17:00 Europe/Berlin", "\(named)")
        if TimeZone.current.secondsFromGMT(for: moment) != 3600 { #expect(named == "Thu 2026-12-03 17:00 Europe/Berlin") }
        #expect(PeopleTime.deadline(.day(year: 2026, month: 12, day: 3)) == "Thu 2026-12-03")
        #expect(PeopleTime.deadline(.time(moment), in: berlin) == named)
        #expect(PeopleTime.universal(moment) == "Thu 2026-12-03 16:00 UTC")
    }
}

/// The places map with streets: the tile server checked, Debian's Leaflet served from a fixed
/// list, the page allowing images from the tile server alone, and the SVG picture when Leaflet is
/// not there. `Scripts/check-web` shows the map in Chromium over a loopback tile server.
@Suite("The places map")
struct WebMapTests {
    @Test(arguments: [
        ("https://tile.openstreetmap.org/{z}/{x}/{y}.png", "https://tile.openstreetmap.org"),
        ("http://127.0.0.1:8099/{z}/{x}/{y}.png", "http://127.0.0.1:8099"),
        ("http://localhost/tiles/{z}/{x}/{y}.png", "http://localhost"),
        ("http://[::1]:81/{z}/{x}/{y}.png", "http://[::1]:81"),
        ("https://tiles.example.org:8443/osm/{z}/{x}/{y}.png?key=abc", "https://tiles.example.org:8443"),
    ])
    func tileTemplatesAndTheirOrigins(template: String, origin: String) throws {
        let source = try TileSource(template)
        #expect(source.template == template && source.origin == origin)
    }

    @Test func theDefaultIsOpenStreetMapsTemplateChecked() throws {
        #expect(try TileSource(TileSource.openStreetMap) == TileSource.standard)
    }

    @Test(arguments: [
        ("http://tiles.example.org/{z}/{x}/{y}.png", "is not https"),
        ("http://127.example.org/{z}/{x}/{y}.png", "is not https"),
        ("http://192.168.1.5/{z}/{x}/{y}.png", "is not https"),
        ("ftp://127.0.0.1/{z}/{x}/{y}.png", "is not https"),
        ("https://tiles.example.org/{z}/{x}.png", "has no {y}"),
        ("https://tiles.example.org/{x}/{y}.png", "has no {z}"),
        ("https://{s}.tile.example.org/{z}/{x}/{y}.png", "other than {z}, {x} and {y}"),
        ("https://user:secret@tiles.example.org/{z}/{x}/{y}.png", "user name, password"),
        ("https://tiles.example.org/{z}/{x}/{y}.png; script-src *", "is not a URL template"),
        ("https://tiles.example.org/{z}/{x}/{y}.png\"><script>", "is not a URL template"),
        ("/tiles/{z}/{x}/{y}.png", "is not a URL template"),
    ])
    func badTileTemplatesAreRefusedInOneLine(template: String, reason: String) {
        #expect {
            _ = try TileSource(template)
        } throws: { error in
            let text = String(describing: error)
            return text.contains(reason) && !text.contains("\n")
        }
    }

    @Test func suiteWebRefusesABadTileURL() {
        #expect(throws: (any Error).self) { _ = try SuiteWebCommand.parse(["--tile-url", "http://tiles.example.org/{z}/{x}/{y}.png"]) }
        let message = SuiteWebCommand.message(for: ValidationErrorProbe.refusal(["--tile-url", "http://tiles.example.org/{z}/{x}/{y}.png"]))
        #expect(message.hasPrefix("--tile-url: 'http://tiles.example.org/{z}/{x}/{y}.png' is not https"), "\(message)")
        #expect(SuiteWebCommand.exitCode(for: ValidationErrorProbe.refusal(["--tile-url", "x"])).rawValue == 64)
    }

    @Test func thePageServesLeafletAndLetsImagesComeFromTheTileServerAlone() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("web-map-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let leaflet = work.appendingPathComponent("leaflet", isDirectory: true)
        try FileManager.default.createDirectory(at: leaflet, withIntermediateDirectories: true)
        for name in ["leaflet.js", "leaflet.markercluster.js", "leaflet.css", "MarkerCluster.css", "leaflet.esm.js"] {
            try Data("/* \(name) */".utf8).write(to: leaflet.appendingPathComponent(name))
        }
        try Data("private".utf8).write(to: work.appendingPathComponent("secret.txt"))
        let map = WebMap(tiles: try TileSource("http://127.0.0.1:8099/{z}/{x}/{y}.png"), leafletFolder: leaflet)
        let web = try await WebApp(folder: work.appendingPathComponent("store"), map: map)
        let session: HTTPFields = [.cookie: "\(WebGuard.cookieName)=\(web.secrets.token)"]
        let form: HTTPFields = [.cookie: "\(WebGuard.cookieName)=\(web.secrets.token)", .contentType: "application/x-www-form-urlencoded"]
        let csrf = "csrf=\(web.secrets.formToken)"
        try await Application(router: web.router(hosts: { ["localhost"] })).test(.router) { client in
            let located = try await client.execute(uri: "/places/location", method: .post, headers: form, body: ByteBuffer(string: "\(csrf)&location=52.52,13.405"))
            #expect(located.status == .seeOther || located.status == .found)
            let hostile = "Caf%C3%A9+%22%3E%3C%2Fscript%3E%3Cimg+src%3Dx+onerror%3Dalert(1)%3E"
            let added = try await client.execute(uri: "/places/add", method: .post, headers: form, body: ByteBuffer(string: "\(csrf)&name=\(hostile)&at=52.521,13.406&type=library"))
            #expect(added.status == .seeOther || added.status == .found)

            let page = try await client.execute(uri: "/places", method: .get, headers: session)
            let html = String(buffer: page.body)
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("img-src 'self' data: http://127.0.0.1:8099;") == true)
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("script-src") == false, "scripts stay default-src 'self'")
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "strict-origin")
            #expect(html.contains("data-tiles=\"http://127.0.0.1:8099/{z}/{x}/{y}.png\"") && html.contains(WebAssets.mapScriptURL))
            let versioned = "/leaflet/leaflet.js?v=" + WebAssets.version(Data("/* leaflet.js */".utf8))
            #expect(html.contains("<script src=\"\(versioned)\" defer></script>"), "\(html)")
            #expect(html.contains("<svg"), "the SVG stays for browsers without JavaScript")
            #expect(!html.contains("<img src=x") && !html.contains("</script><img") && html.contains("&lt;/script&gt;&lt;img src=x"), "\(html)")

            let script = try await client.execute(uri: versioned, method: .get, headers: session)
            #expect(script.status == .ok && String(buffer: script.body) == "/* leaflet.js */")
            #expect(script.headers[.cacheControl]?.contains("immutable") == true && script.headers[.contentType]?.hasPrefix("text/javascript") == true)
            let mapScript = try await client.execute(uri: WebAssets.mapScriptURL, method: .get, headers: session)
            #expect(mapScript.status == .ok && String(buffer: mapScript.body) == WebScript.map)
            for path in ["/leaflet/leaflet.esm.js", "/leaflet/..%2Fsecret.txt", "/leaflet/../secret.txt", "/leaflet/%2E%2E/secret.txt", "/leaflet/images/layers.png"] {
                let refused = try await client.execute(uri: path, method: .get, headers: session)
                #expect(refused.status == .notFound && !String(buffer: refused.body).contains("private"), "\(path): \(refused.status)")
            }
        }

        // Without Leaflet: the SVG map, no script for it, no tile server allowed.
        let bare = try await WebApp(folder: work.appendingPathComponent("store"), map: WebMap(tiles: .standard, leafletFolder: work.appendingPathComponent("missing")))
        try await Application(router: bare.router(hosts: { ["localhost"] })).test(.router) { client in
            let session: HTTPFields = [.cookie: "\(WebGuard.cookieName)=\(bare.secrets.token)"]
            let page = try await client.execute(uri: "/places", method: .get, headers: session)
            let html = String(buffer: page.body)
            #expect(page.status == .ok && html.contains("<svg") && html.contains("places/place/"))
            #expect(!html.contains("/map.js") && !html.contains("/leaflet/") && !html.contains("data-tiles"))
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("img-src 'self' data:;") == true)
            #expect(try await client.execute(uri: "/leaflet/leaflet.js", method: .get, headers: session).status == .notFound)
        }
    }
}

/// A command line's refusal, as ArgumentParser reports it.
enum ValidationErrorProbe {
    static func refusal(_ arguments: [String]) -> any Error {
        do {
            _ = try SuiteWebCommand.parse(arguments)
        } catch {
            return error
        }
        return CancellationError()
    }
}
