import Foundation
import SuiteStorage

/// The values screens show, kept current: each observation gives the value at once, then again
/// whenever a change to the store alters it. Iterate with `for try await`; cancelling the
/// iterating task ends the observation.
extension BundleStore {
    /// A number that grows with every commit that changed this store — through this store, another
    /// store value on the same file or another process — for a screen that follows "something
    /// changed" without reading anything (it re-reads what it shows itself). Own commits arrive at
    /// once, other processes' within about 200 ms; commits in a burst may come as one value. The
    /// number means nothing beyond its growth, and a write that changed nothing gives none.
    public func observeChanges() -> StoreObservation<Int, BundleError> {
        store.observeChanges()
    }

    /// The todos `todos(event:includeFinished:)` returns, now and after every change.
    public func observeTodos(event: String? = nil, includeFinished: Bool = false) -> StoreObservation<[Todo], BundleError> {
        store.observe { [self] () throws(BundleError) -> [Todo] in try todos(event: event, includeFinished: includeFinished) }
    }

    /// The summaries `todoSummaries(event:includeFinished:)` returns, now and after every change:
    /// for a list screen.
    public func observeTodoSummaries(event: String? = nil, includeFinished: Bool = false) -> StoreObservation<[TodoSummary], BundleError> {
        store.observe { [self] () throws(BundleError) -> [TodoSummary] in try todoSummaries(event: event, includeFinished: includeFinished) }
    }

    /// The open bundle being worked through (the newest open one), or nil when there is none;
    /// now and after every change.
    public func observeCurrentBundle() -> StoreObservation<TodoBundle?, BundleError> {
        store.observe { [self] () throws(BundleError) -> TodoBundle? in try openBundles().first }
    }

    /// One bundle, now and after every change.
    public func observeBundle(_ id: TodoBundle.ID) -> StoreObservation<TodoBundle, BundleError> {
        store.observe { [self] () throws(BundleError) -> TodoBundle in try bundle(id) }
    }

    /// Completed bundles, as `review(event:from:to:)` returns them, now and after every change.
    public func observeReview(event: String? = nil, from: Date? = nil, to: Date? = nil) -> StoreObservation<[TodoBundle], BundleError> {
        store.observe { [self] () throws(BundleError) -> [TodoBundle] in try review(event: event, from: from, to: to) }
    }

    /// The events with their activity, now and after every change.
    public func observeEvents(includeArchived: Bool = false) -> StoreObservation<[EventActivity], BundleError> {
        store.observe { [self] () throws(BundleError) -> [EventActivity] in try activity(includeArchived: includeArchived) }
    }
}
