import Foundation
import Testing
import SuiteTestSupport
@testable import WorkplaceCore
import WorkplaceURLSession

func freshPlaceStore() throws -> PlaceStore {
    let folder = TestFolders.make("suite-places-tests")
    return try PlaceStore(url: folder.appendingPathComponent(PlaceStore.fileName))
}

let berlin = try! Coordinate(latitude: 52.52, longitude: 13.405) // programmer error: a literal in range

func yelpBusiness(_ index: Int, categories: [String] = ["coffee"]) -> String {
    """
    {"id": "biz-\(index)", "alias": "biz-\(index)", "name": "Café \(index)", "is_closed": false, "url": "https://www.yelp.com/biz/biz-\(index)",
     "review_count": 10, "rating": 4.5, "categories": [\(categories.map { "{\"alias\": \"\($0)\", \"title\": \"\($0)\"}" }.joined(separator: ","))],
     "coordinates": {"latitude": \(52.52 + Double(index) * 0.0001), "longitude": 13.405},
     "location": {"address1": "Straße \(index)", "address2": null, "city": "Berlin", "display_address": ["Straße \(index)", "10178 Berlin"]},
     "phone": "+4930123", "display_phone": "+49 30 123", "distance": \(index * 11)}
    """
}

func yelpPage(_ range: Range<Int>, total: Int) -> String {
    "{\"total\": \(total), \"businesses\": [\(range.map { yelpBusiness($0) }.joined(separator: ","))], \"region\": {\"center\": {\"latitude\": 52.52, \"longitude\": 13.405}}}"
}

let yelpHours = """
    {"id": "biz-0", "name": "Café 0", "hours": [{"hours_type": "REGULAR", "is_open_now": true, "open": [
      {"day": 0, "start": "0800", "end": "1800", "is_overnight": false},
      {"day": 4, "start": "0800", "end": "1200", "is_overnight": false},
      {"day": 4, "start": "1300", "end": "0200", "is_overnight": true}]}]}
    """

/// What the CLI does: fetch, then store only when the fetch succeeded.
func fetchAndStore(_ provider: any PlaceProvider, into store: PlaceStore) async throws -> PlaceImportSummary {
    let records = try await provider.places(near: berlin, radius: 1000, progress: nil)
    return try await store.run { try $0.upsert(records) }
}

@Suite(.serialized) struct YelpProviderTests {
    @Test func pagesUpToTheCapAndFetchesHoursWithTheBearerKey() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/v3/businesses/search", [
            .init(status: 200, body: yelpPage(0..<50, total: 300)), .init(status: 200, body: yelpPage(50..<100, total: 300)),
            .init(status: 200, body: yelpPage(100..<150, total: 300)), .init(status: 200, body: yelpPage(150..<200, total: 300)),
            .init(status: 200, body: yelpPage(200..<240, total: 300)),
        ])
        await server.script.set("/v3/businesses/", [.init(status: 200, body: yelpHours)])
        let provider = YelpProvider(apiKey: "secret-key", baseURL: server.baseURL.appendingPathComponent("v3"), hoursLimit: 2, timeout: 30, client: URLSessionHTTPClient())
        let store = try freshPlaceStore()
        let summary = try await fetchAndStore(provider, into: store)
        #expect(summary.added == 240)
        let requests = await server.script.requests
        let searches = requests.filter { $0.path == "/v3/businesses/search" }
        #expect(searches.map { $0.query["offset"] } == ["0", "50", "100", "150", "200"])
        #expect(searches.last?.query["limit"] == "40")
        #expect(searches.allSatisfy { $0.headers["authorization"] == "Bearer secret-key" })
        #expect(searches.first?.query["radius"] == "1000")
        #expect(requests.filter { $0.path.hasPrefix("/v3/businesses/biz-") }.count == 2)
        let first = try #require(try await store.run({ try $0.allPlaces() }).first)
        #expect(first.openingHours == "Mo 08:00-18:00; Fr 08:00-12:00,13:00-02:00")
        #expect(first.type == .coffeeShop)
        #expect(first.address == "Straße 0, 10178 Berlin")
    }

    @Test func unauthorizedIsATypedErrorAndTheStoreIsUnchanged() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/businesses/search", [.init(status: 401, body: "{\"error\": {\"code\": \"TOKEN_INVALID\", \"description\": \"Invalid access token or authorization header.\"}}")])
        let store = try freshPlaceStore()
        let provider = YelpProvider(apiKey: "wrong", baseURL: server.baseURL, timeout: 30, client: URLSessionHTTPClient())
        await #expect(throws: WorkplaceError.providerUnauthorized(provider: "Yelp", detail: "TOKEN_INVALID")) { try await fetchAndStore(provider, into: store) }
        #expect(try await store.run({ try $0.count() }) == 0)
        #expect(await server.script.count("/businesses/search") == 1)
    }

    @Test func tooManyRequestsIsRetriedHonouringRetryAfter() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/businesses/search", [
            .init(status: 429, body: "{\"error\": {\"code\": \"TOO_MANY_REQUESTS_PER_SECOND\"}}", headers: ["Retry-After": "1"]),
            .init(status: 200, body: yelpPage(0..<3, total: 3)),
        ])
        let provider = YelpProvider(apiKey: "k", baseURL: server.baseURL, hoursLimit: 0, timeout: 30, initialBackoff: 0.05, client: URLSessionHTTPClient())
        let started = Date()
        let store = try freshPlaceStore()
        #expect(try await fetchAndStore(provider, into: store).added == 3)
        #expect(Date().timeIntervalSince(started) >= 0.9)
        #expect(await server.script.count("/businesses/search") == 2)
    }

    @Test func persistentRateLimitingGivesUpAfterBoundedRetries() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/businesses/search", [.init(status: 429, body: "{\"error\": {\"code\": \"ACCESS_LIMIT_REACHED\"}}")])
        let provider = YelpProvider(apiKey: "k", baseURL: server.baseURL, timeout: 30, maxRetries: 2, initialBackoff: 0.01, client: URLSessionHTTPClient())
        let store = try freshPlaceStore()
        await #expect(throws: WorkplaceError.providerRateLimited(provider: "Yelp")) { try await fetchAndStore(provider, into: store) }
        #expect(await server.script.count("/businesses/search") == 3)
        #expect(try await store.run({ try $0.count() }) == 0)
    }

    @Test func aServerErrorThenSuccessIsRetried() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/businesses/search", [
            .init(status: 500, body: "{\"error\": {\"code\": \"INTERNAL_ERROR\"}}"), .init(status: 200, body: yelpPage(0..<2, total: 2)),
        ])
        let provider = YelpProvider(apiKey: "k", baseURL: server.baseURL, hoursLimit: 0, timeout: 30, initialBackoff: 0.01, client: URLSessionHTTPClient())
        let store = try freshPlaceStore()
        #expect(try await fetchAndStore(provider, into: store).added == 2)
    }

    @Test(arguments: ["not json at all", "{\"total\": 1}", "{\"businesses\": [{\"id\": \"x\"}]}", "{\"businesses\": [{\"id\": \"x\", \"name\": \"y\", \"coordinates\": {\"latitude\": 95, \"longitude\": 0}}]}"])
    func aMalformedBodyIsAnErrorAndTheStoreIsUnchanged(body: String) async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/businesses/search", [.init(status: 200, body: body)])
        let provider = YelpProvider(apiKey: "k", baseURL: server.baseURL, hoursLimit: 0, timeout: 30, client: URLSessionHTTPClient())
        let store = try freshPlaceStore()
        try await store.run { try $0.upsert([PlaceRecord(name: "Existing", type: .library, coordinate: berlin, origin: .openStreetMap, providerID: "node/1")]) }
        await #expect {
            try await fetchAndStore(provider, into: store)
        } throws: { error in
            if case .providerUnavailable(provider: "Yelp", _) = error as? WorkplaceError { return true }
            return false
        }
        #expect(try await store.run({ try $0.allPlaces() }).map(\.name) == ["Existing"])
    }

    @Test func aSlowAnswerPastTheTimeoutIsAnError() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/businesses/search", [.init(status: 200, body: yelpPage(0..<1, total: 1), delay: 3)])
        let provider = YelpProvider(apiKey: "k", baseURL: server.baseURL, hoursLimit: 0, timeout: 1, maxRetries: 0, client: URLSessionHTTPClient())
        let store = try freshPlaceStore()
        await #expect {
            try await fetchAndStore(provider, into: store)
        } throws: { error in
            if case .providerUnavailable(provider: "Yelp", _) = error as? WorkplaceError { return true }
            return false
        }
        #expect(try await store.run({ try $0.count() }) == 0)
    }

    @Test func aMissingKeyNeverCallsTheService() async throws {
        let provider = YelpProvider(apiKey: "  ", baseURL: URL(string: "http://127.0.0.1:9")!, client: URLSessionHTTPClient())
        await #expect(throws: WorkplaceError.missingAPIKey(provider: "Yelp")) { try await provider.places(near: berlin, radius: 100, progress: nil) }
    }
}

let overpassAnswer = """
    {"version": 0.6, "generator": "Overpass API", "osm3s": {}, "elements": [
      {"type": "node", "id": 101, "lat": 52.5201, "lon": 13.4051, "tags": {"amenity": "cafe", "name": "Kaffee Eck", "opening_hours": "Mo-Fr 08:00-18:00; Sa 09:00-14:00",
       "internet_access": "wlan", "addr:street": "Hauptstraße", "addr:housenumber": "5", "addr:city": "Berlin", "website": "https://kaffee.example"}},
      {"type": "way", "id": 202, "center": {"lat": 52.5210, "lon": 13.4070}, "tags": {"amenity": "library", "name": "Stadtbibliothek"}},
      {"type": "node", "id": 303, "lat": 52.5190, "lon": 13.4040, "tags": {"office": "coworking", "name": "Cowork Hub", "opening_hours": "24/7"}},
      {"type": "node", "id": 404, "lat": 52.5195, "lon": 13.4045, "tags": {"amenity": "cafe"}}
    ]}
    """

@Suite(.serialized) struct OpenStreetMapTests {
    @Test func overpassPlacesAreStoredAndRefetchingKeepsRatings() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/api/interpreter", [.init(status: 200, body: overpassAnswer)])
        let provider = OverpassProvider(baseURL: server.baseURL.appendingPathComponent("api"), userAgent: "suite-tests/1", timeout: 30, client: URLSessionHTTPClient())
        let store = try freshPlaceStore()
        #expect(try await fetchAndStore(provider, into: store) == PlaceImportSummary(added: 3, updated: 0))
        let request = try #require(await server.script.requests.first)
        #expect(request.headers["user-agent"] == "suite-tests/1")
        #expect(request.body.hasPrefix("data=%5Bout%3Ajson%5D"))
        let places = try await store.run { try $0.allPlaces() }
        #expect(places.map(\.providerID) == ["node/101", "way/202", "node/303"])
        #expect(places.map(\.type) == [.coffeeShop, .library, .coworkingSpace])
        #expect(places[0].address == "Hauptstraße 5, Berlin")
        // Rate, then fetch again: the rating, notes and pin colour stay; provider data refreshes.
        try await store.run { try $0.rate(places[0].id, RatingChange(values: [.wifi: 5, .noise: 1], notes: "window seats", pinColor: .green, type: .coworkingSpace)) }
        await server.script.set("/api/interpreter", [.init(status: 200, body: overpassAnswer.replacingOccurrences(of: "Kaffee Eck", with: "Kaffee Ecke"))])
        #expect(try await fetchAndStore(provider, into: store) == PlaceImportSummary(added: 0, updated: 3))
        let refreshed = try await store.run { try $0.place(places[0].id) }
        #expect(refreshed.name == "Kaffee Ecke")
        #expect(refreshed.rating?.values == [.wifi: 5, .noise: 1])
        #expect(refreshed.rating?.notes == "window seats")
        #expect(refreshed.pinColor == .green)
        #expect(refreshed.type == .coworkingSpace)
    }

    @Test func aMalformedOverpassAnswerChangesNothing() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/interpreter", [.init(status: 200, body: "<html>busy</html>")])
        let provider = OverpassProvider(baseURL: server.baseURL, userAgent: "t", timeout: 30, client: URLSessionHTTPClient())
        let store = try freshPlaceStore()
        await #expect(throws: (any Error).self) { try await fetchAndStore(provider, into: store) }
        #expect(try await store.run({ try $0.count() }) == 0)
    }

    @Test func nominatimGeocodesWithAUserAgentAtMostOncePerSecond() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/search", [.init(status: 200, body: "[{\"place_id\": 1, \"lat\": \"52.5219\", \"lon\": \"13.4132\", \"display_name\": \"Alexanderplatz, Mitte, Berlin\"}]")])
        let geocoder = NominatimGeocoder(baseURL: server.baseURL, userAgent: "suite-tests/1", timeout: 30, client: URLSessionHTTPClient())
        let started = Date()
        let first = try await geocoder.geocode("Alexanderplatz, Berlin")
        _ = try await geocoder.geocode("Alexanderplatz, Berlin")
        #expect(Date().timeIntervalSince(started) >= 1)
        #expect(first.coordinate == (try Coordinate(latitude: 52.5219, longitude: 13.4132)))
        #expect(first.displayName == "Alexanderplatz, Mitte, Berlin")
        let request = try #require(await server.script.requests.first)
        #expect(request.query["q"] == "Alexanderplatz, Berlin")
        #expect(request.query["format"] == "jsonv2")
        #expect(request.headers["user-agent"] == "suite-tests/1")
        await server.script.set("/search", [.init(status: 200, body: "[]")])
        await #expect(throws: WorkplaceError.addressNotFound("Nowhere Street 0")) { try await geocoder.geocode("Nowhere Street 0") }
    }
}

/// Looking up the place at an address (seed 001: "business name, lat/long, hours, contact
/// information"): Nominatim with `extratags`, and Yelp's search by location with the details.
@Suite struct AddressLookupTests {
    static let cafe = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/places/nominatim-cafe.json").standardizedFileURL

    @Test func nominatimBringsTheNameKindHoursAndContactOfThePlace() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/search", [.init(status: 200, body: try String(contentsOf: Self.cafe, encoding: .utf8))])
        let geocoder = NominatimGeocoder(baseURL: server.baseURL, userAgent: "suite-tests/1", timeout: 30, client: URLSessionHTTPClient())
        let record = try await geocoder.lookUp(address: "Oranienstraße 12, Berlin", name: nil)
        #expect(record.name == "Café Blau")
        #expect(record.type == .coffeeShop)
        #expect(record.coordinate == (try Coordinate(latitude: 52.5010528, longitude: 13.4190381)))
        #expect(record.openingHours == "Mo-Fr 08:00-18:00; Sa 10:00-16:00")
        #expect(record.phone == "+49 30 1234567")
        #expect(record.website == "https://cafe-blau.example")
        #expect(record.address?.hasPrefix("Café Blau, 12, Oranienstraße") == true)
        #expect(record.providerID == "node/2478723457")
        let request = try #require(await server.script.requests.first)
        #expect(request.query["extratags"] == "1")
        #expect(request.query["format"] == "jsonv2")
        #expect(request.headers["user-agent"] == "suite-tests/1")
        // A name given is kept; an answer without extra tags still gives name and place.
        await server.script.set("/search", [.init(status: 200, body: """
            [{"osm_type": "way", "osm_id": 77, "lat": "52.5", "lon": "13.4", "category": "amenity", "type": "library", "name": "", "display_name": "Stadtbibliothek, Berlin"}]
            """)])
        let library = try await geocoder.lookUp(address: "Stadtbibliothek Berlin", name: "My library")
        #expect(library.name == "My library")
        #expect(library.type == .library)
        #expect(library.openingHours == nil && library.phone == nil)
        // Fields the store would refuse (a phone number of 300 digits, a line break in the hours,
        // an escape in the name) are left out, not blamed on the user: the place is still added.
        await server.script.set("/search", [.init(status: 200, body: """
            [{"osm_type": "node", "osm_id": 78, "lat": "52.5", "lon": "13.4", "category": "amenity", "type": "cafe", "name": "Odd\\u001b[2J",
              "display_name": "Odd, Berlin", "extratags": {"phone": "\(String(repeating: "1", count: 300))", "opening_hours": "Mo 08:00-18:00\\nTu",
              "website": "https://odd.example"}}]
            """)])
        let odd = try await geocoder.lookUp(address: "Odd Berlin", name: nil)
        #expect(odd.name == "Odd Berlin")
        #expect(odd.phone == nil && odd.openingHours == nil)
        #expect(odd.website == "https://odd.example")
        let store = try PlaceStore.inMemory()
        #expect(try await store.run({ try $0.add(odd) }).name == "Odd Berlin")
    }

    @Test func yelpFindsTheBusinessAtTheAddressWithItsHours() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/v3/businesses/search", [.init(status: 200, body: """
            {"total": 1, "businesses": [{"id": "cafe-blau-berlin", "alias": "cafe-blau-berlin", "name": "Café Blau", "is_closed": false,
             "url": "https://www.yelp.com/biz/cafe-blau-berlin", "categories": [{"alias": "cafes", "title": "Cafes"}],
             "coordinates": {"latitude": 52.50105, "longitude": 13.41904},
             "location": {"address1": "Oranienstr. 12", "city": "Berlin", "zip_code": "10999", "country": "DE", "display_address": ["Oranienstr. 12", "10999 Berlin", "Germany"]},
             "phone": "+49301234567", "display_phone": "+49 30 1234567"}], "region": {"center": {"latitude": 52.5, "longitude": 13.4}}}
            """)])
        await server.script.set("/v3/businesses/cafe-blau-berlin", [.init(status: 200, body: """
            {"id": "cafe-blau-berlin", "hours": [{"hours_type": "REGULAR", "is_open_now": true, "open": [
             {"day": 0, "start": "0800", "end": "1800", "is_overnight": false}, {"day": 5, "start": "1000", "end": "1600", "is_overnight": false}]}]}
            """)])
        let yelp = YelpProvider(apiKey: "k", baseURL: server.baseURL.appendingPathComponent("v3"), timeout: 30, client: URLSessionHTTPClient())
        let record = try await yelp.lookUp(address: "Oranienstraße 12, Berlin", name: "Café Blau")
        #expect(record.name == "Café Blau")
        #expect(record.type == .coffeeShop)
        #expect(record.phone == "+49 30 1234567")
        #expect(record.address == "Oranienstr. 12, 10999 Berlin, Germany")
        #expect(record.openingHours == "Mo 08:00-18:00; Sa 10:00-16:00")
        let search = try #require(await server.script.requests.first)
        #expect(search.query["location"] == "Oranienstraße 12, Berlin")
        #expect(search.query["term"] == "Café Blau")
        #expect(search.query["limit"] == "1")
        // Nothing there: the address is not found.
        await server.script.set("/v3/businesses/search", [.init(status: 200, body: "{\"total\": 0, \"businesses\": []}")])
        await #expect(throws: WorkplaceError.addressNotFound("Nowhere 0")) { try await yelp.lookUp(address: "Nowhere 0", name: nil) }
    }
}
