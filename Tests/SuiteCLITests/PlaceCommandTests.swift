import Foundation
import SuiteTestSupport
@testable import SuiteCLI
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

let placesFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/places/berlin.geojson").standardizedFileURL.path

@Suite(.serialized) struct PlaceCommandTests {
    @Test func locationImportNearRateShowMapExport() throws {
        let suite = try Suite()
        #expect(try suite.run("places", "location", "set", "52.52,13.405").status == 0)
        #expect(try suite.run("places", "import", placesFixture).stdout.hasPrefix("Imported 4 new"))
        let near = try suite.run("places", "near", "--radius", "1km", "--json")
        let found = try JSONDecoder().decode([JSONValue].self, from: Data(near.stdout.utf8))
        #expect(found.compactMap { $0["place"]?["name"]?.string } == ["Kaffee Eck", "Cowork Hub", "Stadtbibliothek"])
        #expect(found.compactMap { $0["place"]?["pinColor"]?.string } == ["red", "blue", "red"])
        #expect(try suite.run("places", "rate", "1", "--noise", "1", "--wifi", "4", "--pin", "green", "--menu", "snacks").status == 0)
        let scored = try suite.run("places", "near", "--min", "wifi=4", "--sort", "score")
        #expect(scored.stdout.split(separator: "\n").count == 2)
        #expect(scored.stdout.contains("[green pin]"))
        let open = try suite.run("places", "near", "--open-now", "--type", "coffee-shop")
        #expect(open.stdout.contains("Kaffee Eck"))
        #expect(!open.stdout.contains("Stadtbibliothek"))
        let show = try suite.run("places", "show", "1")
        #expect(show.stdout.contains("hours:    24/7"))
        #expect(show.stdout.contains("open now: yes"))
        #expect(show.stdout.contains("menu:     snacks"))
        let anywhere = try suite.run("places", "near", "--anywhere", "--limit", "4", "--json")
        #expect(try JSONDecoder().decode([JSONValue].self, from: Data(anywhere.stdout.utf8)).count == 4)
        let map = suite.path("map.svg")
        #expect(try suite.run("places", "map", "-o", map).status == 0)
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: map)))
        #expect(parser.parse())
        let exported = try suite.run("places", "export", "--format", "geojson")
        let copy = try Suite()
        #expect(try copy.run(["places", "import", "-"], stdin: Data(exported.stdout.utf8)).stdout.hasPrefix("Imported 4 new"))
        #expect(try copy.run("places", "export", "--format", "csv").stdout.contains("Kaffee Eck,coffee-shop"))
    }

    @Test func fetchFromYelpAndOpenStreetMapThroughLoopbackServers() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/v3/businesses/search", [.init(status: 200, body: """
            {"total": 1, "businesses": [{"id": "abc", "name": "Yelp Café", "categories": [{"alias": "coffee", "title": "Coffee"}],
             "coordinates": {"latitude": 52.5201, "longitude": 13.4049}, "location": {"display_address": ["Somewhere 1"]}, "display_phone": ""}]}
            """)])
        await server.script.set("/v3/businesses/abc", [.init(status: 200, body: "{\"hours\": [{\"hours_type\": \"REGULAR\", \"open\": [{\"day\": 0, \"start\": \"0700\", \"end\": \"1900\", \"is_overnight\": false}]}]}")])
        await server.script.set("/api/interpreter", [.init(status: 200, body: "{\"elements\": [{\"type\": \"node\", \"id\": 7, \"lat\": 52.5199, \"lon\": 13.4051, \"tags\": {\"amenity\": \"library\", \"name\": \"OSM Library\"}}]}")])
        await server.script.set("/search", [.init(status: 200, body: "[{\"lat\": \"52.5219\", \"lon\": \"13.4132\", \"display_name\": \"Alexanderplatz, Berlin\"}]")])
        var suite = try Suite()
        let base = server.baseURL.absoluteString
        let located = try await suite.runAsync(["places", "location", "set", "Alexanderplatz, Berlin", "--nominatim-url", base])
        #expect(located.status == 0, "\(located.stderr)")
                #expect(located.stdout.contains("52.521900,13.413200"))
        expectFailure(try await suite.runAsync(["places", "fetch", "--provider", "yelp", "--yelp-url", base + "/v3"]), status: 69, "set YELP_API_KEY")
        suite.environment["YELP_API_KEY"] = "key-that-must-not-leak"
        let yelp = try await suite.runAsync(["places", "fetch", "--provider", "yelp", "--yelp-url", base + "/v3"])
        #expect(yelp.status == 0, "\(yelp.stderr)")
        #expect(yelp.stdout.contains("1 new"))
        let osm = try await suite.runAsync(["places", "fetch", "--provider", "osm", "--overpass-url", base + "/api"])
        #expect(osm.stdout.contains("1 new"))
        #expect(try await suite.runAsync(["places", "show", "1"]).stdout.contains("Mo 07:00-19:00"))
        // What libcurl sent: the bearer key to Yelp, a form POST with a User-Agent to Overpass.
        let requests = await server.script.requests
        let search = try #require(requests.first { $0.path == "/v3/businesses/search" && $0.headers["authorization"] != nil })
        #expect(search.headers["authorization"] == "Bearer key-that-must-not-leak")
        #expect(search.query["latitude"] == "52.5219" && search.query["sort_by"] == "distance")
        let overpass = try #require(requests.first { $0.path == "/api/interpreter" })
        #expect(overpass.body.hasPrefix("data=%5Bout%3Ajson%5D"))
        #expect(overpass.headers["user-agent"]?.hasPrefix("suite-places/") == true)
        #expect(overpass.headers["content-type"] == "application/x-www-form-urlencoded")
        // A refused key: one clear line, the key never shown, the store unchanged.
        await server.script.set("/v3/businesses/search", [.init(status: 401, body: "{\"error\": {\"code\": \"TOKEN_INVALID\", \"description\": \"bad\"}}")])
        let before = try suite.dump("places.sqlite")
        let refused = try await suite.runAsync(["places", "fetch", "--provider", "yelp", "--yelp-url", base + "/v3"])
        expectFailure(refused, status: 69, "Yelp refused the API key (TOKEN_INVALID)")
        #expect(!refused.stderr.contains("key-that-must-not-leak"))
        #expect(try suite.dump("places.sqlite") == before)
        await server.script.set("/v3/businesses/search", [.init(status: 200, body: "garbage")])
        expectFailure(try await suite.runAsync(["places", "fetch", "--provider", "yelp", "--yelp-url", base + "/v3"]), status: 69, "Yelp is unavailable")
        await server.script.set("/v3/businesses/search", [.init(status: 429, body: "{}", headers: ["Retry-After": "0"])])
        expectFailure(try await suite.runAsync(["places", "fetch", "--provider", "yelp", "--yelp-url", base + "/v3"]), status: 75, "rate limiting")
        #expect(try suite.dump("places.sqlite") == before)
        // An answer slower than --timeout: libcurl gives up, one line, nothing stored.
        await server.script.set("/api/interpreter", [.init(status: 200, body: "{\"elements\": []}", delay: 5)])
        expectFailure(try await suite.runAsync(["places", "fetch", "--provider", "osm", "--overpass-url", base + "/api", "--timeout", "1"]),
                      status: 69, "no answer within 1 s")
        #expect(try suite.dump("places.sqlite") == before)
        let stored = try await suite.runAsync(["places", "export", "--format", "geojson"]).stdout
        #expect(!stored.contains("key-that-must-not-leak"))
        let storeBytes = try Data(contentsOf: suite.storeFolder.appendingPathComponent("places.sqlite"))
        #expect(storeBytes.range(of: Data("key-that-must-not-leak".utf8)) == nil)
    }
}

@Suite struct PlaceBadInputTests {
    static let cases: [(String, [String], Data, Int32, String)] = [
        ("rating -1", ["places", "rate", "1", "--noise=-1"], Data(), 65, "invalid noise rating '-1'"),
        ("rating 6", ["places", "rate", "1", "--wifi", "6"], Data(), 65, "invalid wifi rating '6'"),
        ("rating 2.5", ["places", "rate", "1", "--outlets", "2.5"], Data(), 65, "use a whole number from 0 to 5"),
        ("rating abc", ["places", "rate", "1", "--cost", "abc"], Data(), 65, "invalid cost rating 'abc'"),
        ("rating NaN", ["places", "rate", "1", "--seating", "NaN"], Data(), 65, "invalid seating rating 'NaN'"),
        ("wifi speed garbage", ["places", "rate", "1", "--wifi-mbps", "fast"], Data(), 65, "invalid --wifi-mbps"),
        ("unknown pin colour", ["places", "rate", "1", "--pin", "pink"], Data(), 64, "pink"),
        ("unknown place", ["places", "rate", "99", "--wifi", "3"], Data(), 1, "no place 99"),
        ("unknown place to show", ["places", "show", "99"], Data(), 1, "no place 99"),
        ("latitude out of range", ["places", "near", "--at", "91,13"], Data(), 65, "latitude must be"),
        ("malformed coordinates", ["places", "near", "--at", "north"], Data(), 65, "is not LAT,LON"),
        ("bad radius", ["places", "near", "--radius", "far"], Data(), 64, "is not a distance"),
        ("negative radius", ["places", "near", "--radius=-5m"], Data(), 64, "is not a distance"),
        ("bad limit", ["places", "near", "--limit", "0"], Data(), 64, "the limit must be 1 to 10000"),
        ("bad minimum", ["places", "near", "--min", "wifi=9"], Data(), 65, "invalid wifi rating '9'"),
        ("unknown dimension", ["places", "near", "--min", "coffee=3"], Data(), 64, "invalid --min"),
        ("unknown type", ["places", "near", "--type", "spaceport"], Data(), 64, "unknown type 'spaceport'"),
        ("location out of range", ["places", "location", "set", "100,200"], Data(), 65, "latitude must be"),
        ("empty name", ["places", "add", "--name", " ", "--at", "52.5,13.4"], Data(), 65, "the place name is empty"),
        ("control characters", ["places", "add", "--name", "a\u{1B}b", "--at", "52.5,13.4"], Data(), 65, "control character"),
        ("malformed geojson", ["places", "import", "-"], Data("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"properties\": {\"name\": \"x\"}}]}".utf8), 65, "no geometry"),
        ("swapped coordinates", ["places", "import", "-"], Data("{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [52.52, 130.4]}, \"properties\": {\"name\": \"x\"}}".utf8), 65, "longitude first"),
        ("not json", ["places", "import", "-"], Data("hello".utf8), 65, "not a JSON object"),
        ("10 MB of garbage", ["places", "import", "-"], Data(repeating: UInt8(ascii: "{"), count: 10_000_000), 65, "not a JSON object"),
        ("invalid UTF-8", ["places", "import", "-"], Data([0xFF, 0x7B]), 65, "not valid UTF-8"),
        ("missing file", ["places", "import", "/nonexistent.geojson"], Data(), 66, "no such file"),
        ("unreachable provider", ["places", "fetch", "--provider", "osm", "--overpass-url", "http://127.0.0.1:9", "--timeout", "2"], Data(), 69, "is unavailable"),
        ("bad provider URL", ["places", "fetch", "--provider", "osm", "--overpass-url", "ftp://x"], Data(), 64, "is not an http(s) URL"),
        ("output is a folder", ["places", "export", "-o", "/tmp"], Data(), 74, "it is a folder"),
    ]

    @Test(arguments: cases.indices)
    func badInputGivesOneClearLineAndChangesNothing(index: Int) throws {
        let (name, arguments, stdin, status, message) = Self.cases[index]
        let suite = try Suite()
        try suite.run("places", "location", "set", "52.52,13.405")
        try suite.run("places", "import", placesFixture)
        let before = try suite.dump("places.sqlite")
        let result = try suite.run(arguments, stdin: stdin)
        expectFailure(result, status: status, message)
        #expect(try suite.dump("places.sqlite") == before, "\(name) changed the store")
    }
}

/// `places add --address`: the place found brings its name, kind, hours and contact details;
/// what the user gives wins. The spinner never writes when stderr is not a terminal.
@Suite struct PlaceAddressLookupTests {
    static let cafe = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/places/nominatim-cafe.json").standardizedFileURL

    @Test func addByAddressFillsInWhatTheLookupFound() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/search", [.init(status: 200, body: try String(contentsOf: Self.cafe, encoding: .utf8))])
        let suite = try Suite()
        let base = server.baseURL.absoluteString
        let added = try await suite.runAsync(["places", "add", "--address", "Oranienstraße 12, Berlin", "--nominatim-url", base])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasPrefix("Added #1 Café Blau at 52.501053,13.419038."))
        #expect(added.stdout.contains("From the lookup: hours, phone, website"))
        #expect(added.stderr.isEmpty, "no spinner when stderr is not a terminal: \(added.stderr)")
        let show = try suite.run("places", "show", "1", "--json")
        let place = try JSONDecoder().decode(JSONValue.self, from: Data(show.stdout.utf8))
        #expect(place["place"]?["type"]?.string == "coffee-shop" || place["type"]?.string == "coffee-shop", "\(show.stdout)")
        #expect(show.stdout.contains("Mo-Fr 08:00-18:00; Sa 10:00-16:00"))
        #expect(show.stdout.contains("+49 30 1234567"))
        #expect(show.stdout.contains("https://cafe-blau.example"))
        // What the user says wins over the lookup.
        let mine = try await suite.runAsync(["places", "add", "--address", "Oranienstraße 12, Berlin", "--nominatim-url", base,
                                             "--name", "Blau (upstairs)", "--type", "coworking", "--hours", "Mo-Su 09:00-17:00"])
        #expect(mine.status == 0, "\(mine.stderr)")
        #expect(mine.stdout.contains("From the lookup: phone, website"))
        let second = try suite.run("places", "show", "2")
        #expect(second.stdout.contains("Blau (upstairs)"))
        #expect(second.stdout.contains("Mo-Su 09:00-17:00"))
        #expect(!second.stdout.contains("Sa 10:00-16:00"))
        // --at still needs a name.
        expectFailure(try suite.run("places", "add", "--at", "52.5,13.4"), status: 64, "give --name with --at")
        // Yelp without a key: exit 69, nothing asked, nothing added.
        let yelp = try await suite.runAsync(["places", "add", "--address", "Oranienstraße 12, Berlin", "--provider", "yelp", "--yelp-url", base + "/v3"])
        #expect(yelp.status == 69, "\(yelp.stderr)")
        #expect(try suite.run("places", "list", "--json").stdout.components(separatedBy: "\"id\"").count - 1 >= 2)
    }

    @Test func theSpinnerLineShowsAFrameTheMessageAndTheSeconds() {
        #expect(Spinner.line(tick: 0, message: "Asking Yelp…", elapsed: 1.25) == "\r⠋ Asking Yelp… 1.2 s\u{1B}[K" ||
                Spinner.line(tick: 0, message: "Asking Yelp…", elapsed: 1.25) == "\r⠋ Asking Yelp… 1.3 s\u{1B}[K")
        #expect(Spinner.line(tick: 11, message: "x", elapsed: 0).hasPrefix("\r⠙ x 0.0 s"))
        // Text from a provider cannot break the line or move the cursor.
        #expect(!Spinner.line(tick: 0, message: "evil\n\u{1B}[2Jtext", elapsed: 0).dropLast(3).contains("\n"))
        #expect(Spinner.line(tick: 0, message: "evil\u{1B}[2J", elapsed: 0).components(separatedBy: "\u{1B}").count == 2)
    }
}

/// `places near` that finds nothing says why: nothing stored, nothing within the radius, or which
/// filter leaves none.
@Suite struct PlaceNothingFoundTests {
    @Test func nearSaysWhichFilterExcludedEveryPlace() async throws {
        let suite = try Suite()
        let empty = try await suite.runProcessAsync(["places", "near", "--at", "52.52,13.40"])
        #expect(empty.status == 0)
        #expect(empty.stdout == "No places stored yet. Fetch some: suite places fetch --provider osm\n", "\(empty.stdout)")
        #expect(try suite.run("places", "add", "--name", "Reading room", "--at", "52.5163,13.3777", "--type", "library").status == 0)
        #expect(try suite.run("places", "add", "--name", "Loud café", "--at", "52.5170,13.3780", "--type", "coffee-shop").status == 0)
        #expect(try suite.run("places", "rate", "2", "--noise", "4").status == 0)

        let far = try await suite.runProcessAsync(["places", "near", "--at", "48.85,2.35", "--radius", "2km"])
        #expect(far.stdout.hasPrefix("No places within 2km of "), "\(far.stdout)")
        #expect(far.stdout.contains("widen --radius or use --anywhere"))

        let type = try await suite.runProcessAsync(["places", "near", "--at", "52.5163,13.3777", "--type", "coworking"])
        #expect(type.stdout == "No places match: 2 places within 1.5km, but none is a coworking (--type)\n", "\(type.stdout)")
        let quiet = try await suite.runProcessAsync(["places", "near", "--at", "52.5163,13.3777", "--max", "noise=2"])
        #expect(quiet.stdout == "No places match: 2 places within 1.5km, but none has those ratings (--max noise=2; 1 of them rated at all)\n", "\(quiet.stdout)")
        let both = try await suite.runProcessAsync(["places", "near", "--at", "52.5163,13.3777", "--type", "library", "--max", "noise=5"])
        #expect(both.stdout.hasPrefix("No places match all the filters together: 2 places within 1.5km"), "\(both.stdout)")
    }

    @Test func reimportingAnUnchangedFileSaysNothingChanged() async throws {
        let suite = try Suite()
        #expect(try suite.run("places", "add", "--name", "Reading room", "--at", "52.5163,13.3777", "--type", "library").status == 0)
        #expect(try suite.run("places", "rate", "1", "--noise", "1", "--wifi", "4").status == 0)
        let file = suite.path("places.geojson")
        #expect(try suite.run("places", "export", "--format", "geojson", "-o", file).status == 0)
        let before = try suite.dump("places.sqlite")
        let again = try await suite.runProcessAsync(["places", "import", file])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "Imported 0 new and 0 updated places (1 unchanged).\n", "\(again.stdout)")
        #expect(try suite.dump("places.sqlite") == before)
    }
}
