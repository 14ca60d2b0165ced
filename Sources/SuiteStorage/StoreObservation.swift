import Foundation
import GRDB

/// Tells observers that a store changed.
///
/// - A commit made through this process's ``Store`` is signalled at once, when it returns.
/// - A commit made by any other connection (another process such as the `suite` CLI, or another
///   `Store` value on the same file) is seen by polling SQLite's `PRAGMA data_version` on a
///   dedicated read-only connection: its value changes whenever another connection commits to the
///   file. The poll runs every ``pollInterval`` only while something observes the store, costs one
///   read of the shared WAL index, and writes nothing.
///
/// GRDB's `ValueObservation` is not used because it sees only writes made through the same
/// `DatabaseWriter`, never another process's.
package final class ChangeSignal: @unchecked Sendable {
    /// How often another connection's commits are looked for.
    package static let pollInterval: Duration = .milliseconds(200)

    private let path: String?
    private let busyTimeout: TimeInterval
    private let lock = NSLock()
    // Guarded by `lock`.
    private var subscribers: [UUID: AsyncStream<Void>.Continuation] = [:]
    private var poller: Task<Void, Never>?

    /// `path` is the store file, or nil for a store no other connection can see (in memory).
    package init(path: String?, busyTimeout: TimeInterval) {
        self.path = path
        self.busyTimeout = busyTimeout
    }

    deinit { poller?.cancel() }

    /// Signals every subscriber (after a commit by this process).
    package func notify() {
        lock.lock()
        let continuations = Array(subscribers.values)
        lock.unlock()
        for continuation in continuations { continuation.yield() }
    }

    /// A stream with one element per change (changes in a burst may be coalesced into one),
    /// until the consuming task is cancelled.
    package func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        lock.lock()
        subscribers[id] = continuation
        if poller == nil, let path { poller = Self.startPolling(path: path, busyTimeout: busyTimeout, signal: self) }
        lock.unlock()
        return stream
    }

    private func unsubscribe(_ id: UUID) {
        lock.lock()
        subscribers[id] = nil
        if subscribers.isEmpty {
            poller?.cancel()
            poller = nil
        }
        lock.unlock()
    }

    /// Observers at the moment (for tests).
    package var subscriberCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribers.count
    }

    private static func startPolling(path: String, busyTimeout: TimeInterval, signal: ChangeSignal) -> Task<Void, Never> {
        Task.detached { [weak signal] in
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(busyTimeout)
            guard let connection = try? DatabaseQueue(path: path, configuration: config) else { return }
            defer { try? connection.close() }
            func version() -> Int? {
                try? connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
            }
            var last = version()
            while !Task.isCancelled {
                do { try await Task.sleep(for: pollInterval) } catch { return }
                let current = version()
                if current != last {
                    last = current
                    guard let signal else { return }
                    signal.notify()
                }
            }
        }
    }
}

/// The values of one query over a store, as an `AsyncSequence`: the current value at once, then
/// a new value after every change that alters it (see `ChangeSignal` for how changes of other
/// processes arrive). Equal consecutive values are given once.
///
/// The sequence ends when the task iterating it is cancelled; it throws, and ends, when a fetch
/// fails. Each iterator observes on its own.
public struct StoreObservation<Element: Sendable & Equatable, Failure: Error & Sendable>: AsyncSequence, Sendable {
    private let signal: ChangeSignal
    private let fetch: @Sendable () throws(Failure) -> Element

    package init(signal: ChangeSignal, fetch: @escaping @Sendable () throws(Failure) -> Element) {
        self.signal = signal
        self.fetch = fetch
    }

    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<Element, Failure>.self, bufferingPolicy: .bufferingNewest(1))
        let signal = signal, fetch = fetch
        let producer = Task.detached {
            // Subscribed before the first fetch, so no change after it is missed.
            let changes = signal.subscribe()
            var last: Element?
            func deliver() async -> Bool {
                do throws(Failure) {
                    let value = try await Background.run(fetch)
                    if value != last {
                        last = value
                        continuation.yield(.success(value))
                    }
                    return true
                } catch {
                    continuation.yield(.failure(error))
                    continuation.finish()
                    return false
                }
            }
            guard await deliver() else { return }
            for await _ in changes {
                if Task.isCancelled { break }
                guard await deliver() else { return }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in producer.cancel() }
        return Iterator(base: stream.makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Result<Element, Failure>>.Iterator

        public mutating func next() async throws(Failure) -> Element? {
            guard let result = await base.next() else { return nil }
            return try result.get()
        }
    }
}
