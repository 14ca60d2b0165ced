import Foundation
import SuiteStorage

// The store's reads and writes for async callers: each runs the synchronous method of the same
// name on a background thread (SQLite calls, fsync and waiting on another process block), so a
// screen's actor is never blocked. Same parameters, results and errors.

extension PlaceStore {
    /// `location()`, run off the caller's thread.
    public func location() async throws(WorkplaceError) -> CurrentLocation? {
        try await Background.run { [self] () throws(WorkplaceError) in try location() }
    }

    /// `setLocation(_:label:)`, run off the caller's thread.
    public func setLocation(_ coordinate: Coordinate, label: String? = nil) async throws(WorkplaceError) {
        try await Background.run { [self] () throws(WorkplaceError) in try setLocation(coordinate, label: label) }
    }

    /// `add(_:)`, run off the caller's thread.
    @discardableResult
    public func add(_ record: PlaceRecord) async throws(WorkplaceError) -> Place {
        try await Background.run { [self] () throws(WorkplaceError) in try add(record) }
    }

    /// `upsert(_:fetched:)`, run off the caller's thread.
    @discardableResult
    public func upsert(_ records: [PlaceRecord], fetched: Bool = true) async throws(WorkplaceError) -> PlaceImportSummary {
        try await Background.run { [self] () throws(WorkplaceError) in try upsert(records, fetched: fetched) }
    }

    /// `place(_:)`, run off the caller's thread.
    public func place(_ id: Place.ID) async throws(WorkplaceError) -> Place {
        try await Background.run { [self] () throws(WorkplaceError) in try place(id) }
    }

    /// `count()`, run off the caller's thread.
    public func count() async throws(WorkplaceError) -> Int {
        try await Background.run { [self] () throws(WorkplaceError) in try count() }
    }

    /// `allPlaces()`, run off the caller's thread.
    public func allPlaces() async throws(WorkplaceError) -> [Place] {
        try await Background.run { [self] () throws(WorkplaceError) in try allPlaces() }
    }

    /// `remove(_:)`, run off the caller's thread.
    public func remove(_ id: Place.ID) async throws(WorkplaceError) {
        try await Background.run { [self] () throws(WorkplaceError) in try remove(id) }
    }

    /// `rate(_:_:)`, run off the caller's thread.
    @discardableResult
    public func rate(_ id: Place.ID, _ change: RatingChange) async throws(WorkplaceError) -> Place {
        try await Background.run { [self] () throws(WorkplaceError) in try rate(id, change) }
    }

    /// `near(_:)`, run off the caller's thread.
    public func near(_ query: PlaceQuery) async throws(WorkplaceError) -> [NearbyPlace] {
        try await Background.run { [self] () throws(WorkplaceError) in try near(query) }
    }

    /// `importFile(_:name:)`, run off the caller's thread.
    public func importFile(_ data: Data, name: String) async throws(WorkplaceError) -> PlaceImportSummary {
        try await Background.run { [self] () throws(WorkplaceError) in try importFile(data, name: name) }
    }
}
