import BundleCore
import Foundation
import QuoteCore
import SuiteHTTP
import SuiteStorage
import SuiteSync
import SuiteSyncProtocol
import SuiteTestSupport
import SuiteURLSession
import Testing

/// `SyncClient` as an app uses it: its own stores, URLSession, a real HTTP server on loopback.
@Suite struct SyncClientTests {
    /// A device: a folder with a bundle store, joined to the loopback server's account.
    struct Device {
        let folder: URL
        let todos: BundleStore
        let client: SyncClient

        init(_ server: LoopbackSyncServer, dataKey: Data, events: (any SyncServerEvents)? = nil) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            todos = try BundleStore(url: folder.appendingPathComponent(BundleStore.fileName))
            try SyncAccount(server: server.baseURL, account: "ada", deviceID: UUID().uuidString, token: "token", dataKey: dataKey).save(in: folder)
            client = SyncClient(folder: folder, stores: [todos], http: URLSessionHTTPClient(), events: events)
        }

        func texts() async throws -> [String] { try await todos.run { try $0.todos(includeFinished: true) }.map(\.text).sorted() }
    }

    static func pair() async throws -> (LoopbackSyncServer, Device, Device) {
        let server = try await LoopbackSyncServer()
        let key = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        return (server, try Device(server, dataKey: key), try Device(server, dataKey: key))
    }

    @Test func twoDevicesSyncThroughURLSession() async throws {
        let (server, laptop, phone) = try await Self.pair()
        defer { Task { await server.stop() } }
        try await laptop.todos.run { try $0.addTodo("Buy stamps", event: nil, preposition: .none) }
        #expect(try await laptop.client.status().stores.map(\.pending) == [0], "sync is turned on by the first sync")

        let sent = try await laptop.client.sync()
        #expect(sent.stores.map(\.log) == ["bundle"] && sent.stores[0].sent > 0 && sent.setAside == 0)
        let received = try await phone.client.sync()
        #expect(received.stores[0].received > 0)
        #expect(try await phone.texts() == ["Buy stamps"])

        // What waits is counted; the status says where it goes and when it last worked.
        try await phone.todos.run { try $0.addTodo("Water the plant", event: nil, preposition: .none) }
        let status = try await phone.client.status()
        #expect(status.isSyncing && status.account == "ada" && status.server == server.baseURL)
        #expect(status.stores.first?.pending ?? 0 > 0 && status.lastSuccess != nil && status.lastError == nil)
        _ = try await phone.client.sync()
        _ = try await laptop.client.sync()
        #expect(try await laptop.texts() == ["Buy stamps", "Water the plant"])
        #expect(try await phone.client.status().stores.first?.pending == 0)
    }

    @Test func watchBringsAChangeAndEndsWhenTheFolderStopsSyncing() async throws {
        let (server, laptop, phone) = try await Self.pair()
        defer { Task { await server.stop() } }
        let events = phone.client.watch(every: .milliseconds(200))
        let received = Task {
            var kinds: [SyncEvent.Kind] = []
            var got = false
            for try await event in events {
                kinds.append(event.kind)
                if event.kind == .synced, (event.report?.stores.first?.received ?? 0) > 0 { got = true }
                if got, try await phone.texts().contains("Sign the lease") {
                    // Logged out elsewhere: the watch ends by itself.
                    SyncAccount.remove(from: phone.folder)
                }
            }
            return (kinds, got)
        }
        try await laptop.todos.run { try $0.addTodo("Sign the lease", event: nil, preposition: .none) }
        _ = try await laptop.client.sync()
        let (kinds, got) = try await withTimeout(.seconds(60)) { try await received.value }
        #expect(kinds.first == .watching)
        #expect(got, "the watching device received the change")
        #expect(try await phone.texts() == ["Sign the lease"])
    }

    @Test func aServerThatCannotBeReachedIsAFailureTheWatchRetries() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let todos = try BundleStore(url: folder.appendingPathComponent(BundleStore.fileName))
        try SyncAccount(server: URL(string: "http://127.0.0.1:9")!, account: "ada", deviceID: "d", token: "t", dataKey: Data(count: 32)).save(in: folder)
        let client = SyncClient(folder: folder, stores: [todos], http: URLSessionHTTPClient())
        try await todos.run { try $0.addTodo("Queued", event: nil, preposition: .none) }
        await #expect { try await client.sync() } throws: { ($0 as? SyncError)?.code == .unreachable }
        #expect(try await client.status().lastError?.contains("cannot reach the sync server") == true)
        #expect(try await client.status().stores.first?.pending ?? 0 > 0, "the change stays queued")

        var iterator = client.watch(every: .milliseconds(100)).makeAsyncIterator()
        #expect(try await iterator.next()?.kind == .watching)
        let failed = try await iterator.next()
        #expect(failed?.kind == .failed && failed?.error?.code == .unreachable && failed?.retryIn != nil)
    }

    /// A store's engine that notes whether each read ran on the store queue.
    struct NotingStore: SyncableStore {
        final class Engine: SyncEngine, @unchecked Sendable {
            let lock = NSLock()
            var onQueue: [Bool] = []
            func note() { lock.withLock { onQueue.append(Background.isCurrent) } }
            func enable() throws { note() }
            func pendingCount() throws -> Int { note(); return 0 }
            func conflicts(limit: Int) throws -> [SyncConflict] { note(); return [] }
            func setAside(limit: Int) throws -> [SyncSetAside] { note(); return [] }
            func setAsideCount() throws -> Int { note(); return 0 }
            func sync(_ log: String, _ transport: any SyncTransport, _ codec: any SyncCodec, compact: Bool) async throws -> SyncOutcome { SyncOutcome() }
        }
        let engine = Engine()
        var syncHandle: SyncHandle { SyncHandle(log: "toy", engine: engine as any SyncEngine) }
    }

    @Test func theStatusReadsTheStoresOnTheStoreQueue() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)", isDirectory: true)
        let store = NotingStore()
        let status = try await SyncClient(folder: folder, stores: [store], http: RecordingHTTPClient()).status()
        #expect(!status.isSyncing && status.stores.map(\.log) == ["toy"])
        let noted = store.engine.lock.withLock { store.engine.onQueue }
        #expect(noted.count == 3 && noted.allSatisfy { $0 }, "pending, conflicts and set-aside read on the store queue: \(noted)")
    }

    @Test func badInputIsRefusedBeforeAnyRequest() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-client-\(UUID().uuidString)", isDirectory: true)
        let recorder = RecordingHTTPClient()
        let client = SyncClient(folder: folder, stores: [], http: recorder)
        let server = URL(string: "http://127.0.0.1:9")!
        await #expect { try await client.signUp(server: server, account: "ada", password: "short", device: "d") } throws: { ($0 as? SyncError)?.code == .badInput }
        await #expect { try await client.recover(server: server, account: "ada", recoveryKey: "not a key", newPassword: "long enough", device: "d") } throws: {
            ($0 as? SyncError)?.code == .badInput
        }
        await #expect { try await client.recover(server: server, account: "ada", recoveryKey: String(repeating: "ab", count: 32), newPassword: "short", device: "d") } throws: {
            ($0 as? SyncError)?.message == "the new password is shorter than 8 characters"
        }
        await #expect { try await client.sync() } throws: { ($0 as? SyncError)?.code == .notSyncing }
        await #expect { try await client.changePassword(current: "long enough", new: "also long") } throws: { ($0 as? SyncError)?.code == .notSyncing }
        #expect(try await client.status().isSyncing == false)
        #expect(recorder.count == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    /// Every store of a kind once: a second store of the same kind is ignored.
    @Test func eachStoreKindSyncsOnce() async throws {
        let (server, laptop, _) = try await Self.pair()
        defer { Task { await server.stop() } }
        let quotes = try QuoteStore(url: laptop.folder.appendingPathComponent(QuoteStore.fileName))
        let client = SyncClient(folder: laptop.folder, stores: [laptop.todos, quotes, laptop.todos], http: URLSessionHTTPClient())
        #expect(try await client.status().stores.map(\.log) == ["bundle", "quotes"])
        #expect(try await client.sync().stores.map(\.log) == ["bundle", "quotes"])
    }
}

/// Counts requests and answers none.
final class RecordingHTTPClient: HTTPClient, @unchecked Sendable {
    private let lock = NSLock()
    private var sent = 0
    var count: Int { lock.withLock { sent } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { sent += 1 }
        throw HTTPClientError.failed("no network in this test")
    }
}

/// The body's result, or a failure after `limit`.
func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw CancellationError()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
