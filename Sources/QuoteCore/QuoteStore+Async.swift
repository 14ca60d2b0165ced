import Foundation
import SuiteStorage

/// The store's calls for `async` code: each runs its synchronous namesake on a background thread
/// (SQLite, `fsync` and waiting for a busy store never block the calling actor), with the same
/// parameters, result and errors. In an `async` context Swift picks these; `await` them.
extension QuoteStore {
    /// Runs `body` with this store on a background thread.
    private func inBackground<T: Sendable>(_ body: @escaping @Sendable (QuoteStore) throws(QuoteError) -> T) async throws(QuoteError) -> T {
        try await Background.run { [self] () throws(QuoteError) -> T in try body(self) }
    }

    // MARK: Quotes

    /// ``add(_:source:kind:categories:citation:)``, off the calling actor.
    @discardableResult
    public func add(_ text: String, source: String? = nil, kind: SourceKind = .person, categories: [String] = [],
                    citation: String? = nil) async throws(QuoteError) -> Quote {
        try await inBackground { store throws(QuoteError) in try store.add(text, source: source, kind: kind, categories: categories, citation: citation) }
    }

    /// ``removeQuote(_:)``, off the calling actor.
    @discardableResult
    public func removeQuote(_ id: Quote.ID) async throws(QuoteError) -> Quote {
        try await inBackground { store throws(QuoteError) in try store.removeQuote(id) }
    }

    /// ``editQuote(_:text:source:)``, off the calling actor.
    @discardableResult
    public func editQuote(_ id: Quote.ID, text: String? = nil, source: String? = nil) async throws(QuoteError) -> Quote {
        try await inBackground { store throws(QuoteError) in try store.editQuote(id, text: text, source: source) }
    }

    /// ``quote(_:)``, off the calling actor.
    public func quote(_ id: Quote.ID) async throws(QuoteError) -> Quote {
        try await inBackground { store throws(QuoteError) in try store.quote(id) }
    }

    /// ``count()``, off the calling actor.
    public func count() async throws(QuoteError) -> Int {
        try await inBackground { store throws(QuoteError) in try store.count() }
    }

    /// ``isEmpty()``, off the calling actor.
    public func isEmpty() async throws(QuoteError) -> Bool {
        try await inBackground { store throws(QuoteError) in try store.isEmpty() }
    }

    /// ``categories()``, off the calling actor.
    public func categories() async throws(QuoteError) -> [NameCount] {
        try await inBackground { store throws(QuoteError) in try store.categories() }
    }

    /// ``sources(limit:)``, off the calling actor.
    public func sources(limit: Int? = nil) async throws(QuoteError) -> [NameCount] {
        try await inBackground { store throws(QuoteError) in try store.sources(limit: limit) }
    }

    /// ``browse(_:user:limit:offset:)``, off the calling actor.
    public func browse(_ filter: QuoteFilter, user: String, limit: Int = 50, offset: Int = 0) async throws(QuoteError) -> [Quote] {
        try await inBackground { store throws(QuoteError) in try store.browse(filter, user: user, limit: limit, offset: offset) }
    }

    /// ``allQuotes()``, off the calling actor.
    public func allQuotes() async throws(QuoteError) -> [Quote] {
        try await inBackground { store throws(QuoteError) in try store.allQuotes() }
    }

    // MARK: Picking and search

    /// ``random(_:user:)``, off the calling actor.
    public func random(_ filter: QuoteFilter = QuoteFilter(), user: String) async throws(QuoteError) -> Quote {
        try await inBackground { store throws(QuoteError) in try store.random(filter, user: user) }
    }

    /// ``quoteOfTheDay(year:month:day:)``, off the calling actor.
    public func quoteOfTheDay(year: Int, month: Int, day: Int) async throws(QuoteError) -> Quote {
        try await inBackground { store throws(QuoteError) in try store.quoteOfTheDay(year: year, month: month, day: day) }
    }

    /// ``todaysQuote(year:month:day:user:)``, off the calling actor.
    public func todaysQuote(year: Int, month: Int, day: Int, user: String) async throws(QuoteError) -> TodaysQuote? {
        try await inBackground { store throws(QuoteError) in try store.todaysQuote(year: year, month: month, day: day, user: user) }
    }

    /// ``similar(to:limit:)``, off the calling actor.
    public func similar(to id: Quote.ID, limit: Int = 5) async throws(QuoteError) -> [Quote] {
        try await inBackground { store throws(QuoteError) in try store.similar(to: id, limit: limit) }
    }

    /// ``search(_:filter:user:limit:markers:)``, off the calling actor.
    public func search(
        _ query: String, filter: QuoteFilter = QuoteFilter(), user: String, limit: Int = 20,
        markers: (open: String, close: String) = ("[", "]")
    ) async throws(QuoteError) -> [SearchHit] {
        let (open, close) = markers
        return try await inBackground { store throws(QuoteError) in try store.search(query, filter: filter, user: user, limit: limit, markers: (open, close)) }
    }

    // MARK: Favourites and notes

    /// ``favorite(_:user:)``, off the calling actor.
    @discardableResult
    public func favorite(_ id: Quote.ID, user: String) async throws(QuoteError) -> Bool {
        try await inBackground { store throws(QuoteError) in try store.favorite(id, user: user) }
    }

    /// ``unfavorite(_:user:)``, off the calling actor.
    @discardableResult
    public func unfavorite(_ id: Quote.ID, user: String) async throws(QuoteError) -> Bool {
        try await inBackground { store throws(QuoteError) in try store.unfavorite(id, user: user) }
    }

    /// ``favorites(user:)``, off the calling actor.
    public func favorites(user: String) async throws(QuoteError) -> [Quote] {
        try await inBackground { store throws(QuoteError) in try store.favorites(user: user) }
    }

    /// ``works(by:)``, off the calling actor.
    public func works(by author: String) async throws(QuoteError) -> [CitedWork] {
        try await inBackground { store throws(QuoteError) in try store.works(by: author) }
    }

    /// ``addNotToDo(_:category:user:)``, off the calling actor.
    @discardableResult
    public func addNotToDo(_ text: String, category: String? = nil, user: String) async throws(QuoteError) -> NotToDo {
        try await inBackground { store throws(QuoteError) in try store.addNotToDo(text, category: category, user: user) }
    }

    /// ``notToDos(user:)``, off the calling actor.
    public func notToDos(user: String) async throws(QuoteError) -> [NotToDo] {
        try await inBackground { store throws(QuoteError) in try store.notToDos(user: user) }
    }

    /// ``editNotToDo(_:text:category:user:)``, off the calling actor.
    @discardableResult
    public func editNotToDo(_ id: NotToDo.ID, text: String? = nil, category: String?? = nil, user: String) async throws(QuoteError) -> NotToDo {
        try await inBackground { store throws(QuoteError) in try store.editNotToDo(id, text: text, category: category, user: user) }
    }

    /// ``removeNotToDo(_:user:)``, off the calling actor.
    @discardableResult
    public func removeNotToDo(_ id: NotToDo.ID, user: String) async throws(QuoteError) -> NotToDo {
        try await inBackground { store throws(QuoteError) in try store.removeNotToDo(id, user: user) }
    }

    /// ``skip(_:user:)``, off the calling actor.
    @discardableResult
    public func skip(_ id: Quote.ID, user: String) async throws(QuoteError) -> Bool {
        try await inBackground { store throws(QuoteError) in try store.skip(id, user: user) }
    }

    /// ``unskip(_:user:)``, off the calling actor.
    @discardableResult
    public func unskip(_ id: Quote.ID, user: String) async throws(QuoteError) -> Bool {
        try await inBackground { store throws(QuoteError) in try store.unskip(id, user: user) }
    }

    /// ``skipped(user:)``, off the calling actor.
    public func skipped(user: String) async throws(QuoteError) -> [Quote] {
        try await inBackground { store throws(QuoteError) in try store.skipped(user: user) }
    }

    /// ``tailoredRandom(_:user:)``, off the calling actor.
    public func tailoredRandom(_ filter: QuoteFilter = QuoteFilter(), user: String) async throws(QuoteError) -> Quote {
        try await inBackground { store throws(QuoteError) in try store.tailoredRandom(filter, user: user) }
    }

    /// ``top(limit:)``, off the calling actor.
    public func top(limit: Int = 10) async throws(QuoteError) -> [Quote] {
        try await inBackground { store throws(QuoteError) in try store.top(limit: limit) }
    }

    /// ``addNote(_:on:user:)``, off the calling actor.
    @discardableResult
    public func addNote(_ text: String, on id: Quote.ID, user: String) async throws(QuoteError) -> Note {
        try await inBackground { store throws(QuoteError) in try store.addNote(text, on: id, user: user) }
    }

    /// ``notes(on:user:)``, off the calling actor.
    public func notes(on id: Quote.ID? = nil, user: String) async throws(QuoteError) -> [Note] {
        try await inBackground { store throws(QuoteError) in try store.notes(on: id, user: user) }
    }

    /// ``editNote(_:text:user:)``, off the calling actor.
    @discardableResult
    public func editNote(_ noteID: Note.ID, text: String, user: String) async throws(QuoteError) -> Note {
        try await inBackground { store throws(QuoteError) in try store.editNote(noteID, text: text, user: user) }
    }

    /// ``deleteNote(_:user:)``, off the calling actor.
    public func deleteNote(_ noteID: Note.ID, user: String) async throws(QuoteError) {
        try await inBackground { store throws(QuoteError) in try store.deleteNote(noteID, user: user) }
    }

    // MARK: Schedule and deliveries

    /// ``schedule(user:)``, off the calling actor.
    public func schedule(user: String) async throws(QuoteError) -> Schedule? {
        try await inBackground { store throws(QuoteError) in try store.schedule(user: user) }
    }

    /// ``setSchedule(_:user:)``, off the calling actor.
    public func setSchedule(_ schedule: Schedule?, user: String) async throws(QuoteError) {
        try await inBackground { store throws(QuoteError) in try store.setSchedule(schedule, user: user) }
    }

    /// ``due(now:user:)``, off the calling actor.
    public func due(now: Date, user: String) async throws(QuoteError) -> Date? {
        try await inBackground { store throws(QuoteError) in try store.due(now: now, user: user) }
    }

    /// ``previewDue(now:user:channel:)``, off the calling actor.
    public func previewDue(now: Date, user: String, channel: String) async throws(QuoteError) -> Delivery? {
        try await inBackground { store throws(QuoteError) in try store.previewDue(now: now, user: user, channel: channel) }
    }

    /// ``deliverDue(now:user:channel:)``, off the calling actor.
    public func deliverDue(now: Date, user: String, channel: String) async throws(QuoteError) -> Delivery? {
        try await inBackground { store throws(QuoteError) in try store.deliverDue(now: now, user: user, channel: channel) }
    }

    /// ``history(user:since:before:limit:)``, off the calling actor.
    public func history(user: String, since: Date? = nil, before: Date? = nil, limit: Int = 100) async throws(QuoteError) -> [Delivery] {
        try await inBackground { store throws(QuoteError) in try store.history(user: user, since: since, before: before, limit: limit) }
    }

    // MARK: Filling the store

    /// ``installStarterCollection()``, off the calling actor.
    @discardableResult
    public func installStarterCollection() async throws(QuoteError) -> Int {
        try await inBackground { store throws(QuoteError) in try store.installStarterCollection() }
    }

    /// ``needsStarterCollection()``, off the calling actor.
    public func needsStarterCollection() async throws(QuoteError) -> Bool {
        try await inBackground { store throws(QuoteError) in try store.needsStarterCollection() }
    }

    /// ``addStarterCollectionIfEmpty()``, off the calling actor.
    @discardableResult
    public func addStarterCollectionIfEmpty() async throws(QuoteError) -> Int {
        try await inBackground { store throws(QuoteError) in try store.addStarterCollectionIfEmpty() }
    }

    /// ``importFiles(_:format:progress:)``, off the calling actor.
    @discardableResult
    public func importFiles(_ urls: [URL], format: QuoteImportFormat, progress: (@Sendable (Int) -> Void)? = nil) async throws(QuoteError) -> QuoteImportSummary {
        try await inBackground { store throws(QuoteError) in try store.importFiles(urls, format: format, progress: progress) }
    }

    /// ``importData(_:name:format:progress:)``, off the calling actor.
    @discardableResult
    public func importData(_ data: Data, name: String, format: QuoteImportFormat, progress: (@Sendable (Int) -> Void)? = nil) async throws(QuoteError) -> QuoteImportSummary {
        try await inBackground { store throws(QuoteError) in try store.importData(data, name: name, format: format, progress: progress) }
    }

    /// ``checkIntegrity(at:busyTimeout:)``, off the calling actor.
    public static func checkIntegrity(at url: URL, busyTimeout: TimeInterval = 10) async throws(QuoteError) -> [String] {
        try await Background.run { () throws(QuoteError) -> [String] in try checkIntegrity(at: url, busyTimeout: busyTimeout) }
    }
}

extension QuoteImportFormat {
    /// ``detect(_:)``, off the calling actor (it reads the first bytes of every file).
    public static func detect(_ urls: [URL]) async throws(QuoteError) -> QuoteImportFormat {
        try await Background.run { () throws(QuoteError) -> QuoteImportFormat in try detect(urls) }
    }
}
