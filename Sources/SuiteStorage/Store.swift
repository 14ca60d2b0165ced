import Foundation
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An SQLite feature a store relies on.
package enum SQLiteFeature: String, Sendable, CaseIterable {
    case fts5 = "FTS5 full-text search"
    case rtree = "R*Tree spatial indexes"

    var compileOption: String {
        switch self {
        case .fts5: return "ENABLE_FTS5"
        case .rtree: return "ENABLE_RTREE"
        }
    }
}

/// How a store keeps its connections to its file.
package enum StoreConnections: Sendable {
    /// A pool of read-only connections beside the write connection: reads run while a write
    /// does. For apps and anything that lives long or works on several threads.
    case pooled
    /// One connection for reads and writes: half the opening work, for one short command on one
    /// thread.
    case single
    /// ``single``, and the connection is left open when the store goes away: the process ends
    /// right after the command, and ending it is what closes the connection. Closing would
    /// checkpoint the write-ahead log into the file with two `fsync`s and remove the log, which
    /// the next command would create again with two more; the log stays instead (every commit is
    /// in it, synced as its durability asks), SQLite recovers it when the next process opens the
    /// store, and the log is copied into the file and emptied whenever it passes
    /// ``StoreOpening/shortLogPages`` (``StoreOpening/truncateLongLogs(_:busyTimeout:)``).
    case singleUntilExit
}

/// How stores opened by the current task keep their connections (a task-local value, so a test
/// that runs a command in-process affects no other test).
package enum StoreOpening {
    @TaskLocal package static var connections: StoreConnections = .pooled

    /// The log size (in pages) past which a commit of a ``StoreConnections/singleUntilExit``
    /// connection checkpoints and empties the log: the next process reads the whole log when it
    /// opens the store (about a microsecond a page), and a checkpoint costs a few `fsync`s.
    package static let shortLogPages: Int32 = 64

    /// Makes every commit on `connection` that leaves the log longer than ``shortLogPages`` copy
    /// it into the store file and truncate it (`wal_checkpoint(TRUNCATE)`), without waiting for
    /// other connections (when one is using the log, a passive checkpoint copies what it can, and
    /// the log is emptied by a later commit or by the last connection to close).
    ///
    /// SQLite's own automatic checkpoint is passive: it leaves the log's pages in place, to be
    /// overwritten by the next write of the same connection. A connection that is never closed
    /// leaves them to the next process, whose recovery takes them all as new: the log then grew
    /// by a page at every `quotes random`, and each start read all of it.
    static func truncateLongLogs(_ connection: OpaquePointer?, busyTimeout: TimeInterval) {
        // The busy timeout travels as the context pointer (in milliseconds, plus one so it is never 0).
        let context = UnsafeMutableRawPointer(bitPattern: Int(min(max(busyTimeout, 0), 3600) * 1000) + 1)
        sqlite3_wal_hook(connection, { context, connection, schema, pages in
            guard pages > StoreOpening.shortLogPages else { return SQLITE_OK }
            sqlite3_busy_timeout(connection, 0)
            defer { sqlite3_busy_timeout(connection, Int32(Int(bitPattern: context) - 1)) }
            if sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_TRUNCATE, nil, nil) == SQLITE_BUSY {
                _ = sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            // The commit is done whatever the checkpoint did.
            return SQLITE_OK
        }, context)
    }

    /// Connections left open until the process exits (``StoreConnections/singleUntilExit``): held
    /// here so that they are never deallocated (deallocating one would close it).
    private static let kept = KeptConnections()

    static func keepUntilExit(_ queue: DatabaseQueue) {
        kept.append(queue)
    }

    private final class KeptConnections: @unchecked Sendable {
        private let lock = NSLock()
        private var queues: [DatabaseQueue] = []

        func append(_ queue: DatabaseQueue) {
            lock.lock()
            queues.append(queue)
            lock.unlock()
        }
    }
}

/// What a core says about its store when it opens it.
package struct StoreConfiguration: Sendable {
    /// Written to `PRAGMA application_id` when the store is created and checked on every open,
    /// so that a database of another application is refused rather than migrated.
    package var applicationID: Int32
    /// How long to wait for another process that holds the store or its lock.
    package var busyTimeout: TimeInterval
    /// SQLite features checked at open.
    package var requiredFeatures: [SQLiteFeature]
    /// The tables that sync, when the store's migrations installed a ``SyncLedger`` for them:
    /// every write then records its changes before it commits.
    package var sync: SyncSchema?
    /// The wall clock that sync's hybrid clock reads.
    package var clock: @Sendable () -> Date

    package init(
        applicationID: Int32, busyTimeout: TimeInterval = 10, requiredFeatures: [SQLiteFeature] = [],
        sync: SyncSchema? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.applicationID = applicationID
        self.busyTimeout = busyTimeout
        self.requiredFeatures = requiredFeatures
        self.sync = sync
        self.clock = clock
    }
}

/// A store file opened safely: a WAL database with `synchronous=FULL` and a busy timeout, created
/// with mode 0600, migrated under an exclusive `flock` on `<store>.lock`. Reads go through a
/// read-only GRDB `DatabasePool`; writes through one write connection (a `DatabaseQueue`).
///
/// Opening writes nothing to an existing, current store: the write connection is opened without
/// GRDB's WAL set-up (which creates and drops a table whenever the log is empty, moving the
/// header's change counter and schema cookie), because the file is in WAL mode already. So a
/// write refused before it commits (bad input, a failed check inside the transaction) leaves
/// the file byte-for-byte as it was.
///
/// A file that is not a healthy database of this store's kind, or that a newer schema wrote, is
/// refused with an error naming its path, and is never deleted, renamed or rewritten.
package final class Store<Failure: StoreFailureRepresentable>: Sendable {
    /// Read connections (read-only); for a store in memory, the one connection.
    private let readers: any DatabaseReader
    /// The write connection; nil for a store opened read-only.
    private let writer: DatabaseQueue?
    /// The store file's path (`:memory:` for a store in memory).
    package let path: String
    /// Signals commits, for observation.
    package let changes: ChangeSignal
    /// The synced tables, if any (see ``SyncLedger``).
    package let sync: SyncSchema?
    /// The wall clock sync reads.
    package let clock: @Sendable () -> Date
    /// Whether the connections stay open when the store goes away (``StoreConnections/singleUntilExit``).
    private let keptOpen: Bool

    private init(readers: any DatabaseReader, writer: DatabaseQueue?, path: String, configuration: StoreConfiguration, keptOpen: Bool = false) {
        self.readers = readers
        self.writer = writer
        self.path = path
        self.sync = configuration.sync
        self.clock = configuration.clock
        self.keptOpen = keptOpen
        // Another process can change a store file (observation polls it), not a store in memory.
        // Polled on the write connection when there is one, so that this process's own commits
        // are signalled once, not again by the poll.
        var probe: (@Sendable () -> Int?)?
        if let writer {
            probe = { @Sendable () -> Int? in
                do {
                    return try writer.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
                } catch {
                    return nil
                }
            }
        }
        self.changes = ChangeSignal(path: path == ":memory:" ? nil : path, busyTimeout: configuration.busyTimeout, probe: probe)
    }

    /// A new, empty store in memory, with the same migrations and checks as a store file: for
    /// previews and tests. Nothing is written to disk and no other process can see it.
    package static func inMemory(migrator: DatabaseMigrator, configuration: StoreConfiguration) throws(Failure) -> Store {
        let path = ":memory:"
        do {
            if let missing = configuration.requiredFeatures.first(where: { sqlite3_compileoption_used($0.compileOption) == 0 }) {
                throw StoreFailure.missingFeature(path: path, feature: missing.rawValue)
            }
            var config = Configuration()
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
                if configuration.requiredFeatures.contains(.fts5) { try FTS5Ranking.register(db) }
            }
            let queue = try DatabaseQueue(configuration: config)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA application_id = \(configuration.applicationID)")
            }
            try migrator.migrate(queue)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(schemaVersion(of: migrator))") }
            return Store(readers: queue, writer: queue, path: path, configuration: configuration)
        } catch let failure as StoreFailure {
            throw Failure(storeFailure: failure)
        } catch let error as DatabaseError {
            throw Failure(storeFailure: .classify(error, path: path))
        } catch {
            throw Failure(storeFailure: .unavailable(path: path, reason: "\(error)"))
        }
    }

    deinit {
        if keptOpen { return }
        // Readers first, so that the writer is the last connection and checkpoints the log
        // into the file as it closes.
        if writer !== (readers as AnyObject) { try? readers.close() }
        try? writer?.close()
    }

    /// Opens (creating it when missing) the store at `url` and runs `migrator` on it.
    ///
    /// With `readOnly`, a store that exists and needs no migration is opened with read-only
    /// connections only: a query costs no disk writes and no `fsync`. Writes through such a store
    /// fail.
    ///
    /// - Throws: `Failure` built from a ``StoreFailure``.
    package static func open(
        at url: URL, migrator: DatabaseMigrator, configuration: StoreConfiguration, readOnly: Bool = false
    ) throws(Failure) -> Store {
        do {
            return try openOrFail(path: url.standardizedFileURL.path, migrator: migrator, configuration: configuration, readOnly: readOnly)
        } catch {
            throw Failure(storeFailure: error)
        }
    }

    /// Reads in a consistent snapshot. SQLite errors become `Failure`; a `Failure` thrown by
    /// `body` passes through; anything else is reported as the store being unusable.
    package func read<T>(_ body: (Database) throws -> T) throws(Failure) -> T {
        do {
            return try readers.read(body)
        } catch {
            throw failure(error)
        }
    }

    /// Writes in one IMMEDIATE transaction, committed durably before it returns. An error thrown
    /// by `body` rolls the transaction back; errors are mapped as for ``read(_:)``.
    package func write<T>(_ body: (Database) throws -> T) throws(Failure) -> T {
        try write(cacheKiB: nil, body)
    }

    /// ``write(_:)`` for a bulk change such as an import: while it runs, the writer may keep up to
    /// `cacheKiB` of pages in memory (SQLite's default is 2 MiB), so the B-trees of a big import
    /// are not spilled to the log and read back page by page. Memory is taken only as pages are.
    ///
    /// With `scratch`, `body` also has a throwaway database attached as `scratch` (a file of its
    /// own beside the store, mode 0600, a 4 MiB cache, no journal, removed afterwards): tables
    /// there, such as the ids an import has seen, take disk rather than memory however large the
    /// import. TEMP tables would stay in memory (`temp_store=MEMORY`, which keeps statement
    /// journals out of files).
    package func bulkWrite<T>(cacheKiB: Int = 64 * 1024, scratch: Bool = false, _ body: (Database) throws -> T) throws(Failure) -> T {
        try write(cacheKiB: cacheKiB, scratch: scratch, body)
    }

    /// ``write(_:)`` for bookkeeping that is not user data (where a shuffle bag stands): the
    /// transaction commits atomically but without waiting for the disk (`synchronous=NORMAL` for
    /// it alone). A power cut may undo the last such commits (a bag may repeat a quote); it never
    /// leaves one half done, and everything committed by ``write(_:)`` stays as durable as before
    /// (its commit syncs the log, with any light commit before it).
    package func lightWrite<T>(_ body: (Database) throws -> T) throws(Failure) -> T {
        try write(cacheKiB: nil, durable: false, body)
    }

    private func write<T>(cacheKiB: Int?, durable: Bool = true, scratch: Bool = false, _ body: (Database) throws -> T) throws(Failure) -> T {
        guard let writer else {
            throw Failure(storeFailure: .readOnly(path: path, reason: "the store was opened read-only"))
        }
        // Observers hear of a commit that changed rows, not of a write that changed nothing (a
        // page that writes only when something is missing must not wake its own observers).
        var changed = false
        defer { if changed { changes.notify() } }
        do {
            return try writer.writeWithoutTransaction { db in
                var previous: Int?
                if let cacheKiB {
                    previous = try Int.fetchOne(db, sql: "PRAGMA cache_size")
                    try db.execute(sql: "PRAGMA cache_size = \(-cacheKiB)")
                }
                defer { if let previous { try? db.execute(sql: "PRAGMA cache_size = \(previous)") } }
                // Attaching can only happen outside a transaction.
                let scratchFile = scratch ? try Self.attachScratch(db, beside: path) : nil
                defer {
                    if scratch { try? db.execute(sql: "DETACH DATABASE scratch") }
                    if let scratchFile { unlink(scratchFile) }
                }
                // The level can only change outside a transaction (where setting it cannot fail);
                // FULL comes back even when the body throws.
                if !durable { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
                defer { if !durable { try? db.execute(sql: "PRAGMA synchronous = FULL") } }
                var result: T?
                let before = db.totalChangesCount
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    if let sync { try SyncLedger.stamp(db, schema: sync, now: Millis(clock()).value) }
                    return .commit
                }
                changed = db.totalChangesCount != before
                guard let result else { preconditionFailure("a committed transaction has a result") } // programmer error
                return result
            }
        } catch {
            throw failure(error)
        }
    }

    /// Attaches a new, empty scratch database as `scratch` and returns its file (nil for a store
    /// in memory, whose scratch is in memory too). Files left by a process that was killed
    /// during a bulk write are removed first.
    private static func attachScratch(_ db: Database, beside path: String) throws -> String? {
        guard path != ":memory:" else {
            try db.execute(sql: "ATTACH DATABASE ':memory:' AS scratch")
            return nil
        }
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".scratch-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            let owner = name.dropFirst(prefix.count).split(separator: "-").first.flatMap { pid_t($0) }
            if let owner, kill(owner, 0) != 0, errno == ESRCH { unlink((folder as NSString).appendingPathComponent(name)) }
        }
        let file = path + ".scratch-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        if let reason = FileSystem.createEmpty(file, mode: 0o600) {
            throw StoreFailure.unavailable(path: file, reason: "cannot create a scratch file: \(reason)")
        }
        do {
            try db.execute(sql: "ATTACH DATABASE ? AS scratch", arguments: [file])
        } catch {
            unlink(file)
            throw error
        }
        do {
            try db.execute(sql: "PRAGMA scratch.journal_mode = OFF")
            try db.execute(sql: "PRAGMA scratch.synchronous = OFF")
            try db.execute(sql: "PRAGMA scratch.cache_size = -4096")
        } catch {
            // Not left attached (the next bulk write attaches its own) nor on disk.
            try? db.execute(sql: "DETACH DATABASE scratch")
            unlink(file)
            throw error
        }
        return file
    }

    private func failure(_ error: any Error) -> Failure {
        switch error {
        case let error as Failure: return error
        case let error as DatabaseError: return Failure(storeFailure: .classify(error, path: path))
        default: return Failure(storeFailure: .unavailable(path: path, reason: "\(error)"))
        }
    }

    /// Closes the connections (the writer, last, checkpoints the write-ahead log). A store whose
    /// connection is kept until the process exits (``StoreConnections/singleUntilExit``) stays open.
    package func close() throws(Failure) {
        if keptOpen { return }
        do {
            if writer !== (readers as AnyObject) { try readers.close() }
            try writer?.close()
        } catch let error as DatabaseError {
            throw Failure(storeFailure: .classify(error, path: path))
        } catch {
            throw Failure(storeFailure: .unavailable(path: path, reason: "\(error)"))
        }
    }

    // MARK: - For apps

    /// The values `fetch` returns, now and after every change to the store (see
    /// ``StoreObservation``).
    /// A number that grows with every commit that changed the store, by any connection: a value
    /// per commit (or per burst of them), without reading the store.
    package func observeChanges() -> StoreObservation<Int, Failure> where Failure: Sendable {
        let changes = changes
        return StoreObservation(signal: changes) { () throws(Failure) in changes.count }
    }

    package func observe<T: Sendable & Equatable>(
        _ fetch: @escaping @Sendable () throws(Failure) -> T
    ) -> StoreObservation<T, Failure> where Failure: Sendable {
        StoreObservation(signal: changes, fetch: fetch)
    }

    // MARK: - Opening

    private static func openOrFail(
        path: String, migrator: DatabaseMigrator, configuration: StoreConfiguration, readOnly: Bool
    ) throws(StoreFailure) -> Store {
        let folder = (path as NSString).deletingLastPathComponent
        let check = try StoreFileCheck(path: path, configuration: configuration, schemaVersion: schemaVersion(of: migrator), creatingFolder: true)
        defer { check.holdLock() }
        var migrated = false
        var isWAL = true
        switch check.state {
        case .missing:
            try create(path: path, folder: folder, migrator: migrator, configuration: configuration)
            migrated = true
        case .current:
            if let store = try openCurrent(path: path, migrator: migrator, configuration: configuration, readOnly: readOnly) { return store }
            migrated = try inspect(path: path, migrator: migrator, configuration: configuration)
        case .needsInspection(let wal):
            isWAL = wal
            migrated = try inspect(path: path, migrator: migrator, configuration: configuration)
        }

        do {
            // Every migration is applied and we hold the lock under which they run: nothing to do.
            if migrated && readOnly && isWAL {
                return Store(readers: try openReaders(path: path, configuration: configuration).pool, writer: nil, path: path, configuration: configuration)
            }
            let writer = try openWriter(path: path, configuration: configuration)
            // Only a store written before WAL was set at creation needs switching (a write).
            if !isWAL { try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") } }
            if !migrated { try migrator.migrate(writer) }
            // A store migrated before migrations counted themselves in user_version (checked
            // above: every applied migration is known, so it is not newer) gets its count.
            let version = try writer.read { db in try Int32.fetchOne(db, sql: "PRAGMA user_version") }
            if let version, version < schemaVersion(of: migrator) {
                try writer.write { db in try db.execute(sql: "PRAGMA user_version = \(schemaVersion(of: migrator))") }
            }
            let readers = try openReaders(path: path, configuration: configuration).pool
            return Store(readers: readers, writer: readOnly ? nil : writer, path: path, configuration: configuration)
        } catch let failure as StoreFailure {
            throw failure
        } catch let error as DatabaseError {
            throw .classify(error, path: path)
        } catch {
            throw .unavailable(path: path, reason: "\(error)")
        }
    }

    /// The `user_version` of a store on which every migration of `migrator` is applied: their
    /// number (see ``GRDB/DatabaseMigrator/registerStoreMigration(_:migrate:)``). It lets an open
    /// skip reading the migrations table; a store from a newer version has a larger number.
    package static func schemaVersion(of migrator: DatabaseMigrator) -> Int32 {
        Int32(migrator.migrations.count)
    }

    /// Opens a store whose header says it is this store's kind, in WAL mode and fully migrated.
    /// The header is as of the last checkpoint, so the version is read again through SQLite
    /// (which sees the write-ahead log); nil when it differs, and the full check runs instead.
    ///
    /// Opening writes nothing here: the file is already in WAL mode, so the write connection is
    /// opened without any set-up write.
    private static func openCurrent(
        path: String, migrator: DatabaseMigrator, configuration: StoreConfiguration, readOnly: Bool
    ) throws(StoreFailure) -> Store? {
        do {
            let connections = StoreOpening.connections
            if connections != .pooled {
                var config = poolConfiguration(configuration)
                config.readonly = readOnly
                let keep = connections == .singleUntilExit
                if keep && !readOnly {
                    let timeout = configuration.busyTimeout
                    config.prepareDatabase { db in StoreOpening.truncateLongLogs(db.sqliteConnection, busyTimeout: timeout) }
                }
                let queue = try DatabaseQueue(path: path, configuration: config)
                guard try queue.read({ db in try Int32.fetchOne(db, sql: "PRAGMA user_version") }) == schemaVersion(of: migrator) else {
                    try queue.close()
                    return nil
                }
                if keep { StoreOpening.keepUntilExit(queue) }
                return Store(readers: queue, writer: readOnly ? nil : queue, path: path, configuration: configuration, keptOpen: keep)
            }
            let (readers, version) = try openReaders(path: path, configuration: configuration)
            guard version == schemaVersion(of: migrator) else {
                try readers.close()
                return nil
            }
            return Store(readers: readers, writer: readOnly ? nil : try openWriter(path: path, configuration: configuration), path: path, configuration: configuration)
        } catch let error as DatabaseError {
            throw .classify(error, path: path)
        } catch {
            throw .unavailable(path: path, reason: "\(error)")
        }
    }

    /// Opens the read-only pool and returns it with the store's `user_version` as SQLite sees it
    /// (the log included). Nothing is written.
    private static func openReaders(
        path: String, configuration: StoreConfiguration
    ) throws -> (pool: DatabasePool, version: Int32?) {
        var config = poolConfiguration(configuration)
        config.readonly = true
        let pool = try DatabasePool(path: path, configuration: config)
        return (pool, try pool.read { db in try Int32.fetchOne(db, sql: "PRAGMA user_version") })
    }

    /// Opens the write connection. With GRDB's default journal set-up a `DatabaseQueue` writes
    /// nothing when it opens (unlike a writable `DatabasePool`, whose WAL set-up creates and drops a
    /// table when the log is empty); the file's own journal mode (WAL) applies. `synchronous=FULL`
    /// is set by ``poolConfiguration(_:)``.
    private static func openWriter(path: String, configuration: StoreConfiguration) throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: poolConfiguration(configuration))
    }

    private static func poolConfiguration(_ configuration: StoreConfiguration) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(configuration.busyTimeout)
        config.maximumReaderCount = 4
        config.prepareDatabase { db in
            // Statement journals (every statement that fires a trigger or touches a virtual
            // table keeps one) in memory, not in a temporary file: a bulk import wrote ten of
            // them per row. Durability is the write-ahead log's, which this does not change.
            try db.execute(sql: StoreFileCheck.connectionPragmas(readOnly: db.configuration.readonly))
            // The search ranking (``FTS5Ranking``), checked present at open (``SQLiteFeature``).
            if configuration.requiredFeatures.contains(.fts5) { try FTS5Ranking.register(db) }
        }
        return config
    }

    /// Looks at an existing file through a read-only connection: the application id must be this
    /// store's and no migration may be unknown to `migrator`. Returns whether every migration is
    /// already applied.
    private static func inspect(
        path: String, migrator: DatabaseMigrator, configuration: StoreConfiguration
    ) throws(StoreFailure) -> Bool {
        let facts = try StoreInspection.read(path: path, busyTimeout: configuration.busyTimeout)
        guard facts.applicationID == configuration.applicationID else {
            throw .foreign(
                path: path,
                reason: "a database of another application, with \(facts.tableCount) table\(facts.tableCount == 1 ? "" : "s")")
        }
        let known = Set(migrator.migrations)
        if facts.appliedMigrations.contains(where: { !known.contains($0) }) || facts.userVersion > schemaVersion(of: migrator) {
            throw .newerSchema(path: path)
        }
        return Set(facts.appliedMigrations).isSuperset(of: known)
    }

    /// Creates a new store: a temporary file (mode 0600) is initialised and migrated, synced, then
    /// linked into place, so the store path never holds a half-made database.
    private static func create(
        path: String, folder: String, migrator: DatabaseMigrator, configuration: StoreConfiguration
    ) throws(StoreFailure) {
        let base = (path as NSString).lastPathComponent
        // Leftovers of a creation that was killed: only ever made under the lock we now hold.
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for name in names where name.hasPrefix(base + ".creating-") {
                unlink((folder as NSString).appendingPathComponent(name))
            }
        }
        let temporary = path + ".creating-\(getpid())"
        if let reason = FileSystem.createEmpty(temporary, mode: 0o600) {
            throw .unavailable(path: path, reason: "cannot create the store: \(reason)")
        }
        do {
            var config = Configuration()
            config.busyMode = .timeout(configuration.busyTimeout)
            let queue = try DatabaseQueue(path: temporary, configuration: config)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA application_id = \(configuration.applicationID)")
            }
            try migrator.migrate(queue)
            // WAL from the start, so that no later open has to switch the file (a write).
            try queue.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
            try queue.close()
        } catch {
            unlink(temporary)
            switch error {
            case let failure as StoreFailure: throw failure
            case let error as DatabaseError: throw .classify(error, path: path)
            default: throw .unavailable(path: path, reason: "\(error)")
            }
        }
        FileSystem.sync(temporary)
        // A log or shared-memory file left beside the path belongs to a store file that is gone
        // (moved or deleted while its log was kept, or its process killed): SQLite would replay
        // that log into the new file. Nothing else can be using them: we hold the lock, and
        // there is no store file.
        unlink(path + "-wal")
        unlink(path + "-shm")
        guard link(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .unavailable(path: path, reason: "cannot create the store: \(reason)")
        }
        unlink(temporary)
        FileSystem.sync(folder)
    }
}
