import Foundation
import GRDBSQLite

/// A read-only SQLite connection made with the C API, for looking at a store file without
/// writing anything to it (``StoreInspection``, ``StoreCheck``). Closed when released.
final class ReadOnlyConnection {
    private let connection: OpaquePointer
    let path: String

    /// Opens `path` read-only (`mode=ro`); `immutable` also creates no `-wal` or `-shm` file,
    /// for a file that has no log.
    init(path: String, immutable: Bool, busyTimeout: TimeInterval) throws(StoreFailure) {
        var components = URLComponents()
        components.scheme = "file"
        components.path = path
        components.queryItems = [URLQueryItem(name: "mode", value: "ro")] + (immutable ? [URLQueryItem(name: "immutable", value: "1")] : [])
        guard let uri = components.string else {
            throw .unavailable(path: path, reason: "the path cannot be written as an SQLite URI")
        }
        var connection: OpaquePointer?
        let opened = sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        guard opened == SQLITE_OK, let connection else {
            let failure = Self.failure(code: opened, connection: connection, path: path)
            sqlite3_close_v2(connection)
            throw failure
        }
        sqlite3_busy_timeout(connection, Int32(busyTimeout * 1000))
        self.connection = connection
        self.path = path
    }

    deinit { sqlite3_close_v2(connection) }

    /// The first column of every row; with `keepingRowsOnError`, rows read before an error are
    /// returned with the error's message as a last row (integrity_check lists what it found
    /// before it stops at a page it cannot read).
    func strings(_ sql: String, keepingRowsOnError: Bool = false) throws(StoreFailure) -> [String] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK else { throw Self.failure(code: prepared, connection: connection, path: path) }
        var values: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return values }
            guard step == SQLITE_ROW else {
                let error = Self.failure(code: step, connection: connection, path: path)
                if keepingRowsOnError, !values.isEmpty, case .corrupt(_, let reason) = error {
                    return values.filter { $0 != "ok" } + [reason]
                }
                throw error
            }
            values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    private static func failure(code: Int32, connection: OpaquePointer?, path: String) -> StoreFailure {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error \(code)"
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy(path: path)
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(path: path, reason: message)
        default: return .unavailable(path: path, reason: message)
        }
    }
}
