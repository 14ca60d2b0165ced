import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import WorkplaceCore

/// README's per-field merge, for every synced entity of the places store (see
/// `ConcurrentFieldEdits`: the entities and fields come from the store's sync schema).
@Suite struct PlaceConcurrentFieldEditTests {
    @Test func concurrentChangesOfDifferentFieldsAllSurviveInEveryEntity() async throws {
        // One wall clock that moves on a millisecond each time a device reads it: later writes
        // are stamped later, whichever device makes them.
        let clock = DeviceClock(millis: 1_800_000_000_000)
        let devices = try (0..<3).map { _ in try PlaceStore.inMemory(now: { clock.advance(1); return clock.date }) }
        let store = devices[0]
        let cafe = try await store.run { try $0.add(PlaceRecord(name: "Café des Arts", type: .coffeeShop, coordinate: try Coordinate(latitude: 48.85, longitude: 2.35),
                                             address: "1 rue des Arts", origin: .openStreetMap, providerID: "node/42")) }
        let library = try await store.run { try $0.add(PlaceRecord(name: "Library", type: .library, coordinate: try Coordinate(latitude: 48.86, longitude: 2.36), origin: .user)) }
        _ = try await store.run { try $0.rate(cafe.id, RatingChange(values: [.wifi: 4, .noise: 2], notes: "Quiet upstairs")) }
        _ = try await store.run { try $0.rate(library.id, RatingChange(values: [.wifi: 3], notes: "Silent")) }
        for device in devices { try device.store.syncEnable() }
        let report = try await ConcurrentFieldEdits.check(devices: devices.map(\.store), log: "places")
        #expect(report.failures.isEmpty, "\(report.failures.joined(separator: "\n"))")
        #expect(Set(report.entitiesChecked + report.singleField) == Set(PlaceStore.syncSchema.entities.map(\.name)))
        #expect(report.edits.count == ConcurrentFieldEdits.editCount(PlaceStore.syncSchema))
    }

    /// The issue's case through the library: two devices rate the same place at once, one the
    /// noise, the other the wifi; both changes survive everywhere.
    @Test func twoDevicesRatingDifferentDimensionsAtOnceBothKeepBoth() async throws {
        let server = InMemorySyncServer()
        let laptop = try PlaceStore.inMemory(), phone = try PlaceStore.inMemory()
        for store in [laptop, phone] { try store.store.syncEnable() }
        let cafe = try await laptop.run { try $0.add(PlaceRecord(name: "Café des Arts", type: .coffeeShop, coordinate: try Coordinate(latitude: 48.85, longitude: 2.35),
                                              origin: .openStreetMap, providerID: "node/42")) }
        _ = try await laptop.run { try $0.rate(cafe.id, RatingChange(values: [.wifi: 2, .noise: 3])) }
        for store in [laptop, phone] { _ = try await SyncSession(store: store.store, log: "places", transport: server).run() }
        let onPhone = try #require(try await phone.run({ try $0.allPlaces() }).first)
        _ = try await laptop.run { try $0.rate(cafe.id, RatingChange(values: [.noise: 1])) }
        _ = try await phone.run { try $0.rate(onPhone.id, RatingChange(values: [.wifi: 5])) }
        for _ in 0..<2 {
            for store in [laptop, phone] { _ = try await SyncSession(store: store.store, log: "places", transport: server).run() }
        }
        for store in [laptop, phone] {
            let rating = try #require(try await store.run({ try $0.allPlaces() }).first?.rating)
            #expect(rating.values[.noise] == 1 && rating.values[.wifi] == 5, "\(rating.values)")
        }
    }
}
