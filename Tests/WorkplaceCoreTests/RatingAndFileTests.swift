import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import WorkplaceCore

@Suite struct RatingTests {
    @Test(arguments: ["-1", "6", "2.5", "abc", "NaN", "", " 7 ", "1e1", "0x3"])
    func valuesOutsideZeroToFiveAreRefusedWithTheDimension(text: String) {
        #expect(throws: WorkplaceError.invalidRating(dimension: "wifi", value: text)) { try Rating.value(text, for: .wifi) }
    }

    @Test func ratingNeverChangesProviderDataAndPinsFollowTheRules() throws {
        let store = try freshPlaceStore()
        try store.upsert([PlaceRecord(name: "Kaffee", type: .coffeeShop, coordinate: berlin, address: "Hauptstraße 5", origin: .yelp, providerID: "abc")])
        let place = try #require(try store.allPlaces().first)
        #expect(place.pinColor == .red)
        #expect(place.pinState == .system)
        let rated = try store.rate(place.id, RatingChange(values: [.noise: 2, .outlets: 4], wifiMbps: 80, menu: .lunch, notes: "quiet upstairs"))
        #expect(rated.pinColor == .blue)
        #expect(rated.name == "Kaffee" && rated.address == "Hauptstraße 5" && rated.origin == .yelp && rated.providerID == "abc")
        let partial = try store.rate(place.id, RatingChange(values: [.wifi: 5], pinColor: .purple))
        #expect(partial.rating?.values == [.noise: 2, .outlets: 4, .wifi: 5])
        #expect(partial.rating?.menu == .lunch)
        #expect(partial.pinColor == .purple)
        #expect(throws: WorkplaceError.invalidRating(dimension: "cost", value: "9")) { try store.rate(place.id, RatingChange(values: [.cost: 9])) }
        #expect(throws: WorkplaceError.invalidRating(dimension: "wifi-mbps", value: "nan")) { try store.rate(place.id, RatingChange(wifiMbps: .nan)) }
        #expect(try store.place(place.id).rating?.values == [.noise: 2, .outlets: 4, .wifi: 5])
        #expect(throws: WorkplaceError.placeNotFound(99)) { try store.rate(99, RatingChange(values: [.wifi: 1])) }
    }

    @Test func userPlacesAreBlueFromTheStart() throws {
        let store = try freshPlaceStore()
        let place = try store.add(PlaceRecord(name: "Reading room", type: .library, coordinate: berlin, origin: .user))
        #expect(place.pinColor == .blue)
        #expect(place.origin == .user)
        #expect(throws: WorkplaceError.invalidText(InvalidText(field: .placeName, problem: .empty))) {
            try store.add(PlaceRecord(name: "  ", type: .library, coordinate: berlin, origin: .user))
        }
    }

    @Test(arguments: ["91,0", "-91,0", "0,181", "0,-180.5", "abc", "52.5", "52.5,13.4,7", "nan,1", "inf,0", ""])
    func badCoordinatesAreRefused(text: String) {
        #expect(throws: (any Error).self) { try Coordinate.parse(text) }
    }
}

@Suite struct PlaceFileTests {
    func sampleStore() throws -> PlaceStore {
        let store = try freshPlaceStore()
        try store.upsert([
            PlaceRecord(name: "Kaffee \"Eck\" & Co", type: .coffeeShop, coordinate: berlin, address: "Hauptstraße 5, Berlin", phone: "+49 30 1",
                        website: "https://k.example", openingHours: "Mo-Fr 08:00-18:00", categories: ["coffee", "cafes"], origin: .yelp, providerID: "yelp-1"),
            PlaceRecord(name: "Stadtbibliothek", type: .library, coordinate: try Coordinate(latitude: 52.521, longitude: 13.41), origin: .openStreetMap, providerID: "way/2"),
        ])
        try store.rate(1, RatingChange(values: [.wifi: 4, .noise: 1], wifiMbps: 55.5, menu: .drinksOnly, notes: "Window <seats>", pinColor: .green))
        try store.add(PlaceRecord(name: "My desk", type: .other, coordinate: try Coordinate(latitude: 52.515, longitude: 13.39), origin: .user))
        return store
    }

    /// Everything but the store-local numbers and fetch times.
    func essence(_ places: [Place]) -> [String] {
        places.map { "\($0.name)|\($0.type)|\($0.coordinate)|\($0.address ?? "")|\($0.phone ?? "")|\($0.website ?? "")|\($0.openingHours ?? "")|\($0.categories)|\($0.origin)|\($0.providerID ?? "")|\($0.pinColor)|\($0.pinState)|\($0.rating.map { "\($0.values.sorted { $0.key.rawValue < $1.key.rawValue })|\($0.wifiMbps ?? -1)|\($0.menu?.rawValue ?? "")|\($0.notes)|\($0.pinColor?.rawValue ?? "")" } ?? "-")" }.sorted()
    }

    @Test func geoJSONExportImportRoundTrip() throws {
        let source = try sampleStore()
        let data = PlaceFiles.geoJSON(try source.allPlaces())
        let target = try freshPlaceStore()
        #expect(try target.importFile(data, name: "places.geojson") == PlaceImportSummary(added: 3, updated: 0))
        #expect(essence(try target.allPlaces()) == essence(try source.allPlaces()))
        // Again: nothing to change, no duplicates, and the store is not written.
        let before = try target.allPlaces()
        #expect(try target.importFile(data, name: "places.geojson") == PlaceImportSummary(added: 0, updated: 0, unchanged: 3))
        #expect(try target.allPlaces() == before)
        // One place changed in the file: one updated.
        let changed = Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"Kaffee", with: "\"Café").utf8)
        let summary = try target.importFile(changed, name: "places.geojson")
        #expect(summary.added == 0 && summary.updated + summary.unchanged == 3 && summary.updated >= 1, "\(summary)")
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let first = (json?["features"] as? [[String: Any]])?.first
        #expect((first?["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [13.405, 52.52])
    }

    static let malformed: [(String, String)] = [
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [52.52, 193.4]}, \"properties\": {\"name\": \"x\"}}]}", "out of range"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 95]}, \"properties\": {\"name\": \"x\"}}]}", "GeoJSON puts longitude first"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"properties\": {\"name\": \"x\"}}]}", "no geometry"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"LineString\", \"coordinates\": [[0,0],[1,1]]}, \"properties\": {\"name\": \"x\"}}]}", "not a Point"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4]}, \"properties\": {\"name\": \"x\"}}]}", "[longitude, latitude]"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {}}]}", "no name"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"x\", \"rating\": {\"wifi\": 7}}}]}", "rating wifi"),
        ("{\"type\": \"Topology\"}", "not GeoJSON"),
        ("[1, 2]", "not a JSON object"),
        ("{\"elements\": [{\"type\": \"node\", \"id\": 1, \"tags\": {\"name\": \"x\"}}]}", "has no coordinates"),
        // A value Suite does not know is refused, not dropped.
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"x\", \"rating\": {\"pin_color\": \"mauve\"}}}]}", "feature 2: pin_color 'mauve' is not one of"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"x\", \"rating\": {\"menu\": \"a\\nb\"}}}]}", "feature 2: menu 'a"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"x\", \"rating\": {\"wifi_mbps\": -5}}}]}", "invalid wifi speed '-5.0': use a number of Mbit/s"),
        // Every field goes through the one text rule, and the error names the feature and field.
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"x\", \"rating\": {\"wifi\": 3, \"notes\": \"ring\\u0007\"}}}]}", "feature 2: the note holds the control character U+0007"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"x\", \"categories\": [\"cafe\\u001b[2J\"]}}]}", "feature 2: the category holds the control character U+001B"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"x\", \"provider_id\": \"osm:1\\nx\"}}]}", "feature 2: the provider id holds a line break"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"x\", \"address\": \"Main St\\u001b]0;pwned\\u0007\"}}]}", "feature 2: the address holds the control character U+001B"),
        ("{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"\(String(repeating: "n", count: 100_000))\"}}]}", "feature 2: the place name is 100000 characters long"),
    ]

    @Test(arguments: malformed.indices)
    func malformedFilesImportNothing(index: Int) throws {
        let (text, reason) = Self.malformed[index]
        let store = try sampleStore()
        let before = essence(try store.allPlaces())
        let good = "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": [13.4, 52.5]}, \"properties\": {\"name\": \"good\"}},"
        let input = text.replacingOccurrences(of: "\"features\": [", with: "\"features\": [" + good)
        #expect {
            try store.importFile(Data(input.utf8), name: "bad.geojson")
        } throws: { error in
            guard case .malformedImport(let file, let actual) = error as? WorkplaceError else { return false }
            return file == "bad.geojson" && actual.contains(reason)
        }
        #expect(essence(try store.allPlaces()) == before)
    }

    @Test func overpassJSONImports() throws {
        let store = try freshPlaceStore()
        #expect(try store.importFile(Data(overpassAnswer.utf8), name: "overpass.json").added == 3)
    }

    @Test func csvQuotesFieldsAndDefusesFormulas() throws {
        let store = try sampleStore()
        try store.rate(2, RatingChange(notes: "=HYPERLINK(\"x\")"))
        let csv = PlaceFiles.csv(try store.allPlaces())
        #expect(csv.hasPrefix("id,name,type,latitude,longitude"))
        #expect(csv.contains("\"Kaffee \"\"Eck\"\" & Co\""))
        #expect(csv.contains("\"'=HYPERLINK(\"\"x\"\")\""))
    }

    final class SVGChecker: NSObject, XMLParserDelegate, @unchecked Sendable {
        var pins: [String] = []
        var youAreHere = 0
        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            if elementName == "g", attributes["class"] == "pin", let color = attributes["data-color"] { pins.append(color) }
            if elementName == "g", attributes["class"] == "you" { youAreHere += 1 }
        }
    }

    @Test func theSVGMapIsWellFormedWithOnePinPerPlaceInItsColour() throws {
        let store = try sampleStore()
        try store.upsert([PlaceRecord(name: "<script>alert(1)</script>", type: .bar, coordinate: try Coordinate(latitude: 52.522, longitude: 13.404), origin: .openStreetMap, providerID: "node/9")])
        let places = try store.near(PlaceQuery(center: berlin, radius: 3000))
        let svg = MapRenderer.svg(places, center: berlin, radius: 3000)
        let checker = SVGChecker()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = checker
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(checker.pins.count == places.count)
        #expect(checker.pins.sorted() == places.map(\.place.pinColor.rawValue).sorted())
        #expect(Set(checker.pins) == ["green", "red", "blue"])
        #expect(checker.youAreHere == 1)
        #expect(!svg.contains("<script>"))
        #expect(svg.contains("km</text>") || svg.contains(" m</text>"))
    }
}

@Suite struct TrimmingTests {
    static let samples = [
        "", " ", "\t", "\n", "Café", " Café", "Café ", "\u{00A0}Café\u{3000}", "\u{2028}", "\u{200B}Zero width",
        "Tab\tinside", "\r\nLines\r\n", "\u{0085}next line", "  \t ", "\u{1680}ogham", "a",
    ]

    @Test(arguments: samples)
    func theFastTrimsAgreeWithFoundation(_ text: String) {
        #expect(text.trimmedOfWhitespace == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(text.isBlank == text.trimmingCharacters(in: .whitespaces).isEmpty)
    }
}
