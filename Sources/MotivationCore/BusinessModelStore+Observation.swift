import Foundation
import SuiteStorage

// What a screen shows, as values that follow the store: each observation gives the current value
// at once, then a new value after every change that alters it: a write through this store at
// once, a write by another process (the `suite` CLI) or another store value on the same file
// within about 200 ms (see StoreObservation). Iterate in a task; cancelling the task ends it.

extension BusinessModelStore {
    /// A number that grows with every commit that changed this store — through this store, another
    /// store value on the same file or another process — for a screen that follows "something
    /// changed" without reading anything (it re-reads what it shows itself). Own commits arrive at
    /// once, other processes' within about 200 ms; commits in a burst may come as one value. The
    /// number means nothing beyond its growth, and a write that changed nothing gives none.
    public func observeChanges() -> StoreObservation<Int, MotivationError> {
        store.observeChanges()
    }

    /// The current model (nil when there is none), with its ``BusinessModel/completeness``.
    public func observeCurrent() -> StoreObservation<BusinessModel?, MotivationError> {
        store.observe { [self] () throws(MotivationError) in try currentIfAny() }
    }

    /// The current model's completeness only (nil when there is no model): a new value only when
    /// what is done or missing changes, not at every edit of a text.
    public func observeCurrentCompleteness() -> StoreObservation<Completeness?, MotivationError> {
        store.observe { [self] () throws(MotivationError) in try currentIfAny()?.completeness }
    }

    /// The model with that id. The sequence throws ``MotivationError/modelNotFound(_:)``, and
    /// ends, when the model is deleted.
    public func observeModel(_ id: BusinessModel.ID) -> StoreObservation<BusinessModel, MotivationError> {
        store.observe { [self] () throws(MotivationError) in try model(id) }
    }

    /// Every model with its percentage, by name, as `models()` lists them.
    public func observeModels() -> StoreObservation<[BusinessModelSummary], MotivationError> {
        store.observe { [self] () throws(MotivationError) in try models() }
    }

    /// Every saved version of a section, oldest first, as `history(of:in:)` lists them.
    public func observeHistory(of section: SectionID, in id: BusinessModel.ID) -> StoreObservation<[SectionVersion], MotivationError> {
        store.observe { [self] () throws(MotivationError) in try history(of: section, in: id) }
    }
}
