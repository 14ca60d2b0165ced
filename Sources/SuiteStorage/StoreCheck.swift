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
        let connection = try ReadOnlyConnection(path: path, immutable: false, busyTimeout: busyTimeout)
        let id = Int32(try connection.strings("PRAGMA application_id").first ?? "0") ?? 0
        guard id == applicationID else {
            throw .foreign(path: path, reason: "a database of another application")
        }
        let result = try connection.strings("PRAGMA integrity_check(\(maximumProblems))", keepingRowsOnError: true)
        if result == ["ok"] { return [] }
        // A row may hold several lines ("*** in database main ***" then the first problem).
        return result.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("*** in database") }
    }
}
