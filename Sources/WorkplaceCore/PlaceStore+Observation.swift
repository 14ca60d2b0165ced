import Foundation
import SuiteStorage

// What a screen shows, as values that follow the store: each observation gives the current value
// at once, then a new value after every change that alters it: a write through this store at
// once, a write by another process (the `suite` CLI) or another store value on the same file
// within about 200 ms (see StoreObservation). Iterate in a task; cancelling the task ends it.

extension PlaceStore {
    /// A number that grows with every commit that changed this store — through this store, another
    /// store value on the same file or another process — for a screen that follows "something
    /// changed" without reading anything (it re-reads what it shows itself). Own commits arrive at
    /// once, other processes' within about 200 ms; commits in a burst may come as one value. The
    /// number means nothing beyond its growth, and a write that changed nothing gives none.
    public func observeChanges() -> StoreObservation<Int, WorkplaceError> {
        store.observeChanges()
    }

    /// The places near a point with their pins, as `near(_:)` finds them for `query`: a new
    /// value when a place, rating, note or pin colour in the answer changes, or a place enters or
    /// leaves it. "Open now" is evaluated at `query.now`; observe again with a new query to move
    /// the time, the point or the filters.
    public func observeNear(_ query: PlaceQuery) -> StoreObservation<[NearbyPlace], WorkplaceError> {
        store.observe { [self] () throws(WorkplaceError) in try near(query) }
    }

    /// The stored current location, or nil when none is set.
    public func observeLocation() -> StoreObservation<CurrentLocation?, WorkplaceError> {
        store.observe { [self] () throws(WorkplaceError) in try location() }
    }

    /// The place with that id, with its rating and pin. The sequence throws
    /// ``WorkplaceError/placeNotFound(_:)``, and ends, when the place is removed.
    public func observePlace(_ id: Place.ID) -> StoreObservation<Place, WorkplaceError> {
        store.observe { [self] () throws(WorkplaceError) in try place(id) }
    }

    /// Every place, by number, as `allPlaces()` lists them.
    public func observeAllPlaces() -> StoreObservation<[Place], WorkplaceError> {
        store.observe { [self] () throws(WorkplaceError) in try allPlaces() }
    }
}
