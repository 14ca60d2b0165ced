import Dispatch

/// Runs blocking store work (SQLite calls, `fsync`, waiting on a lock) on a GCD thread, so that an
/// `async` caller's actor and Swift's cooperative threads are never blocked by it.
///
/// The work goes to a queue of our own, not to a global queue: GCD gives a queue of our own a
/// thread even when the global queues' threads (as many as cores) are all busy or blocked, so
/// store work never waits behind unrelated blocking work in the same process.
package enum Background {
    package static let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "suite.store", qos: .userInitiated, attributes: .concurrent)
        queue.setSpecific(key: key, value: true)
        return queue
    }()

    private static let key = DispatchSpecificKey<Bool>()

    /// Whether the calling code runs on ``queue`` (for tests: store work never runs on the
    /// caller's actor or Swift's cooperative threads).
    package static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) ?? false }

    package static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        try await run(on: queue, body)
    }

    /// Runs work on a given queue (a serial queue of one's own gets a thread of its own from
    /// GCD, whatever else is busy).
    package static func run<T: Sendable, E: Error>(on queue: DispatchQueue, _ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let work = Work(body)
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: work.run())
            }
        }
        return try result.get()
    }

    /// The work, let go of as soon as it has run: what it captured (a store, say) is released
    /// before the caller resumes, not later on the GCD thread. A program that ends right after
    /// its last `await` (the CLI) still closes its store, checkpointing the write-ahead log.
    private final class Work<T, E: Error>: @unchecked Sendable {
        private var body: (@Sendable () throws(E) -> T)?

        init(_ body: @escaping @Sendable () throws(E) -> T) { self.body = body }

        /// Runs once, on one thread.
        func run() -> Result<T, E> {
            guard let body else { preconditionFailure("the work runs once") } // programmer error
            self.body = nil
            return Result { () throws(E) -> T in try body() }
        }
    }
}
