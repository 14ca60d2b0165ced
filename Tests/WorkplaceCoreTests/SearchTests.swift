import Foundation
import Testing
@testable import WorkplaceCore

/// A seeded generator so random data is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// Random places around `center` within `spread` degrees (longitudes wrapped, latitudes clamped).
func randomPlaces(around center: Coordinate, spread: Double, count: Int, seed: UInt64) throws -> [PlaceRecord] {
    var generator = SeededGenerator(state: seed)
    return try (0..<count).map { index in
        var lat = center.latitude + Double.random(in: -spread...spread, using: &generator)
        var lon = center.longitude + Double.random(in: -spread * 3...spread * 3, using: &generator)
        lat = min(90, max(-90, lat))
        if lon > 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        return PlaceRecord(name: "P\(index)", type: BusinessType.allCases[index % 6], coordinate: try Coordinate(latitude: lat, longitude: lon),
                           origin: .openStreetMap, providerID: "node/\(index)")
    }
}

@Suite struct NearSearchOracleTests {
    static let centers: [(Double, Double, Double)] = [
        (52.52, 13.405, 0.05),      // a city
        (0, 179.99, 0.05),          // the antimeridian
        (-16.5, -179.995, 0.05),    // the antimeridian from the other side
        (89.99, 40, 0.02),          // near the North Pole
        (-89.995, -120, 0.02),      // near the South Pole
    ]

    @Test(arguments: centers.indices)
    func radiusSearchEqualsABruteForceHaversineScan(index: Int) throws {
        let (lat, lon, spread) = Self.centers[index]
        let center = try Coordinate(latitude: lat, longitude: lon)
        let store = try freshPlaceStore()
        let records = try randomPlaces(around: center, spread: spread, count: 2000, seed: UInt64(index + 1))
        try store.upsert(records)
        for radius in [0.0, 250, 1000, 3000] {
            let expected = records.filter { Geo.distance(center, $0.coordinate) <= radius }.map(\.name).sorted()
            let found = try store.near(PlaceQuery(center: center, radius: radius, limit: 10_000)).map(\.place.name).sorted()
            #expect(found == expected, "radius \(radius) at \(center)")
        }
    }

    /// Nearest first within a radius: the search looks near first and widens only while it has
    /// found fewer than the limit; the answer is still the nearest `limit` in the whole radius,
    /// and places a few metres beyond a widening step are not skipped.
    @Test(arguments: centers.indices)
    func nearestWithinARadiusEqualsABruteForceScan(index: Int) throws {
        let (lat, lon, spread) = Self.centers[index]
        let center = try Coordinate(latitude: lat, longitude: lon)
        let store = try freshPlaceStore()
        var records = try randomPlaces(around: center, spread: spread, count: 1500, seed: UInt64(index + 300))
        // Just inside and just outside the first steps (500 m, 2 km).
        for (number, metres) in [499.0, 501, 1999, 2001].enumerated() {
            records.append(PlaceRecord(name: "Ring \(number)", type: .library, coordinate: try Coordinate(latitude: lat, longitude: Self.east(of: lat, lon, metres: metres)),
                                       origin: .openStreetMap, providerID: "ring/\(number)"))
        }
        try store.upsert(records)
        for radius in [300.0, 1000, 2500, 8000, 50_000] {
            for limit in [1, 5, 50, 400] {
                let expected = records.map { ($0.name, Geo.distance(center, $0.coordinate)) }.filter { $0.1 <= radius }.sorted { $0.1 < $1.1 }.prefix(limit)
                let found = try store.near(PlaceQuery(center: center, radius: radius, limit: limit))
                #expect(found.map(\.distance).elementsEqual(expected.map(\.1)) { abs($0 - $1) < 1e-6 }, "radius \(radius) limit \(limit) at \(center)")
            }
        }
    }

    /// The longitude `metres` east of a point along its parallel (wrapped into -180…180).
    static func east(of lat: Double, _ lon: Double, metres: Double) -> Double {
        let shifted = lon + metres / (Geo.earthRadius * cos(lat * .pi / 180)) * 180 / .pi
        return shifted > 180 ? shifted - 360 : shifted
    }

    @Test(arguments: centers.indices)
    func kNearestEqualsABruteForceScan(index: Int) throws {
        let (lat, lon, spread) = Self.centers[index]
        let center = try Coordinate(latitude: lat, longitude: lon)
        let store = try freshPlaceStore()
        let records = try randomPlaces(around: center, spread: spread, count: 1500, seed: UInt64(index + 100))
        try store.upsert(records)
        for k in [1, 7, 50] {
            let expected = records.map { ($0.name, Geo.distance(center, $0.coordinate)) }.sorted { $0.1 < $1.1 }.prefix(k)
            let found = try store.near(PlaceQuery(center: center, radius: nil, limit: k))
            #expect(found.map(\.place.name) == expected.map(\.0))
            #expect(zip(found.map(\.distance), expected.map(\.1)).allSatisfy { abs($0 - $1) < 1e-6 })
        }
    }

    /// The R*Tree-only search (positions known within a float box) answers exactly as the search
    /// that reads every candidate's row: same places, order, distances and scores.
    @Test(arguments: centers.indices)
    func theIndexOnlySearchEqualsTheRowSearch(index: Int) throws {
        let (lat, lon, spread) = Self.centers[index]
        let center = try Coordinate(latitude: lat, longitude: lon)
        let store = try freshPlaceStore()
        var records = try randomPlaces(around: center, spread: spread, count: 1500, seed: UInt64(index + 500))
        // Ties: places at the same spot, and at the centre itself.
        for copy in 0..<6 {
            records.append(PlaceRecord(name: "Twin \(copy)", type: .library, coordinate: copy < 3 ? records[0].coordinate : center,
                                       origin: .openStreetMap, providerID: "twin/\(copy)"))
        }
        try store.upsert(records)
        var generator = SeededGenerator(state: UInt64(index + 900))
        for place in try store.allPlaces() where Int.random(in: 0..<10, using: &generator) == 0 {
            var values: [RatingDimension: Int] = [:]
            for dimension in RatingDimension.allCases where Bool.random(using: &generator) { values[dimension] = Int.random(in: 0...5, using: &generator) }
            try store.rate(place.id, RatingChange(values: values))
        }
        for radius in [nil, 0, 150, 1000, 4000] as [Double?] {
            for limit in [1, 5, 20, 300] {
                for sort in PlaceSort.allCases {
                    for (minimums, maximums) in [([:], [:]), ([RatingDimension.wifi: 3], [:]), ([:], [RatingDimension.noise: 2]),
                                                 ([.outlets: 2], [.noise: 3, .cost: 2])] as [([RatingDimension: Int], [RatingDimension: Int])] {
                        let query = PlaceQuery(center: center, radius: radius, limit: limit, minimums: minimums, maximums: maximums, sort: sort,
                                               now: Date(timeIntervalSince1970: 0))
                        let fromIndex = try store.near(query, indexOnly: true)
                        let fromRows = try store.near(query, indexOnly: false)
                        #expect(fromIndex == fromRows, "radius \(String(describing: radius)) limit \(limit) \(sort) \(minimums) \(maximums)")
                    }
                }
            }
        }
    }

    @Test func radiusZeroFindsOnlyThePointItself() throws {
        let store = try freshPlaceStore()
        try store.upsert([PlaceRecord(name: "Here", type: .library, coordinate: berlin, origin: .openStreetMap, providerID: "node/1"),
                          PlaceRecord(name: "Near", type: .library, coordinate: try Coordinate(latitude: 52.5201, longitude: 13.405), origin: .openStreetMap, providerID: "node/2")])
        #expect(try store.near(PlaceQuery(center: berlin, radius: 0)).map(\.place.name) == ["Here"])
    }

    @Test func filtersByTypeMinimumRatingsAndScore() throws {
        let store = try freshPlaceStore()
        let near = try Coordinate(latitude: 52.5205, longitude: 13.405)
        let far = try Coordinate(latitude: 52.5227, longitude: 13.405)  // about 300 m
        try store.upsert([
            PlaceRecord(name: "Near café", type: .coffeeShop, coordinate: near, origin: .openStreetMap, providerID: "node/1"),
            PlaceRecord(name: "Far café", type: .coffeeShop, coordinate: far, origin: .openStreetMap, providerID: "node/2"),
            PlaceRecord(name: "Library", type: .library, coordinate: near, origin: .openStreetMap, providerID: "node/3"),
        ])
        let ids = Dictionary(uniqueKeysWithValues: try store.allPlaces().map { ($0.name, $0.id) })
        try store.rate(ids["Far café"]!, RatingChange(values: [.wifi: 5, .outlets: 5, .noise: 0, .seating: 5, .cost: 1]))
        try store.rate(ids["Near café"]!, RatingChange(values: [.wifi: 1]))
        #expect(try store.near(PlaceQuery(center: berlin, types: [.coffeeShop])).map(\.place.name) == ["Near café", "Far café"])
        #expect(try store.near(PlaceQuery(center: berlin, minimums: [.wifi: 4])).map(\.place.name) == ["Far café"])
        #expect(try store.near(PlaceQuery(center: berlin, sort: .score)).first?.place.name == "Far café")
        // Smoothing: one rated dimension counts less than five.
        let results = try store.near(PlaceQuery(center: berlin))
        let nearCafe = try #require(results.first { $0.place.name == "Near café" })
        let library = try #require(results.first { $0.place.name == "Library" })
        #expect(nearCafe.smoothedQuality > 1 && nearCafe.smoothedQuality < library.smoothedQuality)
        // Maximums: lower is better for noise and cost; a place without that rating does not match.
        try store.rate(ids["Library"]!, RatingChange(values: [.noise: 4]))
        #expect(try store.near(PlaceQuery(center: berlin, maximums: [.noise: 2])).map(\.place.name) == ["Far café"])
        #expect(try store.near(PlaceQuery(center: berlin, minimums: [.noise: 4])).map(\.place.name) == ["Library"])
        #expect(throws: WorkplaceError.invalidRating(dimension: "cost", value: "6")) { try store.near(PlaceQuery(center: berlin, maximums: [.cost: 6])) }
        #expect(throws: WorkplaceError.invalidQuery("the radius must be 0 or more metres")) { try store.near(PlaceQuery(center: berlin, radius: -1)) }
        #expect(throws: WorkplaceError.invalidQuery("the limit must be 1 to 10000")) { try store.near(PlaceQuery(center: berlin, limit: 0)) }
    }
}

@Suite struct OpeningHoursTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!

    func at(_ text: String) -> Date { (try? Date.ISO8601FormatStyle().parse(text)) ?? Date() }

    // 2026-11-23 is a Monday; times are UTC (Berlin is UTC+1 in November).
    @Test(arguments: [
        ("Mo-Fr 08:00-18:00", "2026-11-23T08:00:00Z", true),
        ("Mo-Fr 08:00-18:00", "2026-11-23T17:30:00Z", false),   // 18:30 local
        ("Mo-Fr 08:00-18:00", "2026-11-22T10:00:00Z", false),   // Sunday
        ("Mo-Fr 08:00-12:00,13:00-18:00", "2026-11-23T11:30:00Z", false),  // 12:30 lunch break
        ("Mo-Fr 08:00-12:00,13:00-18:00", "2026-11-23T12:30:00Z", true),
        ("Fr-Sa 20:00-03:00", "2026-11-29T01:30:00Z", true),     // Sunday 02:30 after Saturday night
        ("Fr-Sa 20:00-03:00", "2026-11-24T01:30:00Z", false),    // Tuesday 02:30 after Monday: closed
        ("24/7", "2026-11-25T03:00:00Z", true),
        ("Mo-Su 00:00-24:00", "2026-11-25T22:59:00Z", true),
        ("9:00-17:00", "2026-11-25T09:00:00Z", true),            // tolerant: one-digit hour, every day
        ("Mo–Fr 09:00–17:00", "2026-11-25T09:00:00Z", true),     // en dashes
        ("Mo-Fr 08:00-18:00; We off", "2026-11-25T09:00:00Z", false),
        ("Mo-Sa 09:00-20:00; Su closed", "2026-11-29T12:00:00Z", false),
    ])
    func openNowTable(hours: String, time: String, open: Bool) throws {
        let parsed = try #require(WeeklyHours.parseOSM(hours), "\(hours) should parse")
        #expect(parsed.isOpen(at: at(time), timeZone: Self.zone) == open)
    }

    @Test(arguments: ["", "sunrise-sunset", "Mo-Fr 08:00-18:00 || \"by appointment\"", "Jan-Mar Mo 10:00-12:00", "PH off", "Mo-Fr 25:00-26:00",
                      "open sometimes", "Mo-Fr 08:00-", "Xy 10:00-11:00"])
    func unparseableHoursAreUnknown(hours: String) {
        #expect(WeeklyHours.parseOSM(hours) == nil)
    }

    @Test func yelpHoursBecomeIntervalsWithMondayAsDayZero() throws {
        let hours = try #require(WeeklyHours.yelp([(day: 0, start: "0800", end: "1800", overnight: false), (day: 6, start: "2200", end: "0200", overnight: true)]))
        #expect(hours.osmString == "Mo 08:00-18:00; Su 22:00-02:00")
        #expect(hours.isOpen(at: at("2026-11-22T23:30:00Z"), timeZone: Self.zone))  // Monday 00:30, after Sunday night
        #expect(!hours.isOpen(at: at("2026-11-23T23:30:00Z"), timeZone: Self.zone))  // Tuesday 00:30, after Monday
    }

    @Test func openNowFilterLeavesOutUnknownHours() throws {
        let store = try freshPlaceStore()
        try store.upsert([
            PlaceRecord(name: "Always", type: .coffeeShop, coordinate: berlin, openingHours: "24/7", origin: .openStreetMap, providerID: "node/1"),
            PlaceRecord(name: "Unknown", type: .coffeeShop, coordinate: berlin, openingHours: "by appointment", origin: .openStreetMap, providerID: "node/2"),
            PlaceRecord(name: "Never", type: .coffeeShop, coordinate: berlin, openingHours: "Mo-Su off", origin: .openStreetMap, providerID: "node/3"),
        ])
        #expect(try store.near(PlaceQuery(center: berlin, openNow: true)).map(\.place.name) == ["Always"])
        #expect(try store.near(PlaceQuery(center: berlin)).map(\.isOpen) == [true, nil, false])
    }
}

@Suite struct RankingTests {
    /// An unrated place counts as the middle of the scale, whatever the user rated elsewhere: a
    /// place rated 5/5/4 beats an unrated one a few metres nearer, and an unrated one beats a
    /// place rated badly.
    @Test func anUnratedPlaceNeverOutranksAWellRatedOneAtASimilarDistance() throws {
        let store = try freshPlaceStore()
        let nearer = try Coordinate(latitude: 52.5205, longitude: 13.405)   // about 55 m
        let farther = try Coordinate(latitude: 52.5213, longitude: 13.405)  // about 145 m
        try store.upsert([
            PlaceRecord(name: "Unrated", type: .coffeeShop, coordinate: nearer, origin: .openStreetMap, providerID: "node/1"),
            PlaceRecord(name: "Well rated", type: .coffeeShop, coordinate: farther, origin: .openStreetMap, providerID: "node/2"),
            PlaceRecord(name: "Badly rated", type: .coffeeShop, coordinate: nearer, origin: .openStreetMap, providerID: "node/3"),
        ])
        let ids = Dictionary(uniqueKeysWithValues: try store.allPlaces().map { ($0.name, $0.id) })
        try store.rate(try #require(ids["Well rated"]), RatingChange(values: [.wifi: 5, .outlets: 5, .seating: 4]))
        // With only good ratings in the store, the unrated place must not borrow their mean.
        for indexOnly in [true, false] {
            let ranked = try store.near(PlaceQuery(center: berlin, sort: .score), indexOnly: indexOnly)
            #expect(ranked.first?.place.name == "Well rated")
        }
        try store.rate(try #require(ids["Badly rated"]), RatingChange(values: [.wifi: 0, .outlets: 1, .noise: 5]))
        for indexOnly in [true, false] {
            let ranked = try store.near(PlaceQuery(center: berlin, sort: .score), indexOnly: indexOnly)
            #expect(ranked.map(\.place.name) == ["Well rated", "Unrated", "Badly rated"])
            #expect(ranked[1].smoothedQuality == PlaceRanking.priorMean)
        }
        // WR = 3/5 · 14/3 + 2/5 · 2.5
        #expect(abs(PlaceRanking.smoothedQuality(Rating(values: [.wifi: 5, .outlets: 5, .seating: 4])) - 3.8) < 1e-9)
    }
}

@Suite struct GeoJSONTypeTests {
    static let cases: [(String, BusinessType, String?)] = [
        (#""amenity": "cafe""#, .coffeeShop, nil), (#""type": "cafe""#, .coffeeShop, nil), (#""type": "Café""#, .coffeeShop, nil),
        (#""type": "coffee""#, .coffeeShop, nil), (#""amenity": "library""#, .library, nil), (#""amenity": "coworking_space""#, .coworkingSpace, nil),
        (#""office": "coworking""#, .coworkingSpace, nil), (#""type": "coworking-space""#, .coworkingSpace, nil), (#""amenity": "pub""#, .bar, nil),
        (#""amenity": "fast_food""#, .restaurant, nil), (#""type": "coffee-shop""#, .coffeeShop, nil), (#""type": "spaceport""#, .other, "type 'spaceport'"),
        (#""amenity": "bench""#, .other, "amenity 'bench'"), (#""office": "lawyer""#, .other, "office 'lawyer'"), (#""type": "shop", "amenity": "cafe""#, .coffeeShop, nil),
        ("", .other, nil),
    ]

    @Test(arguments: cases.indices)
    func typesAreReadFromOSMTagsAndSynonymsAndUnknownOnesWarn(index: Int) throws {
        let (properties, type, unknown) = Self.cases[index]
        let json = #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-0.1, 51.5]}, "properties": {"name": "X""#
            + (properties.isEmpty ? "" : ", " + properties) + "}}"
        let places = try PlaceFiles.parseGeoJSON(Data(json.utf8), file: "f.geojson")
        #expect(places.first?.record.type == type)
        #expect(places.first?.warnings == unknown.map { ["feature 1 'X': unknown \($0), stored as other"] } ?? [])
    }

    @Test func twoFeaturesWithOneProviderIDImportNothing() throws {
        let store = try freshPlaceStore()
        let json = #"""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-58.38, -34.6]}, "properties": {"name": "A", "origin": "osm", "provider_id": "node/1"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-58.39, -34.6]}, "properties": {"name": "B"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-58.37, -34.6]}, "properties": {"name": "C", "origin": "osm", "provider_id": "node/1"}}
            ]}
            """#
        #expect(throws: WorkplaceError.malformedImport(file: "f.geojson", reason: "features 1 'A' and 3 'C' have the same provider id 'node/1'")) {
            try store.importFile(Data(json.utf8), name: "f.geojson")
        }
        #expect(try store.count() == 0)
    }
}
