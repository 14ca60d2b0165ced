import Foundation
import GRDBSQLite

/// SQLite's own integrity check of a store file, made through a read-only connection: it never
/// writes to the store, never creates it and takes no lock other than SQLite's read locks, so it
/// can run while other `suite` processes use the store.
package enum StoreCheck {
    /// At most this many problems are listed (SQLite's `integrity_check(N)`).
    package static let maximumProblems = 100

    /// Checks the store at `path`: its header (as ``Store`` does before opening it), its
    /// application id, and `PRAGMA integrity_check`.
    ///
    /// - Returns: The problems `integrity_check` lists; empty when the store is healthy.
    /// - Throws: ``StoreFailure/corrupt(path:reason:)`` when the file is not a readable SQLite
    ///   database (bad header, truncated, SQLite reporting it corrupt), ``StoreFailure/foreign(path:reason:)``
    ///   for another application's database, ``StoreFailure/busy(path:)`` or
    ///   ``StoreFailure/unavailable(path:reason:)`` when it cannot be read.
    package static func problems(path: String, applicationID: Int32, busyTimeout: TimeInterval = 10) throws(StoreFailure) -> [String] {
        if StoreFile.isDirectory(path) {
            throw .unavailable(path: path, reason: "it is a folder, not a store file")
        }
        try StoreFile.checkHeader(path: path)
        var components = URLComponents()
        components.scheme = "file"
        components.path = path
        components.queryItems = [URLQueryItem(name: "mode", value: "ro")]
        guard let uri = components.string else {
            throw .unavailable(path: path, reason: "the path cannot be written as an SQLite URI")
        }
        var connection: OpaquePointer?
        let opened = sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close_v2(connection) }
        guard opened == SQLITE_OK, let connection else {
            throw failure(code: opened, connection: connection, path: path)
        }
        sqlite3_busy_timeout(connection, Int32(busyTimeout * 1000))

        /// The first column of every row; with `keepingRowsOnError`, rows read before an error
        /// are returned with the error's message as a last row (integrity_check lists what it
        /// found before it stops at a page it cannot read).
        func strings(_ sql: String, keepingRowsOnError: Bool = false) throws(StoreFailure) -> [String] {
            var statement: OpaquePointer?
            let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            guard prepared == SQLITE_OK else { throw failure(code: prepared, connection: connection, path: path) }
            var values: [String] = []
            while true {
                let step = sqlite3_step(statement)
                if step == SQLITE_DONE { return values }
                guard step == SQLITE_ROW else {
                    let error = failure(code: step, connection: connection, path: path)
                    if keepingRowsOnError, !values.isEmpty, case .corrupt(_, let reason) = error {
                        return values.filter { $0 != "ok" } + [reason]
                    }
                    throw error
                }
                values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
            }
        }

        let id = Int32(try strings("PRAGMA application_id").first ?? "0") ?? 0
        guard id == applicationID else {
            throw .foreign(path: path, reason: "a database of another application")
        }
        let result = try strings("PRAGMA integrity_check(\(maximumProblems))", keepingRowsOnError: true)
        if result == ["ok"] { return [] }
        // A row may hold several lines ("*** in database main ***" then the first problem).
        return result.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("*** in database") }
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
