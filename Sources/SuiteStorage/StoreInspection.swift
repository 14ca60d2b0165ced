import Foundation
import GRDBSQLite

/// What a read-only look at a store file finds, made with the SQLite C API so that nothing is
/// written: when no write-ahead log exists the file is opened `immutable`, which creates no
/// `-wal` or `-shm` file beside it.
struct StoreInspection {
    var applicationID: Int32
    var userVersion: Int32
    var tableCount: Int
    var appliedMigrations: [String]

    static func read(path: String, busyTimeout: TimeInterval) throws(StoreFailure) -> StoreInspection {
        let hasLog = (StoreFile.size(of: path + "-wal") ?? 0) > 0
        var components = URLComponents()
        components.scheme = "file"
        components.path = path
        components.queryItems = [URLQueryItem(name: "mode", value: "ro")]
            + (hasLog ? [] : [URLQueryItem(name: "immutable", value: "1")])
        guard let uri = components.string else {
            throw .unavailable(path: path, reason: "the path cannot be written as an SQLite URI")
        }
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        let opened = sqlite3_open_v2(uri, &connection, flags, nil)
        defer { sqlite3_close_v2(connection) }
        guard opened == SQLITE_OK, let connection else {
            throw failure(code: opened, connection: connection, path: path)
        }
        sqlite3_busy_timeout(connection, Int32(busyTimeout * 1000))

        func strings(_ sql: String) throws(StoreFailure) -> [String] {
            var statement: OpaquePointer?
            let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            guard prepared == SQLITE_OK else { throw failure(code: prepared, connection: connection, path: path) }
            var values: [String] = []
            while true {
                let step = sqlite3_step(statement)
                if step == SQLITE_DONE { return values }
                guard step == SQLITE_ROW else { throw failure(code: step, connection: connection, path: path) }
                values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
            }
        }

        let applicationID = Int32(try strings("PRAGMA application_id").first ?? "0") ?? 0
        let userVersion = Int32(try strings("PRAGMA user_version").first ?? "0") ?? 0
        let tables = try strings("SELECT name FROM sqlite_master WHERE type = 'table'")
        let applied = tables.contains("grdb_migrations") ? try strings("SELECT identifier FROM grdb_migrations") : []
        return StoreInspection(applicationID: applicationID, userVersion: userVersion, tableCount: tables.count, appliedMigrations: applied)
    }

    private static func failure(code: Int32, connection: OpaquePointer?, path: String) -> StoreFailure {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error \(code)"
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy(path: path)
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(path: path, reason: message)
        case SQLITE_PERM, SQLITE_AUTH, SQLITE_CANTOPEN: return .unavailable(path: path, reason: message)
        default: return .unavailable(path: path, reason: message)
        }
    }
}
