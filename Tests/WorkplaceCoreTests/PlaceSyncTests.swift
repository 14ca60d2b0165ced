import Foundation
import GRDB
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import WorkplaceCore

@Suite struct PlaceSyncTests {
    func device() throws -> PlaceStore {
        let store = try PlaceStore.inMemory()
        try store.store.syncEnable()
        return store
    }

    func sync(_ stores: PlaceStore..., through server: InMemorySyncServer) async throws {
        for store in stores { _ = try await SyncSession(store: store.store, log: "places", transport: server).run() }
    }

    func dump(_ store: PlaceStore) throws -> [String] {
        try store.allPlaces().map { place in
            "\(place.origin.rawValue):\(place.providerID ?? "-") \(place.name) \(place.coordinate) \(place.rating.map { rating in rating.values.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",") + " " + rating.notes } ?? "unrated")"
        }.sorted()
    }

    @Test func placesAndRatingsFollowTheUserAndTheSameProviderPlaceIsOne() async throws {
        let server = InMemorySyncServer()
        let laptop = try device(), phone = try device()
        let cafe = PlaceRecord(name: "Café des Arts", type: .coffeeShop, coordinate: try Coordinate(latitude: 48.85, longitude: 2.35),
                               origin: .openStreetMap, providerID: "node/42")
        // Both devices fetched the same provider place.
        let onLaptop = try await laptop.run { try $0.add(cafe) }
        _ = try await phone.run { try $0.add(cafe) }
        _ = try await laptop.run { try $0.rate(onLaptop.id, RatingChange(values: [.wifi: 5, .noise: 1], notes: "Quiet upstairs")) }
        let desk = try await phone.run { try $0.add(PlaceRecord(name: "Kitchen table", type: .other, coordinate: try Coordinate(latitude: 48.86, longitude: 2.36), origin: .user)) }
        try await sync(laptop, phone, laptop, through: server)
        #expect(try await laptop.run({ try $0.allPlaces() }).count == 2)
        let (l, p) = (try dump(laptop), try dump(phone))
        #expect(l == p, "\(l) vs \(p)")
        let rated = try #require(try await phone.run({ try $0.allPlaces() }).first { $0.providerID == "node/42" })
        #expect(rated.rating?.notes == "Quiet upstairs")
        // A removal on one device removes it on the other.
        try await phone.run { try $0.remove(desk.id) }
        try await sync(phone, laptop, through: server)
        #expect(try await laptop.run({ try $0.allPlaces() }).map(\.name) == ["Café des Arts"])
        let (l2, p2) = (try dump(laptop), try dump(phone))
        #expect(l2 == p2, "\(l2) vs \(p2)")
    }
}
