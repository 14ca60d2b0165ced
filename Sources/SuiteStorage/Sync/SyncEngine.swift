import SuiteSyncProtocol

/// What sync does with one store, whatever its core: the engine behind a ``SyncHandle``.
package protocol SyncEngine: Sendable {
    /// Turns sync on (capturing changes from now on, and those made before as one first batch).
    func enable() throws
    /// The changes waiting to be sent.
    func pendingCount() throws -> Int
    /// Texts that lost to a concurrent edit, newest first.
    func conflicts(limit: Int) throws -> [SyncConflict]
    /// Operations from the server that could not be used.
    func setAside(limit: Int) throws -> [SyncSetAside]
    func setAsideCount() throws -> Int
    /// Pushes and pulls until the store has everything the server has; with `compact`, compacts
    /// the log at the end even when the server did not ask.
    func sync(_ log: String, _ transport: any SyncTransport, _ codec: any SyncCodec, compact: Bool) async throws -> SyncOutcome
}

/// The engine of a core's ``Store``.
package struct StoreSyncEngine<Failure: StoreFailureRepresentable & Sendable>: SyncEngine {
    package let store: Store<Failure>

    package init(store: Store<Failure>) {
        self.store = store
    }

    package func enable() throws {
        if try !store.syncIsEnabled() { try store.syncEnable() }
    }

    package func pendingCount() throws -> Int { try store.syncPendingCount() }

    package func conflicts(limit: Int) throws -> [SyncConflict] { try store.syncConflicts(limit: limit) }

    package func setAside(limit: Int) throws -> [SyncSetAside] { try store.syncSetAside(limit: limit) }

    package func setAsideCount() throws -> Int { try store.syncSetAsideCount() }

    package func sync(_ log: String, _ transport: any SyncTransport, _ codec: any SyncCodec, compact: Bool) async throws -> SyncOutcome {
        var session = SyncSession(store: store, log: log, transport: transport, codec: codec)
        session.compactsAlways = compact
        return try await session.run()
    }
}

extension SyncHandle {
    /// A handle on a core's store.
    package init<Failure: StoreFailureRepresentable & Sendable>(log: String, store: Store<Failure>) {
        self.init(log: log, engine: StoreSyncEngine(store: store))
    }

    /// The engine (every handle is made by a core with ``init(log:store:)``).
    package var syncEngine: (any SyncEngine)? { engine as? any SyncEngine }
}
