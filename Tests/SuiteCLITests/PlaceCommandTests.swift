import Foundation
import SuiteTestSupport
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
