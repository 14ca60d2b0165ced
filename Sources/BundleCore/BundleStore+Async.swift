import Foundation
import SuiteStorage

/// The store for apps: every call `async`, run on a background thread so that the caller's actor
/// never waits for SQLite, an `fsync` or another process's lock; and observations of what
/// screens show. Each call is the synchronous method of the same name underneath.
extension BundleStore {
    private func run<T: Sendable>(_ body: @escaping @Sendable () throws(BundleError) -> T) async throws(BundleError) -> T {
        try await Background.run(body)
    }

    // MARK: - Observation

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

    // MARK: - Todos

    @discardableResult
    public func addTodo(
        _ text: String, event: String?, preposition: Preposition, deadline: Deadline? = nil,
        notes: String = "", allowNewEvent: Bool = false, links: [String] = [], files: [URL] = []
    ) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in
            try addTodo(text, event: event, preposition: preposition, deadline: deadline, notes: notes, allowNewEvent: allowNewEvent,
                         links: links, files: files)
        }
    }

    public func todo(_ id: Todo.ID) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in try todo(id) }
    }

    public func todo(uuidPrefix prefix: String) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in try todo(uuidPrefix: prefix) }
    }

    public func todos(
        event: String? = nil, includeFinished: Bool = false, order: TodoOrder = .byEvent, limit: Int? = nil, offset: Int = 0
    ) async throws(BundleError) -> [Todo] {
        try await run { [self] () throws(BundleError) -> [Todo] in
            try todos(event: event, includeFinished: includeFinished, order: order, limit: limit, offset: offset)
        }
    }

    public func todoCount(event: String? = nil, includeFinished: Bool = false) async throws(BundleError) -> Int {
        try await run { [self] () throws(BundleError) -> Int in try todoCount(event: event, includeFinished: includeFinished) }
    }

    public func todoSummaries(event: String? = nil, includeFinished: Bool = false) async throws(BundleError) -> [TodoSummary] {
        try await run { [self] () throws(BundleError) -> [TodoSummary] in try todoSummaries(event: event, includeFinished: includeFinished) }
    }

    @discardableResult
    public func moveTodo(_ id: Todo.ID, event: String?, preposition: Preposition?, allowNewEvent: Bool = false) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in try moveTodo(id, event: event, preposition: preposition, allowNewEvent: allowNewEvent) }
    }

    @discardableResult
    public func setDeadline(_ id: Todo.ID, to deadline: Deadline?) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in try setDeadline(id, to: deadline) }
    }

    @discardableResult
    public func editTodo(_ id: Todo.ID, text: String? = nil, notes: String? = nil) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in try editTodo(id, text: text, notes: notes) }
    }

    @discardableResult
    public func removeTodo(_ id: Todo.ID) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in try removeTodo(id) }
    }

    @discardableResult
    public func reopenTodo(_ id: Todo.ID) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in try reopenTodo(id) }
    }

    @discardableResult
    public func finishTodo(_ id: Todo.ID, as status: TodoStatus) async throws(BundleError) -> Todo {
        try await run { [self] () throws(BundleError) -> Todo in try finishTodo(id, as: status) }
    }

    public func dueSoon(within interval: TimeInterval, timeZone: TimeZone) async throws(BundleError) -> [Todo] {
        try await run { [self] () throws(BundleError) -> [Todo] in try dueSoon(within: interval, timeZone: timeZone) }
    }

    public func takeReminders(within interval: TimeInterval, quiet: TimeInterval = 86_400, timeZone: TimeZone) async throws(BundleError) -> [Todo] {
        try await run { [self] () throws(BundleError) -> [Todo] in try takeReminders(within: interval, quiet: quiet, timeZone: timeZone) }
    }

    /// ``addLink(_:to:)``, off the calling actor.
    @discardableResult
    public func addLink(_ text: String, to todoID: Todo.ID) async throws(BundleError) -> TodoAttachment {
        try await run { [self] () throws(BundleError) -> TodoAttachment in try addLink(text, to: todoID) }
    }

    /// ``attachFile(at:to:)``, off the calling actor.
    @discardableResult
    public func attachFile(at url: URL, to todoID: Todo.ID) async throws(BundleError) -> TodoAttachment {
        try await run { [self] () throws(BundleError) -> TodoAttachment in try attachFile(at: url, to: todoID) }
    }

    /// ``attachments(of:)``, off the calling actor.
    public func attachments(of todoID: Todo.ID) async throws(BundleError) -> [TodoAttachment] {
        try await run { [self] () throws(BundleError) -> [TodoAttachment] in try attachments(of: todoID) }
    }

    /// ``removeAttachment(_:)``, off the calling actor.
    @discardableResult
    public func removeAttachment(_ id: TodoAttachment.ID) async throws(BundleError) -> TodoAttachment {
        try await run { [self] () throws(BundleError) -> TodoAttachment in try removeAttachment(id) }
    }

    /// ``saveRoutine(named:fromBundle:)``, off the calling actor.
    @discardableResult
    public func saveRoutine(named name: String, fromBundle bundleID: TodoBundle.ID) async throws(BundleError) -> Routine {
        try await run { [self] () throws(BundleError) -> Routine in try saveRoutine(named: name, fromBundle: bundleID) }
    }

    /// ``routines()``, off the calling actor.
    public func routines() async throws(BundleError) -> [Routine] {
        try await run { [self] () throws(BundleError) -> [Routine] in try routines() }
    }

    /// ``removeRoutine(named:)``, off the calling actor.
    @discardableResult
    public func removeRoutine(named name: String) async throws(BundleError) -> Routine {
        try await run { [self] () throws(BundleError) -> Routine in try removeRoutine(named: name) }
    }

    /// ``checkIn(event:direction:routine:title:icon:timeZone:)``, off the calling actor.
    @discardableResult
    public func checkIn(event phrase: String, direction: CheckInDirection, routine name: String, title: String? = nil,
                        icon: String? = nil, timeZone: TimeZone) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in
            try checkIn(event: phrase, direction: direction, routine: name, title: title, icon: icon, timeZone: timeZone)
        }
    }

    /// ``importCalendarEvents(_:timeZone:)``, off the calling actor.
    @discardableResult
    public func importCalendarEvents(_ data: Data, timeZone: TimeZone) async throws(BundleError) -> CalendarImportSummary {
        try await run { [self] () throws(BundleError) -> CalendarImportSummary in try importCalendarEvents(data, timeZone: timeZone) }
    }

    /// ``upcoming(within:)``, off the calling actor.
    public func upcoming(within interval: TimeInterval) async throws(BundleError) -> [EventOccurrence] {
        try await run { [self] () throws(BundleError) -> [EventOccurrence] in try upcoming(within: interval) }
    }

    /// ``takeEventReminders(within:)``, off the calling actor.
    public func takeEventReminders(within interval: TimeInterval) async throws(BundleError) -> [EventOccurrence] {
        try await run { [self] () throws(BundleError) -> [EventOccurrence] in try takeEventReminders(within: interval) }
    }

    // MARK: - Check-ins and bundles

    public func offer(event phrase: String, direction: CheckInDirection, timeZone: TimeZone) async throws(BundleError) -> (event: TriggerEvent, todos: [Todo]) {
        try await run { [self] () throws(BundleError) -> (event: TriggerEvent, todos: [Todo]) in try offer(event: phrase, direction: direction, timeZone: timeZone) }
    }

    public func checkInListing(event phrase: String, direction: CheckInDirection, timeZone: TimeZone) async throws(BundleError) -> (event: TriggerEvent, todos: [Todo]) {
        try await run { [self] () throws(BundleError) -> (event: TriggerEvent, todos: [Todo]) in
            try checkInListing(event: phrase, direction: direction, timeZone: timeZone)
        }
    }

    @discardableResult
    public func checkIn(
        event phrase: String, direction: CheckInDirection, todoIDs: [Todo.ID], title: String? = nil,
        icon: String? = nil, timeZone: TimeZone
    ) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in
            try checkIn(event: phrase, direction: direction, todoIDs: todoIDs, title: title, icon: icon, timeZone: timeZone)
        }
    }

    public func bundle(_ id: TodoBundle.ID) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try bundle(id) }
    }

    public func bundle(uuid: UUID) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try bundle(uuid: uuid) }
    }

    public func openBundles() async throws(BundleError) -> [TodoBundle] {
        try await run { [self] () throws(BundleError) -> [TodoBundle] in try openBundles() }
    }

    public func currentBundle() async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try currentBundle() }
    }

    @discardableResult
    public func markDone(_ todoID: Todo.ID, in bundleID: TodoBundle.ID) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try markDone(todoID, in: bundleID) }
    }

    @discardableResult
    public func markDone(_ todoID: Todo.ID, bundle: TodoBundle.ID? = nil) async throws(BundleError) -> (todo: Todo, bundle: TodoBundle?) {
        try await run { [self] () throws(BundleError) -> (todo: Todo, bundle: TodoBundle?) in try markDone(todoID, bundle: bundle) }
    }

    @discardableResult
    public func throwBack(_ todoID: Todo.ID, in bundleID: TodoBundle.ID) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try throwBack(todoID, in: bundleID) }
    }

    @discardableResult
    public func pull(_ todoID: Todo.ID, into bundleID: TodoBundle.ID) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try pull(todoID, into: bundleID) }
    }

    @discardableResult
    public func renameBundle(_ bundleID: TodoBundle.ID, to title: String) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try renameBundle(bundleID, to: title) }
    }

    @discardableResult
    public func setIcon(_ bundleID: TodoBundle.ID, to icon: String) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try setIcon(bundleID, to: icon) }
    }

    @discardableResult
    public func complete(_ bundleID: TodoBundle.ID) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try complete(bundleID) }
    }

    @discardableResult
    public func abandon(_ bundleID: TodoBundle.ID) async throws(BundleError) -> TodoBundle {
        try await run { [self] () throws(BundleError) -> TodoBundle in try abandon(bundleID) }
    }

    public func review(event: String? = nil, from: Date? = nil, to: Date? = nil, latest limit: Int? = nil, skipping offset: Int = 0) async throws(BundleError) -> [TodoBundle] {
        try await run { [self] () throws(BundleError) -> [TodoBundle] in try review(event: event, from: from, to: to, latest: limit, skipping: offset) }
    }

    public func reviewCount(event: String? = nil) async throws(BundleError) -> Int {
        try await run { [self] () throws(BundleError) -> Int in try reviewCount(event: event) }
    }

    // MARK: - Events

    public func events(includeArchived: Bool = false) async throws(BundleError) -> [TriggerEvent] {
        try await run { [self] () throws(BundleError) -> [TriggerEvent] in try events(includeArchived: includeArchived) }
    }

    public func event(matching phrase: String) async throws(BundleError) -> TriggerEvent {
        try await run { [self] () throws(BundleError) -> TriggerEvent in try event(matching: phrase) }
    }

    @discardableResult
    public func addEvent(_ name: String) async throws(BundleError) -> TriggerEvent {
        try await run { [self] () throws(BundleError) -> TriggerEvent in try addEvent(name) }
    }

    @discardableResult
    public func renameEvent(_ phrase: String, to newName: String) async throws(BundleError) -> TriggerEvent {
        try await run { [self] () throws(BundleError) -> TriggerEvent in try renameEvent(phrase, to: newName) }
    }

    @discardableResult
    public func addAlias(_ alias: String, to phrase: String) async throws(BundleError) -> TriggerEvent {
        try await run { [self] () throws(BundleError) -> TriggerEvent in try addAlias(alias, to: phrase) }
    }

    @discardableResult
    public func mergeEvent(_ source: String, into target: String) async throws(BundleError) -> TriggerEvent {
        try await run { [self] () throws(BundleError) -> TriggerEvent in try mergeEvent(source, into: target) }
    }

    @discardableResult
    public func archiveEvent(_ phrase: String, archived: Bool = true) async throws(BundleError) -> TriggerEvent {
        try await run { [self] () throws(BundleError) -> TriggerEvent in try archiveEvent(phrase, archived: archived) }
    }

    public func activity(includeArchived: Bool = false) async throws(BundleError) -> [EventActivity] {
        try await run { [self] () throws(BundleError) -> [EventActivity] in try activity(includeArchived: includeArchived) }
    }

    // MARK: - Interchange

    public func export(_ format: InterchangeFormat, timeZone: TimeZone) async throws(BundleError) -> Data {
        try await run { [self] () throws(BundleError) -> Data in try export(format, timeZone: timeZone) }
    }

    public func importData(_ data: Data, format: InterchangeFormat, timeZone: TimeZone) async throws(BundleError) -> ImportSummary {
        try await run { [self] () throws(BundleError) -> ImportSummary in try importData(data, format: format, timeZone: timeZone) }
    }

    @discardableResult
    public func importFile(at url: URL, format: InterchangeFormat, timeZone: TimeZone) async throws(BundleError) -> ImportSummary {
        try await run { [self] () throws(BundleError) -> ImportSummary in try importFile(at: url, format: format, timeZone: timeZone) }
    }
}
