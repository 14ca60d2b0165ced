import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import BundleCore

/// The values an observation gives, collected by a task of their own (an app's screen would
/// show each as it comes).
final class Collected<Value: Sendable & Equatable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Value] = []
    private var failure: BundleError?
    private var task: Task<Void, Never>?

    init(_ observation: StoreObservation<Value, BundleError>) {
        task = Task { [self] in
            do {
                for try await value in observation { lock.withLock { storage.append(value) } }
            } catch {
                lock.withLock { failure = error as? BundleError }
            }
        }
    }

    deinit { task?.cancel() }

    var values: [Value] { lock.withLock { storage } }
    var error: BundleError? { lock.withLock { failure } }
    func cancel() { task?.cancel() }
}

@Suite struct InMemoryStoreTests {
    @Test func anInMemoryStoreHasTheSchemaAndTouchesNoFile() throws {
        let store = try BundleStore.inMemory()
        #expect(store.path == ":memory:")
        let todo = try store.addTodo("Buy stamps", event: "go to the post office", preposition: .before)
        #expect(todo.id == 1)
        #expect(try store.todos().map(\.text) == ["Buy stamps"])
        let bundle = try store.checkIn(event: "go to the post office", direction: .aboutTo, todoIDs: [todo.id], timeZone: utc)
        #expect(try store.markDone(todo.id).bundle?.id == bundle.id)
        // Two in-memory stores are two databases.
        #expect(try BundleStore.inMemory().todos().isEmpty)
    }
}

@Suite struct AsyncAPITests {
    @Test func everyCallHasAnAsyncFormOnTheSameStore() async throws {
        let store = try BundleStore.inMemory()
        let todo = try await store.run { try $0.addTodo("Water the plant", event: "come back from work", preposition: .after) }
        #expect(try await store.run({ try $0.todo(todo.id) }).text == "Water the plant")
        let edited = try await store.run { try $0.editTodo(todo.id, notes: "the big one") }
        #expect(edited.notes == "the big one")
        let bundle = try await store.run { try $0.checkIn(event: "come back from work", direction: .justFinished, todoIDs: [todo.id], timeZone: utc) }
        let done = try await store.run { try $0.markDone(todo.id, bundle: bundle.id) }
        #expect(done.todo.status == .done)
        #expect(try await store.run({ try $0.complete(bundle.id) }).status == .completed)
        #expect(try await store.run({ try $0.review() }).map(\.id) == [bundle.id])
    }

    @Test func theSeamRunsOnTheStoresQueueAndKeepsTypedErrors() async throws {
        let store = try BundleStore.inMemory()
        #expect(!Background.isCurrent)
        #expect(try await store.run { _ in Background.isCurrent })
        #expect(try await BundleStore.run { Background.isCurrent })
        do {
            try await store.run { s throws(BundleError) in try s.todo(42) }
            Issue.record("found a todo in an empty store")
        } catch .todoNotFound {
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func opensAFileStoreWithoutBlockingTheCaller() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bundle-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await BundleStore.open(at: folder.appendingPathComponent(BundleStore.fileName))
        try await store.run { try $0.addTodo("Renew passport", event: nil, preposition: .none) }
        #expect(try await store.run({ try $0.todos() }).count == 1)
    }
}

@Suite struct TypedErrorTests {
    @Test func errorsCarryTypedValues() throws {
        let store = try BundleStore.inMemory()
        #expect(throws: BundleError.todoNotFound(42)) { try store.todo(42) }
        #expect(throws: BundleError.invalidText(InvalidText(field: .todoText, problem: .empty))) {
            try store.addTodo("   ", event: nil, preposition: .none)
        }
        #expect(throws: BundleError.invalidText(InvalidText(field: .eventPhrase, problem: .lineBreak))) {
            try store.addTodo("x", event: "two\nlines", preposition: .before)
        }
        do {
            _ = try store.addTodo(String(repeating: "a", count: BundleStore.maximumTextLength + 1), event: nil, preposition: .none)
            Issue.record("an over-long text must be refused")
        } catch {
            #expect(error == .invalidText(InvalidText(field: .todoText, problem: .tooLong(length: BundleStore.maximumTextLength + 1,
                                                                                          limit: BundleStore.maximumTextLength, bytes: true))))
        }
        let todo = try store.addTodo("x", event: nil, preposition: .none)
        try store.finishTodo(todo.id, as: .dropped)
        #expect(throws: BundleError.conflict(.todoDropped(todo.id))) { try store.markDone(todo.id) }
        #expect(throws: BundleError.noOpenBundle) { try store.currentBundle() }
    }

    @Test func aStoreFailureKeepsItsKind() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bundle-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(BundleStore.fileName)
        try Data("not a database, just text that is long enough to be read as a header".utf8).write(to: url)
        do {
            _ = try BundleStore(url: url)
            Issue.record("a damaged store must be refused")
        } catch {
            guard case .store(let failure) = error else { Issue.record("unexpected \(error)"); return }
            #expect(failure.kind == .damaged)
            #expect(failure.path == url.standardizedFileURL.path)
        }
    }
}

@Suite struct ObservationTests {
    @Test func givesTheCurrentValueAtOnceThenEachChangeInThisProcess() async throws {
        let store = try BundleStore.inMemory()
        let seen = Collected(store.observeTodos())
        #expect(await eventually { seen.values.map { $0.map(\.text) } == [[]] })
        let todo = try await store.run { try $0.addTodo("Buy stamps", event: nil, preposition: .none) }
        #expect(await eventually { seen.values.map { $0.map(\.text) } == [[], ["Buy stamps"]] })
        try await store.run { try $0.editTodo(todo.id, text: "Buy stamps and envelopes") }
        #expect(await eventually { seen.values.last?.map(\.text) == ["Buy stamps and envelopes"] })
        #expect(seen.values.count == 3)
    }

    @Test func seesWritesOfAnotherConnectionToTheFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bundle-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(BundleStore.fileName)
        let watcher = try BundleStore(url: url, readOnly: true)
        // Another connection, as another process would have: its commits never pass through
        // `watcher`, so only the polled data_version can tell.
        let writer = try BundleStore(url: url)
        let todos = Collected(watcher.observeTodos())
        let current = Collected(watcher.observeCurrentBundle())
        #expect(await eventually { todos.values.count == 1 && current.values.count == 1 })
        try await writer.run { try $0.addTodo("From elsewhere", event: "go out", preposition: .before) }
        #expect(await eventually { todos.values.last?.map(\.text) == ["From elsewhere"] })
        try await writer.run { try $0.checkIn(event: "go out", direction: .aboutTo, todoIDs: [1], timeZone: utc) }
        #expect(await eventually { current.values.last??.items.map(\.todo.text) == ["From elsewhere"] })
        #expect(current.values.first == .some(nil))
    }

    @Test func cancellingTheTaskEndsTheObservation() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bundle-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try BundleStore(url: folder.appendingPathComponent(BundleStore.fileName))
        let task = Task {
            var values = 0
            for try await _ in store.observeTodos() { values += 1 }
            return values
        }
        #expect(await eventually { store.store.changes.subscriberCount == 1 })
        task.cancel()
        let values = try await task.value
        #expect(values <= 1)
        #expect(await eventually { store.store.changes.subscriberCount == 0 })
    }

    @Test func equalValuesAreGivenOnce() async throws {
        let store = try BundleStore.inMemory()
        try await store.run { try $0.addTodo("a", event: "e", preposition: .before) }
        let seen = Collected(store.observeTodos(event: "e"))
        #expect(await eventually { seen.values.count == 1 })
        // A change that does not alter the observed value gives nothing new, and the next one that
        // does is given: values come in commit order, so once that one is here, the first gave none.
        try await store.run { try $0.addEvent("another event") }
        try await store.run { try $0.addTodo("b", event: "e", preposition: .before) }
        #expect(await eventually { seen.values.last?.count == 2 })
        #expect(seen.values.map(\.count) == [1, 2])
    }

    @Test func changesGiveOneValuePerCommitAndNoneForAWriteThatChangedNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bundle-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(BundleStore.fileName)
        let store = try BundleStore(url: url)
        let seen = Collected(store.observeChanges())
        #expect(await eventually { seen.values.count == 1 })
        try await store.run { try $0.addTodo("a", event: nil, preposition: .none) }
        #expect(await eventually { seen.values.count == 2 })
        try store.store.write { _ in }
        try await store.run { try $0.addTodo("b", event: nil, preposition: .none) }
        #expect(await eventually { seen.values.count == 3 })
        // The poll, which reads the file's data_version, must not signal this store's own
        // commits a second time: two polls later, still two signals.
        let polls = store.store.changes.pollCount
        #expect(await eventually { store.store.changes.pollCount >= polls + 2 })
        #expect(store.store.changes.count == 2)
        #expect(seen.values.count == 3)
        // Another connection's commit (another process's, say) is one more.
        let other = try BundleStore(url: url)
        try await other.run { try $0.addTodo("c", event: nil, preposition: .none) }
        #expect(await eventually { seen.values.count == 4 })
        #expect(store.store.changes.count == 3)
    }

    @Test func aFailingFetchEndsTheSequenceWithTheError() async throws {
        let store = try BundleStore.inMemory()
        let seen = Collected(store.observeTodos(event: "no such event"))
        #expect(await eventually { seen.error != nil })
        #expect(seen.error == .unknownEvent("no such event", suggestions: []))
        #expect(seen.values.isEmpty)
    }
}
