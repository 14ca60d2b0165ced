import Foundation
import SuiteTestSupport
import Testing

/// Outside programs the places tests talk to: Python (its `csv` and `zlib` are in the standard
/// library) and `rsvg-convert` (Debian's `librsvg2-bin`), which CI installs.
enum PlaceTools {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    static func executable(_ candidates: [String]) -> String? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func onPath(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        return executable(folders.map { $0 + "/" + name })
    }

    static let python = executable([root.appendingPathComponent(".build/ci-venv/bin/python").path]) ?? onPath("python3")
    static let rsvg = onPath("rsvg-convert")
    /// In CI the renderer must be there; elsewhere the PNG test is skipped (visibly) without it.
    static let canRender = (rsvg != nil && python != nil) || ProcessInfo.processInfo.environment["CI"] != nil

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("place-tools-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out"), err = folder.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
        defer { try? outHandle.close(); try? errHandle.close() }
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: out), as: UTF8.self),
                String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// Python's `csv` reading a file: every row as a list of cells.
    static func csvRows(_ path: String) throws -> [[String]] {
        let python = try #require(python, "no python3")
        let script = "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding='utf-8') as f:\n    json.dump(list(csv.reader(f)), sys.stdout)"
        let result = try run(python, ["-c", script, path])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([[String]].self, from: Data(result.stdout.utf8))
    }

    /// A PNG's size and the RGBA of every pixel, decoded by Python's `zlib` (no imaging library).
    static func pixels(_ path: String) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        let python = try #require(python, "no python3")
        let script = """
            import json, struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'not a PNG'
            pos, idat = 8, b''
            while pos < len(data):
                length, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + length]
                if kind == b'IHDR':
                    width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
                    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
                elif kind == b'IDAT':
                    idat += body
                pos += 12 + length
            channels = 4 if colour == 6 else 3
            raw, stride, out, prev = zlib.decompress(idat), width * channels, bytearray(), bytearray(width * channels)
            for y in range(height):
                kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
                for i in range(stride):
                    a = line[i - channels] if i >= channels else 0
                    b, c = prev[i], (prev[i - channels] if i >= channels else 0)
                    if kind == 1: line[i] = (line[i] + a) & 255
                    elif kind == 2: line[i] = (line[i] + b) & 255
                    elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
                    elif kind == 4:
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                for x in range(width):
                    px = line[x * channels:(x + 1) * channels]
                    out += px if channels == 4 else px + b'\\xff'
                prev = line
            sys.stdout.write(json.dumps([width, height]) + '\\n')
            sys.stdout.buffer.write(bytes(out).hex().encode())
            """
        let result = try run(python, ["-c", script, path])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", maxSplits: 1).map(String.init)
        let size = try JSONDecoder().decode([Int].self, from: Data(lines[0].utf8))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines[1].utf8.count / 2)
        var high: UInt8?
        for character in lines[1].utf8 {
            let nibble = character <= 57 ? character - 48 : character - 87
            if let first = high { bytes.append(first << 4 | nibble); high = nil } else { high = nibble }
        }
        return (size[0], size[1], bytes)
    }
}

/// Issue 15, "Places": negative coordinates, CSV numbers, quiet places, the score, GeoJSON
/// types, empty ratings and the map.
@Suite(.serialized) struct PlaceIssueTests {
    /// Places south of the equator and west of Greenwich: Sydney, Buenos Aires, Lima.
    static let southAndWest = #"""
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [151.2153, -33.8568]},
           "properties": {"name": "Opera Bar", "amenity": "bar", "origin": "osm", "provider_id": "node/1"}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-58.3788, -34.6087]},
           "properties": {"name": "Café Tortoni", "type": "café", "origin": "osm", "provider_id": "node/2"}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-77.0282, -12.0464]},
           "properties": {"name": "Biblioteca Nacional", "amenity": "library", "origin": "osm", "provider_id": "node/3"}}
        ]}
        """#

    // MARK: - 1. Negative coordinates and numbers

    /// Every command that takes a coordinate takes a southern or western one, with and without
    /// the fast path; before, each failed with "Missing value".
    @Test func southernAndWesternCoordinatesWorkInEveryCommandThatTakesOne() async throws {
        let suite = try Suite()
        let located = try suite.run("places", "location", "set", "-33.8688,151.2093")
        #expect(located.status == 0, "\(located.stderr)")
        #expect(located.stdout.contains("-33.868800,151.209300"))
        #expect(try suite.run("places", "location", "set", "--json", "-34.6037,-58.3816").status == 0)
        #expect(try suite.run("places", "location").stdout.hasPrefix("-34.603700,-58.381600"))
        #expect(try suite.run(["places", "import", "-"], stdin: Data(Self.southAndWest.utf8)).status == 0)
        let added = try suite.run("places", "add", "--name", "Reading room", "--at", "-33.8665,151.2128", "--type", "library")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("-33.866500,151.212800"))
        #expect(try suite.run("places", "add", "--at", "-22.9068,-43.1729", "--name", "Rio desk").status == 0)
        for fastPath in ["0", "1"] {
            let near = try suite.run(["places", "near", "--at", "-33.87,151.21", "--radius", "2km", "--json"], environment: ["SUITE_NO_FAST_PATH": fastPath])
            #expect(near.status == 0, "\(near.stderr)")
            let names = try JSONDecoder().decode([JSONValue].self, from: Data(near.stdout.utf8)).compactMap { $0["place"]?["name"]?.string }
            #expect(names == ["Reading room", "Opera Bar"])
            let west = try suite.run(["places", "near", "--at", "-34.6087,-58.3788", "--limit", "1"], environment: ["SUITE_NO_FAST_PATH": fastPath])
            #expect(west.stdout.hasPrefix("#2  Café Tortoni  (coffee-shop)  0 m"), "\(west.stdout)\(west.stderr)")
        }
        let map = try suite.run("places", "map", "--at", "-12.0464,-77.0282", "--radius", "500m")
        #expect(map.status == 0 && map.stdout.contains("Biblioteca Nacional"), "\(map.stderr)")
        // fetch --at: the Overpass query is asked around the southern, western point.
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/api/interpreter", [.init(status: 200, body: #"{"elements": [{"type": "node", "id": 9, "lat": -12.05, "lon": -77.03, "tags": {"amenity": "cafe", "name": "Lima café"}}]}"#)])
        let fetched = try await suite.runAsync(["places", "fetch", "--provider", "osm", "--at", "-12.0464,-77.0282", "--radius", "1km",
                                                "--overpass-url", server.baseURL.absoluteString + "/api", "--timeout", "10"])
        #expect(fetched.status == 0 && fetched.stdout.contains("1 new"), "\(fetched.stderr)")
        let query = try #require(await server.script.requests.first { $0.path == "/api/interpreter" })
        #expect(query.body.contains("-12.0464%2C-77.0282"), "\(query.body)")
    }

    /// A number that starts with '-' reaches the command's own check (its range, "no place")
    /// instead of ArgumentParser's "Missing value", in every app.
    static let signedNumbers: [([String], Int32, String)] = [
        (["places", "near", "--limit", "-1"], 64, "the limit must be 1 to 10000"),
        (["places", "near", "--radius", "-5m"], 64, "is not a distance"),
        (["places", "map", "--limit", "-1"], 64, "--limit must be 1 to 10000"),
        (["places", "fetch", "--hours", "-1"], 64, "--hours must be 0 to 240"),
        (["places", "fetch", "--timeout", "-1"], 64, "--timeout must be a number of seconds"),
        (["places", "rate", "1", "--noise", "-1"], 65, "invalid noise rating '-1'"),
        (["places", "rate", "1", "--wifi-mbps", "-5"], 65, "invalid --wifi-mbps '-5'"),
        (["places", "rate", "-1", "--wifi", "3"], 1, "no place -1"),
        (["places", "show", "-1"], 1, "no place -1"),
        (["places", "remove", "-1"], 1, "no place -1"),
        (["places", "location", "set", "-91,0"], 65, "latitude must be"),
        (["places", "show", "--bogus"], 64, "Unknown option '--bogus'"),
        (["quotes", "search", "love", "--limit", "-1"], 64, "--limit must be 1 to"),
        (["quotes", "schedule", "next", "--count", "-1"], 64, "--count must be 1 to 500"),
        (["bmm", "restore", "vp", "--version", "-1"], 64, "--version must be 1 or more"),
        (["bundle", "due", "--within", "-1d"], 64, "invalid duration '-1d'"),
        (["bundle", "add", "x", "--before", "go out", "--deadline", "-2026-01-01"], 65, "invalid deadline '-2026-01-01'"),
    ]

    @Test(arguments: signedNumbers.indices)
    func numbersThatStartWithAMinusReachTheirCommand(index: Int) throws {
        let (arguments, status, message) = Self.signedNumbers[index]
        let suite = try Suite()
        try suite.run("places", "location", "set", "-33.8688,151.2093")
        try suite.run(["places", "import", "-"], stdin: Data(Self.southAndWest.utf8))
        let before = try suite.dump("places.sqlite")
        let result = try suite.run(arguments)
        expectFailure(result, status: status, message)
        #expect(!result.stderr.contains("Missing value"))
        #expect(try suite.dump("places.sqlite") == before)
    }

    // MARK: - 2. CSV numbers

    /// Python's csv reads the exported longitudes west of Greenwich as the numbers they are.
    @Test func csvExportKeepsWesternLongitudesAsNumbersForPythonsCSV() throws {
        let suite = try Suite()
        #expect(try suite.run(["places", "import", "-"], stdin: Data(Self.southAndWest.utf8)).status == 0)
        let file = suite.path("places.csv")
        #expect(try suite.run("places", "export", "--format", "csv", "-o", file).status == 0)
        let rows = try PlaceTools.csvRows(file)
        let header = try #require(rows.first)
        let latitude = try #require(header.firstIndex(of: "latitude")), longitude = try #require(header.firstIndex(of: "longitude"))
        let cells = rows.dropFirst().map { ($0[1], $0[latitude], $0[longitude]) }
        #expect(cells.map(\.0) == ["Opera Bar", "Café Tortoni", "Biblioteca Nacional"])
        #expect(cells.map(\.1) == ["-33.8568", "-34.6087", "-12.0464"])
        #expect(cells.map(\.2) == ["151.2153", "-58.3788", "-77.0282"])
        #expect(cells.compactMap { Double($0.2) } == [151.2153, -58.3788, -77.0282])
    }

    // MARK: - 3. Quiet places

    static let rated = #"""
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.1276, 51.5072]},
           "properties": {"name": "Quiet library", "type": "library", "rating": {"noise": 1, "cost": 0, "wifi": 3}}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.1270, 51.5075]},
           "properties": {"name": "Loud café", "type": "cafe", "rating": {"noise": 4, "cost": 2, "wifi": 5}}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.1280, 51.5070]},
           "properties": {"name": "Pricey lounge", "type": "coworking", "rating": {"noise": 2, "cost": 5}}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.1279, 51.5071]},
           "properties": {"name": "Unrated", "type": "cafe"}}
        ]}
        """#

    @Test func maxFindsQuietAndCheapPlacesAndHelpSaysWhichWayEachScaleRuns() throws {
        let suite = try Suite()
        try suite.run("places", "location", "set", "51.5072,-0.1276")
        #expect(try suite.run(["places", "import", "-"], stdin: Data(Self.rated.utf8)).status == 0)
        func names(_ arguments: [String]) throws -> [String] {
            var answers: [[String]] = []
            for fastPath in ["0", "1"] {
                let result = try suite.run(["places", "near", "--json"] + arguments, environment: ["SUITE_NO_FAST_PATH": fastPath])
                #expect(result.status == 0, "\(result.stderr)")
                answers.append(try JSONDecoder().decode([JSONValue].self, from: Data(result.stdout.utf8)).compactMap { $0["place"]?["name"]?.string })
            }
            #expect(answers[0] == answers[1])
            return answers[0]
        }
        #expect(try names(["--max", "noise=2"]) == ["Quiet library", "Pricey lounge"])
        #expect(try names(["--max", "noise=2,cost=2"]) == ["Quiet library"])
        #expect(try names(["--min", "noise=4"]) == ["Loud café"])
        #expect(try names(["--min", "wifi=3", "--max", "noise=3"]) == ["Quiet library"])
        expectFailure(try suite.run("places", "near", "--max", "noise=9"), status: 65, "invalid noise rating '9'")
        expectFailure(try suite.run("places", "near", "--max", "volume=1"), status: 64, "invalid --max 'volume=1'")
        let help = try suite.run("places", "near", "--help").stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("Lower is better for noise (0 silent … 5 loud) and cost (0 cheap … 5 expensive)"))
        #expect(help.contains("--max <pairs>"))
        #expect(help.contains("Higher is better for outlets, wifi and seating"))
    }

    // MARK: - 4. The score

    @Test func aWellRatedPlaceOutranksAnUnratedOneAndTheScoreIsShownAndExplained() throws {
        let suite = try Suite()
        try suite.run("places", "location", "set", "-33.8688,151.2093")
        let places = #"""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [151.2093, -33.8693]}, "properties": {"name": "Unrated café", "type": "cafe"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [151.2093, -33.8701]}, "properties": {"name": "Good café", "type": "cafe"}}
            ]}
            """#
        #expect(try suite.run(["places", "import", "-"], stdin: Data(places.utf8)).status == 0)
        #expect(try suite.run("places", "rate", "2", "--wifi", "5", "--outlets", "5", "--seating", "4").status == 0)
        let ranked = try suite.run("places", "near", "--sort", "score")
        let lines = ranked.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("#2  Good café  (coffee-shop)  145 m  score 0.76 (quality 3.8)") == true, "\(ranked.stdout)")
        #expect(lines.last?.contains("score 0.50 (quality 2.5, unrated)") == true, "\(ranked.stdout)")
        #expect(!(try suite.run("places", "near")).stdout.contains("score"))
        let show = try suite.run("places", "show", "2").stdout
        #expect(show.contains("quality:  3.80 of 5 = 3/(3+2)·4.67 + 2/(3+2)·2.5"), "\(show)")
        #expect(try suite.run("places", "show", "1").stdout.contains("quality:  2.5 of 5 (unrated: counts as 2.5"))
        let help = try suite.run("places", "near", "--help").stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("WR = v/(v+2)·R + 2/(v+2)·2.5"), "\(help)")
        #expect(try suite.run("places", "show", "--help").stdout.contains("exp(−max(0, d"))
    }

    // MARK: - 5. GeoJSON types and contradictions

    @Test func geoJSONImportReadsOSMTagsAndSynonymsAndWarnsOnUnknownTypes() throws {
        let suite = try Suite()
        let file = #"""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.1, 51.5]}, "properties": {"name": "A", "amenity": "cafe"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.2, 51.5]}, "properties": {"name": "B", "type": "cafe"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.3, 51.5]}, "properties": {"name": "C", "office": "coworking"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.4, 51.5]}, "properties": {"name": "D", "amenity": "coworking_space"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.5, 51.5]}, "properties": {"name": "E", "type": "Café"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.6, 51.5]}, "properties": {"name": "F", "amenity": "library"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.7, 51.5]}, "properties": {"name": "Launch pad", "type": "spaceport"}}
            ]}
            """#
        let result = try suite.run(["places", "import", "-"], stdin: Data(file.utf8))
        #expect(result.status == 0)
        #expect(result.stdout == "Imported 7 new and 0 updated places.\n")
        #expect(result.errorLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("suite: warning: feature 7 'Launch pad': unknown type 'spaceport', stored as other"), "\(result.stderr)")
        let exported = try suite.run("places", "export", "--format", "csv").stdout
        let types = exported.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[2] }
        #expect(types == ["coffee-shop", "coffee-shop", "coworking", "coworking", "coffee-shop", "library", "other"])
    }

    @Test func twoFeaturesWithOneProviderIDAreRefusedNamingBoth() throws {
        let suite = try Suite()
        #expect(try suite.run(["places", "import", "-"], stdin: Data(Self.southAndWest.utf8)).status == 0)
        let before = try suite.dump("places.sqlite")
        let file = #"""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "id": 7, "geometry": {"type": "Point", "coordinates": [-0.1, 51.5]}, "properties": {"name": "First"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.2, 51.5]}, "properties": {"name": "Other"}},
              {"type": "Feature", "id": "7", "geometry": {"type": "Point", "coordinates": [-0.3, 51.5]}, "properties": {"name": "Second"}}
            ]}
            """#
        let path = suite.path("twice.geojson")
        try Data(file.utf8).write(to: URL(fileURLWithPath: path))
        expectFailure(try suite.run("places", "import", path), status: 65,
                      "twice.geojson: features 1 'First' and 3 'Second' have the same provider id 'geojson:7'; nothing was imported")
        #expect(try suite.dump("places.sqlite") == before)
    }

    // MARK: - 6. An empty rating

    @Test func rateWithNoValuesIsRefusedAndChangesNothing() throws {
        let suite = try Suite()
        #expect(try suite.run(["places", "import", "-"], stdin: Data(Self.southAndWest.utf8)).status == 0)
        let before = try suite.dump("places.sqlite")
        expectFailure(try suite.run("places", "rate", "1"), status: 64, "nothing to rate: give at least one of --noise")
        #expect(try suite.dump("places.sqlite") == before)
        #expect(try suite.run("places", "show", "1").stdout.contains("pin:      red"))
        #expect(try suite.run("places", "rate", "1", "--pin", "green").status == 0)
    }

    // MARK: - 7. The map

    /// Places around the Sydney Opera House: a crowded cluster, long names, OpenStreetMap and
    /// imported places, rated ones and a chosen colour.
    static func crowdedSydney() -> String {
        var features: [String] = []
        func feature(_ name: String, _ lat: Double, _ lon: Double, _ extra: String) {
            features.append(#"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [\#(lon), \#(lat)]}, "properties": {"name": "\#(name)"\#(extra)}}"#)
        }
        let cluster = ["Single O", "Reuben Hills", "Mecca", "Bourke St Bakery", "Paramount Coffee Project", "Edition", "Gumption", "Artificer"]
        for (index, name) in cluster.enumerated() {
            feature(name, -33.8700 + Double(index % 3) * 0.0002, 151.2090 + Double(index / 3) * 0.0002,
                    #", "amenity": "cafe", "origin": "osm", "provider_id": "node/\#(index + 1)""#)
        }
        feature("State Library of New South Wales — Mitchell Reading Room", -33.8665, 151.2130, #", "amenity": "library", "origin": "osm", "provider_id": "way/1""#)
        feature("Customs House Library", -33.8617, 151.2108, #", "type": "library""#)
        feature("Tank Stream Labs coworking", -33.8650, 151.2080, #", "office": "coworking""#)
        feature("Barangaroo desk", -33.8610, 151.2020, #", "type": "coworking""#)
        feature("Hyde Park kiosk", -33.8735, 151.2110, #", "type": "cafe", "rating": {"wifi": 2, "noise": 3}"#)
        feature("Darling Square study hall", -33.8745, 151.2040, #", "type": "library", "rating": {"wifi": 5, "outlets": 5, "seating": 4, "pin_color": "green"}"#)
        feature("Circular Quay espresso cart", -33.8615, 151.2110, #", "type": "cafe""#)
        feature("The Rocks reading nook", -33.8590, 151.2080, #", "type": "library", "saved": true"#)
        return #"{"type": "FeatureCollection", "features": ["# + features.joined(separator: ",\n") + "]}"
    }

    @Test(.enabled(if: PlaceTools.canRender, "rsvg-convert (Debian: librsvg2-bin) or python3 is missing"))
    func theMapHasALegendReadableLabelsADistinctMarkerAndTruthfulAttributionAndRendersToPNG() throws {
        let suite = try Suite()
        try suite.run("places", "location", "set", "-33.8688,151.2093")
        #expect(try suite.run(["places", "import", "-"], stdin: Data(Self.crowdedSydney().utf8)).status == 0)
        #expect(try suite.run("places", "rate", "2", "--wifi", "4", "--noise", "2").status == 0)
        let svgPath = suite.path("map.svg"), pngPath = suite.path("map.png")
        let drawn = try suite.run("places", "map", "--radius", "1km", "-o", svgPath)
        #expect(drawn.status == 0 && drawn.stdout.contains("with 14 places"), "\(drawn.stdout)\(drawn.stderr)")
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        // Legend, numbered key for the crowded pins, truthful attribution.
        for text in [">not rated yet<", ">rated by you<", ">your colour<", ">you are here<", ">Numbered pins<", "Place data © OpenStreetMap contributors (ODbL)"] {
            #expect(svg.contains(text), "\(text)")
        }
        #expect(!svg.contains("Yelp"))
        // The marker is drawn under the pins, in no pin's colour.
        let marker = try #require(svg.range(of: "<g class=\"you\">")), firstPin = try #require(svg.range(of: "<g class=\"pin\""))
        #expect(marker.lowerBound < firstPin.lowerBound)
        #expect(!svg[marker.lowerBound...].prefix(400).contains("#1d6fd8"))  // the blue pin's colour
        // Every pin has either a label or a number; labels stay inside the picture.
        let labels = svg.components(separatedBy: "<text class=\"label\"").count - 1
        let numbers = svg.components(separatedBy: "<text class=\"number\"").count - 1
        #expect(labels + numbers == 14 && numbers > 0 && labels >= 8, "labels \(labels), numbers \(numbers)")
        // A name too long for a label is in the key in full (wrapped over lines).
        let unwrapped = svg.replacingOccurrences(of: #"</tspan><tspan x="[0-9.]+" dy="14">"#, with: "", options: .regularExpression)
        #expect(unwrapped.contains(">State Library of New South Wales — Mitchell Reading Room</tspan>"))
        for match in svg.matches(of: /<text class="label" x="([0-9.]+)" y="([0-9.]+)"/) {
            #expect((0...800).contains(Double(match.1) ?? -1) && (0...800).contains(Double(match.2) ?? -1))
        }
        // Rendered by librsvg: the legend under the map is drawn, with a red and a blue pin.
        let rsvg = try #require(PlaceTools.rsvg, "rsvg-convert is missing: apt-get install librsvg2-bin")
        let rendered = try PlaceTools.run(rsvg, ["-o", pngPath, svgPath])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let image = try PlaceTools.pixels(pngPath)
        #expect(image.width == 800 && image.height > 860, "\(image.width)×\(image.height)")
        func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
            let offset = (y * image.width + x) * 4
            return (Int(image.rgba[offset]), Int(image.rgba[offset + 1]), Int(image.rgba[offset + 2]))
        }
        var inked = 0, red = 0, blue = 0
        for y in 806..<850 { for x in 8..<420 {
            let p = pixel(x, y)
            if p.r < 235 || p.g < 235 || p.b < 235 { inked += 1 }
            if p.r > 180 && p.g < 80 && p.b < 80 { red += 1 }
            if p.r < 80 && p.g > 80 && p.g < 140 && p.b > 180 { blue += 1 }
        } }
        #expect(inked > 500 && red > 40 && blue > 40, "legend pixels: \(inked) inked, \(red) red, \(blue) blue")
        let centre = pixel(400, 400)
        #expect(centre.r < 60 && centre.g < 60 && centre.b < 60, "the marker's centre is \(centre)")
        // A map of your own places names no provider.
        let own = try Suite()
        try own.run("places", "add", "--name", "Desk", "--at", "-33.87,151.21")
        let ownMap = try own.run("places", "map", "--at", "-33.8688,151.2093").stdout
        #expect(ownMap.contains(">Desk<") && !ownMap.contains("OpenStreetMap") && !ownMap.contains("Yelp"))
    }
}
