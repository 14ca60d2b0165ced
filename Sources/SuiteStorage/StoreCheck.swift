import Foundation
import GRDB
import GRDBSQLite

/// SQLite's own integrity check of a store file, made through a read-only connection: it never
/// writes to the store, never creates it and takes no lock other than SQLite's read locks, so it
/// can run while other `suite` processes use the store.
package enum StoreCheck {
    /// At most this many problems are listed (SQLite's `integrity_check(N)`).
    package static let maximumProblems = 100
    /// What a schema problem starts with: "schema: an unexpected trigger 'x' (Suite does not make it)".
    package static let schemaPrefix = "schema: "

    /// Checks the store at `path`: its header (as ``Store`` does before opening it), its
    /// application id, `PRAGMA integrity_check`, and, when SQLite finds nothing wrong and a
    /// `migrator` is given, that its schema is the one the migrator makes (``StoreSchema``).
    ///
    /// - Returns: The problems `integrity_check` lists, or the schema's differences, each starting
    ///   with ``schemaPrefix``; empty when the store is healthy.
    /// - Throws: ``StoreFailure/corrupt(path:reason:)`` when the file is not a readable SQLite
    ///   database (bad header, truncated, SQLite reporting it corrupt), ``StoreFailure/foreign(path:reason:)``
    ///   for another application's database, ``StoreFailure/busy(path:)`` or
    ///   ``StoreFailure/unavailable(path:reason:)`` when it cannot be read.
    package static func problems(path: String, applicationID: Int32, migrator: DatabaseMigrator? = nil, busyTimeout: TimeInterval = 10) throws(StoreFailure) -> [String] {
        if StoreFile.isDirectory(path) {
            throw .unavailable(path: path, reason: "it is a folder, not a store file")
        }
        try StoreFile.checkHeader(path: path)
        let connection = try ReadOnlyConnection(path: path, immutable: false, busyTimeout: busyTimeout)
        let id = Int32(try connection.strings("PRAGMA application_id").first ?? "0") ?? 0
        guard id == applicationID else {
            throw .foreign(path: path, reason: "a database of another application")
        }
        let result = try connection.strings("PRAGMA integrity_check(\(maximumProblems))", keepingRowsOnError: true)
        if result == ["ok"] {
            guard let migrator else { return [] }
            return try StoreSchema.differences(connection: connection, migrator: migrator).map { schemaPrefix + $0 }
        }
        // A row may hold several lines ("*** in database main ***" then the first problem).
        return result.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("*** in database") }
    }
}
