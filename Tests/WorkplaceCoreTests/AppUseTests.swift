import Foundation
import GRDB
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import WorkplaceCore

/// An observation's values, collected (SuiteTestSupport's `Recorder`) for this core's errors.
typealias Recorder<Value: Sendable & Equatable> = SuiteTestSupport.Recorder<Value, WorkplaceError>

func temporaryPlaceStoreURL() -> URL {
    TestFolders.make("suite-places-tests")
        .appendingPathComponent(PlaceStore.fileName)
}

/// Two places a few hundred metres from `berlin`.
func nearbyRecords() throws -> [PlaceRecord] {
    [
        PlaceRecord(name: "Kaffee Eck", type: .coffeeShop, coordinate: try Coordinate(latitude: 52.5203, longitude: 13.4049),
                    origin: .openStreetMap, providerID: "node/1"),
        PlaceRecord(name: "Stadtbibliothek", type: .library, coordinate: try Coordinate(latitude: 52.5190, longitude: 13.4070),
                    origin: .openStreetMap, providerID: "node/2"),
    ]
}

@Suite struct InMemoryPlaceStoreTests {
    @Test func hasTheSameSchemaAsAStoreFileAndWorks() throws {
        let memory = try PlaceStore.inMemory()
        let file = try PlaceStore(url: temporaryPlaceStoreURL())
        func schema(_ store: PlaceStore) throws -> [String] {
            try store.read { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name") }
        }
        #expect(try schema(memory) == schema(file))
        #expect(try schema(memory).contains { $0.contains("USING rtree") })
        try memory.upsert(try nearbyRecords())
        let found = try memory.near(PlaceQuery(center: berlin, radius: 500))
        #expect(found.map(\.place.name) == ["Kaffee Eck", "Stadtbibliothek"])
        let rated = try memory.rate(found[1].place.id, RatingChange(values: [.wifi: 5]))
        #expect(rated.pinColor == .blue)
        try memory.setLocation(berlin, label: "Mitte")
        #expect(try memory.location() == CurrentLocation(coordinate: berlin, label: "Mitte"))
    }

    @Test func writesNothingToDiskAndIsSeenByNoOtherStore() throws {
        let folder = FileManager.default.currentDirectoryPath
        let before = try FileManager.default.contentsOfDirectory(atPath: folder)
        let first = try PlaceStore.inMemory(), second = try PlaceStore.inMemory()
        try first.upsert(try nearbyRecords())
        #expect(first.path == ":memory:")
        #expect(try second.count() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == before)
        #expect(!FileManager.default.fileExists(atPath: ":memory:"))
    }
}

@Suite struct AsyncPlaceCallTests {
    @Test func openAndEveryScreenCallWorkFromAsyncCode() async throws {
        let url = temporaryPlaceStoreURL()
        let store = try await PlaceStore.open(at: url)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(try await store.run({ try $0.location() }) == nil)
        try await store.run { try $0.setLocation(berlin) }
        #expect(try await store.run({ try $0.location() }) == CurrentLocation(coordinate: berlin))
        #expect(try await store.run({ try $0.upsert(try nearbyRecords()) }) == PlaceImportSummary(added: 2, updated: 0))
        let mine = try await store.run { try $0.add(PlaceRecord(name: "My desk", type: .other, coordinate: berlin, origin: .user)) }
        #expect(try await store.run({ try $0.count() }) == 3)
        try await store.run { try $0.rate(mine.id, RatingChange(values: [.wifi: 4], notes: "by the window")) }
        #expect(try await store.run({ try $0.place(mine.id) }).rating?.notes == "by the window")
        #expect(try await store.run({ try $0.near(PlaceQuery(center: berlin, radius: 100)) }).first?.place.id == mine.id)
        let geoJSON = PlaceFiles.geoJSON(try await store.run { try $0.allPlaces() })
        try await store.run { try $0.remove(mine.id) }
        #expect(try await store.run({ try $0.allPlaces() }).map(\.name) == ["Kaffee Eck", "Stadtbibliothek"])
        #expect(try await store.run({ try $0.importFile(geoJSON, name: "places.geojson") }) == PlaceImportSummary(added: 1, updated: 0, unchanged: 2))

        let readOnly = try await PlaceStore.open(at: url, readOnly: true)
        #expect(try await readOnly.run({ try $0.count() }) == 3)
        await #expect(throws: WorkplaceError.self) { try await readOnly.run({ try $0.setLocation(berlin) }) }
    }

    @Test func errorsArriveTyped() async throws {
        let store = try PlaceStore.inMemory()
        #expect(!Background.isCurrent)
        #expect(try await store.run { _ in Background.isCurrent })
        #expect(try await PlaceStore.run { Background.isCurrent })
        do throws(WorkplaceError) {
            try await store.run { s throws(WorkplaceError) in try s.rate(42, RatingChange(values: [.wifi: 1])) }
            Issue.record("rated a missing place")
        } catch .placeNotFound(let id) {
            #expect(id == Place.ID(42))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

@Suite struct PlaceObservationTests {
    @Test func nearGivesTheAnswerAtOnceThenAfterEachOwnWrite() async throws {
        let store = try PlaceStore.inMemory()
        try await store.run { try $0.upsert(try nearbyRecords()) }
        let recorder = Recorder<[NearbyPlace]>()
        let task = recorder.follow(store.observeNear(PlaceQuery(center: berlin, radius: 500)))
        defer { task.cancel() }
        // Nothing is written: the first value comes without a change.
        #expect(await recorder.wait { $0.count == 1 })
        #expect(await recorder.values.first?.map(\.place.pinColor) == [.red, .red])

        let library = try #require(await recorder.values.first?[1].place.id)
        try await store.run { try $0.rate(library, RatingChange(pinColor: .green)) }
        #expect(await recorder.wait { $0.last?.map(\.place.pinColor) == [.red, .green] })
        // A change outside the answer gives no new value.
        let count = await recorder.values.count
        try await store.run { try $0.upsert([PlaceRecord(name: "Far away", type: .bar, coordinate: try Coordinate(latitude: -33.87, longitude: 151.21),
                                            origin: .openStreetMap, providerID: "node/9")]) }
        // Values come in commit order: once the next change's value is here, the one before gave none.
        try await store.run { try $0.rate(library, RatingChange(pinColor: .blue)) }
        #expect(await recorder.wait { $0.last?.map(\.place.pinColor) == [.red, .blue] })
        #expect(await recorder.values.count == count + 1)
    }

    @Test func theLocationIsObserved() async throws {
        let store = try PlaceStore.inMemory()
        let recorder = Recorder<CurrentLocation?>()
        let task = recorder.follow(store.observeLocation())
        defer { task.cancel() }
        #expect(await recorder.wait { $0 == [nil] })
        try await store.run { try $0.setLocation(berlin, label: "Alexanderplatz") }
        #expect(await recorder.wait { $0.last == CurrentLocation(coordinate: berlin, label: "Alexanderplatz") })
    }

    @Test func aWriteThroughAnotherConnectionArrivesWithinASecond() async throws {
        let url = temporaryPlaceStoreURL()
        let screen = try await PlaceStore.open(at: url)
        try await screen.run { try $0.upsert(try nearbyRecords()) }
        let recorder = Recorder<[NearbyPlace]>()
        let task = recorder.follow(screen.observeNear(PlaceQuery(center: berlin, radius: 500)))
        defer { task.cancel() }
        #expect(await recorder.wait { $0.count == 1 })
        let id = try #require(await recorder.values.first?.first?.place.id)

        // Another store value on the same file stands for another process (the CLI): its commit
        // reaches this store only through the file. (How fast is measured with real processes on
        // idle cores by Scripts/check-watch-todos, not by a timed unit test.)
        let other = try PlaceStore(url: url)
        let seen = await recorder.values.count
        try await other.run { try $0.rate(id, RatingChange(values: [.wifi: 4])) }
        #expect(await recorder.wait { $0.count > seen })
        #expect(await recorder.values.last?.first?.place.pinColor == .blue)
    }

    @Test func cancellingTheTaskEndsTheSequenceAndTheWatching() async throws {
        let store = try PlaceStore(url: temporaryPlaceStoreURL())
        let recorder = Recorder<[Place]>()
        let task = recorder.follow(store.observeAllPlaces())
        #expect(await recorder.wait { $0.count == 1 })
        #expect(store.store.changes.subscriberCount == 1)
        task.cancel()
        #expect(await recorder.waitUntilFinished())
        #expect(await recorder.failure == nil)
        #expect(await eventually { store.store.changes.subscriberCount == 0 })
    }

    @Test func aRemovedPlaceEndsItsObservationWithTheTypedError() async throws {
        let store = try PlaceStore.inMemory()
        let place = try await store.run { try $0.add(PlaceRecord(name: "My desk", type: .other, coordinate: berlin, origin: .user)) }
        let recorder = Recorder<Place>()
        let task = recorder.follow(store.observePlace(place.id))
        defer { task.cancel() }
        #expect(await recorder.wait { $0.count == 1 })
        try await store.run { try $0.remove(place.id) }
        #expect(await recorder.waitUntilFinished())
        #expect(await recorder.failure == .placeNotFound(place.id))
    }
}

@Suite struct TypedPlaceErrorTests {
    @Test func notFoundCarriesTheTypedID() throws {
        let store = try PlaceStore.inMemory()
        let missing: Place.ID = 7
        #expect(throws: WorkplaceError.placeNotFound(missing)) { try store.place(missing) }
        #expect(throws: WorkplaceError.placeNotFound(missing)) { try store.remove(missing) }
        #expect(WorkplaceError.placeNotFound(missing).description == "no place 7")
    }

    @Test func invalidTextCarriesTheFieldAndTheProblem() throws {
        let store = try PlaceStore.inMemory()
        func record(name: String = "Desk", address: String? = nil, phone: String? = nil) -> PlaceRecord {
            PlaceRecord(name: name, type: .other, coordinate: berlin, address: address, phone: phone, origin: .user)
        }
        #expect(throws: WorkplaceError.invalidText(InvalidText(field: .placeName, problem: .empty))) { try store.add(record(name: " ")) }
        #expect(throws: WorkplaceError.invalidText(InvalidText(field: .address, problem: .lineBreak))) { try store.add(record(address: "a\nb")) }
        #expect(throws: WorkplaceError.invalidText(InvalidText(field: .phoneNumber, problem: .tooLong(length: 101, limit: 100, bytes: false)))) {
            try store.add(record(phone: String(repeating: "1", count: 101)))
        }
        let place = try store.add(record())
        #expect(throws: WorkplaceError.invalidText(InvalidText(field: .placeNote, problem: .controlCharacter(0x07)))) {
            try store.rate(place.id, RatingChange(notes: "bell\u{7}"))
        }
        #expect(WorkplaceError.invalidText(InvalidText(field: .placeName, problem: .empty)).description == "the place name is empty")
    }

    @Test func noMessageNamesACommandAFlagOrAnEnvironmentVariable() {
        let errors: [WorkplaceError] = [
            .placeNotFound(1), .invalidCoordinate("x"), .invalidRating(dimension: "wifi", value: "9"),
            .invalidText(InvalidText(field: .placeNote, problem: .empty)), .invalidQuery("x"), .noLocation, .addressNotFound("x"),
            .missingAPIKey(provider: "Yelp"), .invalidAPIKey(provider: "Yelp"), .providerUnauthorized(provider: "Yelp", detail: "x"),
            .providerRateLimited(provider: "Yelp"), .providerUnavailable(provider: "Yelp", detail: "x"),
            .malformedImport(file: "f", reason: "r"), .store(StoreError(kind: .busy, path: "/x")),
        ]
        for error in errors {
            #expect(!error.description.contains("suite "), "\(error)")
            #expect(!error.description.contains("--"), "\(error)")
            #expect(!error.description.contains("API_KEY"), "\(error)")
        }
    }
}
