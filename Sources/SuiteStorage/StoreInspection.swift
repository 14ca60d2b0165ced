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
        let connection = try ReadOnlyConnection(path: path, immutable: !hasLog, busyTimeout: busyTimeout)
        let applicationID = Int32(try connection.strings("PRAGMA application_id").first ?? "0") ?? 0
        let userVersion = Int32(try connection.strings("PRAGMA user_version").first ?? "0") ?? 0
        let tables = try connection.strings("SELECT name FROM sqlite_master WHERE type = 'table'")
        let applied = tables.contains("grdb_migrations") ? try connection.strings("SELECT identifier FROM grdb_migrations") : []
        return StoreInspection(applicationID: applicationID, userVersion: userVersion, tableCount: tables.count, appliedMigrations: applied)
    }
}
