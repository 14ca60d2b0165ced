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

/// An SQLite connection used through the C API, for the few queries that short commands run most
/// often (`quotes random`): code written against it runs the same whether the connection is one
/// that GRDB opened (``init(borrowing:)``, inside a ``Store`` read or write) or one opened here
/// without GRDB (``openCurrent(path:applicationID:schemaVersion:busyTimeout:keptUntilExit:)``),
/// so a fast path and the store's own API share one implementation.
///
/// Errors are GRDB's `DatabaseError`s, which the stores already map to their own.
package final class DirectConnection {
    /// The SQLite connection.
    package let handle: OpaquePointer
    /// Whether ``handle`` is closed with this object (opened here and not kept until exit).
    private let closesHandle: Bool

    /// Wraps the connection of a GRDB `Database`, which keeps owning it: for use within the
    /// read or write that handed out `db`.
    package init(borrowing db: Database) {
        // A Database is open while its body runs: its connection is never nil then.
        handle = db.sqliteConnection!
        closesHandle = false
    }

    private init(opened handle: OpaquePointer, closes: Bool) {
        self.handle = handle
        closesHandle = closes
    }

    deinit {
        if closesHandle { sqlite3_close_v2(handle) }
    }

    /// Opens the store file at `path` for reading and writing, with the checks and settings of
    /// ``Store/open(at:migrator:configuration:readOnly:)`` for a store that is already current:
    /// the same ``StoreFileCheck`` (features, lock, file, header, writability), the same
    /// ``StoreFileCheck/connectionPragmas(readOnly:)``, the busy timeout, and `user_version` read
    /// through SQLite. No SQL functions are
    /// registered (the search ranking among them): a statement that needs one fails to prepare.
    ///
    /// - Parameters:
    ///   - configuration: the store's application id, busy timeout and needed features (its sync
    ///     schema and clock are not used: the code that writes through this connection must not
    ///     change synced tables).
    ///   - schemaVersion: the `user_version` of a current store (``Store/schemaVersion(of:)``).
    ///   - keptUntilExit: leave the connection open when this object goes away, for the process's
    ///     exit to close, as ``StoreConnections/singleUntilExit`` does (long logs are emptied by
    ///     commits instead). Every connection opened so stays open: only for a process that ends
    ///     after its command.
    /// - Returns: nil when the store is not there yet, not a regular file, of another kind, not in
    ///   WAL mode or not at `schemaVersion`: ``Store/open(at:migrator:configuration:readOnly:)``
    ///   creates, migrates or explains it.
    /// - Throws: ``StoreFailure`` for a file that no open could use (damaged, read-only, busy).
    package static func openCurrent(
        path: String, configuration: StoreConfiguration, schemaVersion: Int32, keptUntilExit: Bool
    ) throws(StoreFailure) -> DirectConnection? {
        let busyTimeout = configuration.busyTimeout
        // Nothing to open quickly (and no lock file to make) where there is no store yet.
        guard StoreFile.size(of: path) != nil else { return nil }
        let check = try StoreFileCheck(path: path, configuration: configuration, schemaVersion: schemaVersion, creatingFolder: false)
        defer { check.holdLock() }
        guard check.state == .current else { return nil }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard let opened else { throw .unavailable(path: path, reason: "SQLite could not allocate a connection") }
        let connection = DirectConnection(opened: opened, closes: !keptUntilExit)
        do {
            guard code == SQLITE_OK else { throw connection.error(code, sql: nil) }
            sqlite3_busy_timeout(opened, Int32(min(max(busyTimeout, 0), 3600) * 1000))
            // As GRDB's connections are set up (foreign keys on) and ``Store``'s (the rest).
            try connection.execute(StoreFileCheck.connectionPragmas(readOnly: false))
            // The header is as of the last checkpoint; SQLite sees the log too.
            let version = try connection.prepare("PRAGMA user_version")
            guard try version.step(), version.columns.int64(0) == Int64(schemaVersion) else {
                if keptUntilExit { sqlite3_close_v2(opened) }
                return nil
            }
        } catch let error as DatabaseError {
            if keptUntilExit { sqlite3_close_v2(opened) }
            throw .classify(error, path: path)
        } catch {
            if keptUntilExit { sqlite3_close_v2(opened) }
            throw .unavailable(path: path, reason: "\(error)")
        }
        if keptUntilExit { StoreOpening.truncateLongLogs(opened, busyTimeout: busyTimeout) }
        return connection
    }

    /// Prepares one statement.
    package func prepare(_ sql: String) throws(DatabaseError) -> DirectStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error(code, sql: sql)
        }
        return DirectStatement(statement, connection: self, sql: sql)
    }

    /// Runs `sql` (one or more statements without results).
    package func execute(_ sql: String) throws(DatabaseError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
    }

    /// Runs `body` in an IMMEDIATE transaction that commits when it returns and rolls back when
    /// it throws. A `light` transaction is bookkeeping that may be lost in a power cut
    /// (``Store/lightWrite(_:)``): it commits with `synchronous=NORMAL`, then FULL is back.
    /// Not for a connection that is in a transaction already.
    package func transaction<T>(light: Bool = false, _ body: () throws -> T) throws -> T {
        if light { try execute("PRAGMA synchronous = NORMAL") }
        defer { if light { try? execute("PRAGMA synchronous = FULL") } }
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            // A commit that failed (the disk is full) may leave the transaction open.
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
        return result
    }

    func error(_ code: Int32, sql: String?) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        return DatabaseError(resultCode: ResultCode(rawValue: extended != 0 ? extended : code),
                             message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

/// A prepared statement of a ``DirectConnection``, finalized when released. Values are bound by
/// position (from 1, as in SQL), ``columns`` read while ``step()`` is on a row.
package final class DirectStatement {
    private let statement: OpaquePointer
    private let connection: DirectConnection
    private let sql: String

    fileprivate init(_ statement: OpaquePointer, connection: DirectConnection, sql: String) {
        self.statement = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Clears the bindings and rewinds, for another run.
    @discardableResult
    package func reset() -> DirectStatement {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        return self
    }

    @discardableResult
    package func bind(_ value: Int64?, at index: Int32) -> DirectStatement {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
        return self
    }

    @discardableResult
    package func bind(_ value: String?, at index: Int32) -> DirectStatement {
        if let value {
            // SQLITE_TRANSIENT: SQLite copies the text.
            sqlite3_bind_text(statement, index, value, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        } else {
            sqlite3_bind_null(statement, index)
        }
        return self
    }

    /// Binds any value as GRDB binds it.
    @discardableResult
    package func bind(_ value: DatabaseValue, at index: Int32) -> DirectStatement {
        _ = value.bind(to: statement, at: index)
        return self
    }

    /// The first column of the first row as text; nil when there is no row or it is NULL.
    package func firstText() throws(DatabaseError) -> String? {
        try step() ? columns.optionalText(0) : nil
    }

    /// The first column of the first row as an integer; nil when there is no row or it is NULL.
    package func firstInt64() throws(DatabaseError) -> Int64? {
        try step() ? columns.optionalInt64(0) : nil
    }

    /// Runs to the next row: true on a row, false when done.
    package func step() throws(DatabaseError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = connection.error(code, sql: sql)
            sqlite3_reset(statement)
            throw error
        }
    }

    /// Runs a statement that returns no rows.
    package func run() throws(DatabaseError) {
        while try step() {}
    }

    /// The current row's columns (by index, from 0), while ``step()`` is on a row.
    package var columns: StatementColumns { StatementColumns(self, sqliteStatement: statement) }
}
