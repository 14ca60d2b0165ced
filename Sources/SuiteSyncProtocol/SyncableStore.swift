/// A store that syncs: every core's store is one (`BundleStore`, `PlaceStore`, `QuoteStore`,
/// `BusinessModelStore`). Hand the stores of a folder to `SuiteSync`'s `SyncClient`; an app
/// never calls anything here itself.
///
/// It lives in this small module (which every core already builds) so that a core needs
/// nothing of sync's networking or cryptography to be syncable.
public protocol SyncableStore: Sendable {
    /// What `SyncClient` syncs the store through; opaque outside the Suite package.
    var syncHandle: SyncHandle { get }
}

/// A store's sync engine, as `SyncClient` takes it: the name of its log on the server and
/// the engine itself (opaque outside the Suite package).
public struct SyncHandle: Sendable {
    /// The store's log on the server: `bmm`, `places`, `quotes` or `bundle`.
    public let log: String
    package let engine: any Sendable

    package init(log: String, engine: any Sendable) {
        self.log = log
        self.engine = engine
    }
}
