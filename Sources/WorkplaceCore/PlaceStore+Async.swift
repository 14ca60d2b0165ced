import Foundation
import SuiteStorage

/// `async` code's one way into the store. Every call of ``PlaceStore`` is written once, synchronously;
/// `async` code makes any of them through ``run(_:)-method``, which runs it on a background thread, so
/// SQLite, `fsync` and waiting for a busy store never block the calling actor or Swift's
/// cooperative threads:
///
/// ```swift
/// let nearby = try await store.run { try $0.near(query) }
/// ```
///
/// The closure's calls run together, one after another on one thread, and its result and error
/// come back as they are. A closure that says `throws(WorkplaceError)` keeps the error's type; one that
/// does not throws `any Error`, as Swift infers it.
extension PlaceStore {
    /// Runs `body` with this store on a background thread and returns what it returns.
    @discardableResult
    public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable (PlaceStore) throws(E) -> T) async throws(E) -> T {
        try await Background.run { [self] () throws(E) -> T in try body(self) }
    }

    /// Runs work that needs no open store (opening one, checking a file) on a background
    /// thread, as ``run(_:)-method`` does: `try await PlaceStore.run { try PlaceStore(url: url) }`.
    @discardableResult
    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        try await Background.run(body)
    }
}
