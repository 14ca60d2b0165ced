import Foundation
import GRDB

/// Tells observers that a store changed.
///
/// - A commit made through this process's ``Store`` is signalled at once, when it returns.
/// - A commit made by any other connection (another process such as the `suite` CLI, or another
///   `Store` value on the same file) is seen by polling SQLite's `PRAGMA data_version` on a
///   dedicated read-only connection: its value changes whenever another connection commits to the
///   file. The poll runs every ``pollInterval`` only while something observes the store, reads
///   the shared WAL index only, and writes nothing.
///
/// Everything here runs on GCD queues of its own (a timer, and each observer's serial queue), not
/// on Swift's cooperative threads: an observation keeps up even when the process's tasks keep
/// those threads busy.
///
/// GRDB's `ValueObservation` is not used because it sees only writes made through the same
/// `DatabaseWriter`, never another process's.
package final class ChangeSignal: @unchecked Sendable {
    /// How often another connection's commits are looked for.
    package static let pollInterval: DispatchTimeInterval = .milliseconds(200)

    private let path: String?
    private let busyTimeout: TimeInterval
    private let probe: (@Sendable () -> Int?)?
    private let lock = NSLock()
    // Guarded by `lock`.
    private var subscribers: [UUID: @Sendable () -> Void] = [:]
    private var poller: Poller?
    private var signalled = 0
    private var polled = 0

    /// `path` is the store file, or nil for a store no other connection can see (in memory).
    /// `probe`, when given, reads `PRAGMA data_version` on the connection this process writes
    /// with: its value moves only with other connections' commits, so a commit of this process is
    /// signalled once (by ``notify()``), not a second time by the poll. Without it the poll reads
    /// on a connection of its own (a store opened read-only, which commits nothing itself).
    package init(path: String?, busyTimeout: TimeInterval, probe: (@Sendable () -> Int?)? = nil) {
        self.path = path
        self.busyTimeout = busyTimeout
        self.probe = probe
    }

    deinit { poller?.stop() }

    /// How many changes were signalled so far.
    package var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return signalled
    }

    /// How many times other connections' commits were looked for (for tests).
    package var pollCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return polled
    }

    fileprivate func countPoll() {
        lock.lock()
        polled += 1
        lock.unlock()
    }

    /// Signals every subscriber (after a commit by this process).
    package func notify() {
        lock.lock()
        signalled += 1
        let callbacks = Array(subscribers.values)
        lock.unlock()
        for callback in callbacks { callback() }
    }

    /// Calls `onChange` after every change (from any thread; changes in a burst may come as one
    /// call) until the returned token's subscription is ended with ``unsubscribe(_:)``.
    package func subscribe(_ onChange: @escaping @Sendable () -> Void) -> UUID {
        let id = UUID()
        lock.lock()
        subscribers[id] = onChange
        if poller == nil, let path { poller = Poller(path: path, busyTimeout: busyTimeout, probe: probe, signal: self) }
        lock.unlock()
        return id
    }

    package func unsubscribe(_ id: UUID) {
        lock.lock()
        subscribers[id] = nil
        var stopped: Poller?
        if subscribers.isEmpty {
            stopped = poller
            poller = nil
        }
        lock.unlock()
        stopped?.stop()
    }

    /// Observers at the moment (for tests).
    package var subscriberCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribers.count
    }

    /// Reads `PRAGMA data_version` every ``pollInterval`` (through the probe, else on a read-only
    /// connection of its own), and signals when it changes.
    private final class Poller: @unchecked Sendable {
        private let queue = DispatchQueue(label: "suite.store.poll", qos: .utility)
        private let timer: DispatchSourceTimer
        private let probe: (@Sendable () -> Int?)?
        // Used on `queue` only.
        private var connection: DatabaseQueue?
        private var last: Int?

        init(path: String, busyTimeout: TimeInterval, probe: (@Sendable () -> Int?)?, signal: ChangeSignal) {
            timer = DispatchSource.makeTimerSource(queue: queue)
            self.probe = probe
            queue.async { [self] in
                if probe == nil {
                    var config = Configuration()
                    config.readonly = true
                    config.busyMode = .timeout(busyTimeout)
                    connection = try? DatabaseQueue(path: path, configuration: config)
                }
                last = version()
            }
            timer.schedule(deadline: .now() + pollInterval, repeating: pollInterval, leeway: .milliseconds(20))
            timer.setEventHandler { [weak self, weak signal] in
                guard let self, let signal else { return }
                defer { signal.countPoll() }
                // A failed read (the store closed) is no change.
                guard let current = version() else { return }
                if current != last {
                    last = current
                    signal.notify()
                }
            }
            timer.resume()
        }

        private func version() -> Int? {
            if let probe { return probe() }
            return try? connection?.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        }

        func stop() {
            timer.cancel()
            queue.async { [self] in
                try? connection?.close()
                connection = nil
            }
        }
    }
}

/// The values of one query over a store, as an `AsyncSequence`: the current value at once, then
/// a new value after every change that alters it (see `ChangeSignal` in SuiteStorage for how
/// changes of other processes arrive). Equal consecutive values are given once; when changes come
/// faster than values are taken, the newest value is kept.
///
/// The sequence ends when the task iterating it is cancelled; it throws, and ends, when a fetch
/// fails. Each iterator observes on its own; fetches run on a GCD queue of the iterator's own.
public struct StoreObservation<Element: Sendable & Equatable, Failure: Error & Sendable>: AsyncSequence, Sendable {
    private let signal: ChangeSignal
    private let fetch: @Sendable () throws(Failure) -> Element

    package init(signal: ChangeSignal, fetch: @escaping @Sendable () throws(Failure) -> Element) {
        self.signal = signal
        self.fetch = fetch
    }

    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<Element, Failure>.self, bufferingPolicy: .bufferingNewest(1))
        let run = Run(fetch: fetch, continuation: continuation)
        // Subscribed before the first fetch, so no change after it is missed.
        let token = signal.subscribe { run.changed() }
        let signal = signal
        continuation.onTermination = { _ in
            signal.unsubscribe(token)
            run.stop()
        }
        run.changed()
        return Iterator(base: stream.makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Result<Element, Failure>>.Iterator

        public mutating func next() async throws(Failure) -> Element? {
            guard let result = await base.next() else { return nil }
            return try result.get()
        }
    }

    /// One iterator's fetching: on a serial queue, one fetch at a time; a change signalled while
    /// a fetch is waiting to run adds nothing (that fetch sees it).
    private final class Run: @unchecked Sendable {
        private let queue = DispatchQueue(label: "suite.store.observation", qos: .userInitiated)
        private let fetch: @Sendable () throws(Failure) -> Element
        private let continuation: AsyncStream<Result<Element, Failure>>.Continuation
        private let lock = NSLock()
        // Guarded by `lock`.
        private var scheduled = false
        private var stopped = false
        // Used on `queue` only.
        private var last: Element?

        init(fetch: @escaping @Sendable () throws(Failure) -> Element, continuation: AsyncStream<Result<Element, Failure>>.Continuation) {
            self.fetch = fetch
            self.continuation = continuation
        }

        func changed() {
            lock.lock()
            let schedule = !scheduled && !stopped
            if schedule { scheduled = true }
            lock.unlock()
            guard schedule else { return }
            queue.async { [self] in
                lock.lock()
                scheduled = false
                let done = stopped
                lock.unlock()
                if !done { deliver() }
            }
        }

        func stop() {
            lock.lock()
            stopped = true
            lock.unlock()
        }

        private func deliver() {
            do throws(Failure) {
                let value = try fetch()
                if value != last {
                    last = value
                    continuation.yield(.success(value))
                }
            } catch {
                continuation.yield(.failure(error))
                continuation.finish()
                stop()
            }
        }
    }
}
