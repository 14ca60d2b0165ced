import Dispatch

/// Runs blocking store work (SQLite calls, `fsync`, waiting on a lock) on a GCD thread, so that an
/// `async` caller's actor and Swift's cooperative threads are never blocked by it.
package enum Background {
    package static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(E) -> T in try body() })
            }
        }
        return try result.get()
    }
}
