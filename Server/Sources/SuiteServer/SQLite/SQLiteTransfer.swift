import Foundation
import GRDB

/// Reads a SQLite server's storage for `migrate`, holding SQLite's write lock from start to end
/// (`BEGIN IMMEDIATE` on a connection of its own): nothing else writes meanwhile (a serve left
/// running waits, and its writes fail after the busy timeout), so what is copied is the
/// storage as it stays.
package final class SQLiteTransferReader: TransferReader {
    private let queue: DatabaseQueue

    /// Opens the storage in a data folder that holds one (its schema brought up to date first,
    /// as serve would) and takes the write lock.
    package init(directory: URL) throws {
        let file = directory.appendingPathComponent(SQLiteServerStorage.fileName)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw ServerFailure("\(directory.path) holds no suite-server (no \(SQLiteServerStorage.fileName))", exitCode: ServerFailure.ioError)
        }
        let storage = try SQLiteServerStorage(directory: directory)
        try? storage.pool.close()
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // The transaction spans the accesses: it is the lock.
        configuration.allowsUnsafeTransactions = true
        do {
            queue = try DatabaseQueue(path: file.path, configuration: configuration)
            try queue.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
        } catch {
            throw ServerFailure("cannot lock \(file.path) for the copy (\(error)); stop suite-server serve and try again", exitCode: ServerFailure.ioError)
        }
    }

    package func page(_ table: ServerTransfer.Table, after: [ServerTransfer.Value]?, limit: Int) async throws -> [[ServerTransfer.Value]] {
        let sql = ServerTransfer.pageSQL(table, after: after != nil) { _ in "?" }
        let arguments = StatementArguments((after ?? []).map(\.databaseValue) + [limit.databaseValue])
        return try queue.inDatabase { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                try table.columns.enumerated().map { index, column in
                    try Self.value(row[index], column.kind, at: "\(table.name).\(column.name)")
                }
            }
        }
    }

    package func fingerprint() async throws -> [Int64] {
        try queue.inDatabase(Self.fingerprint)
    }

    /// The same as ``fingerprint()``: nothing else can write while the lock is held.
    package func currentFingerprint() async throws -> [Int64] {
        try queue.inDatabase(Self.fingerprint)
    }

    package func close() async {
        try? queue.inDatabase { try $0.execute(sql: "ROLLBACK") }
        try? queue.close()
    }

    static func fingerprint(_ db: Database) throws -> [Int64] {
        guard let row = try Row.fetchOne(db, sql: ServerTransfer.fingerprintSQL) else { return [] }
        return (0..<row.count).map { row[$0] as Int64? ?? 0 }
    }

    private static func value(_ stored: DatabaseValue, _ kind: ServerTransfer.Kind, at column: String) throws -> ServerTransfer.Value {
        if stored.isNull { return .null }
        let value: ServerTransfer.Value? = switch kind {
        case .text: String.fromDatabaseValue(stored).map { .text($0) }
        case .integer: Int64.fromDatabaseValue(stored).map { .integer($0) }
        case .blob: Data.fromDatabaseValue(stored).map { .blob($0) }
        case .date: Date.fromDatabaseValue(stored).map { .date($0) }
        case .boolean: Bool.fromDatabaseValue(stored).map { .boolean($0) }
        }
        guard let value else { throw ServerStorageError.corrupt("\(column) holds \(stored), which is not a \(kind)") }
        return value
    }
}

/// Writes a SQLite server's storage for `migrate`: into a file of its own beside the data
/// folder's, which becomes the data folder's `server.sqlite` on ``commit()`` only.
package final class SQLiteTransferWriter: TransferWriter {
    private let target: URL
    private let staging: URL
    private let storage: SQLiteServerStorage

    /// Prepares a data folder that holds no server.
    package init(directory: URL) throws {
        target = directory.appendingPathComponent(SQLiteServerStorage.fileName)
        // A server's file, or what a server left beside it (its write-ahead log would be read
        // into the new file).
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: target.path + suffix) {
            throw ServerFailure("\(target.path + suffix) exists; migrate into a data folder without a server", exitCode: ServerFailure.ioError)
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServerFailure("cannot create \(directory.path): \(error.localizedDescription)", exitCode: ServerFailure.ioError)
        }
        let staging = directory.appendingPathComponent(".migrate-\(UUID().uuidString)", isDirectory: true)
        self.staging = staging
        do {
            storage = try SQLiteServerStorage(directory: staging)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    package func insert(_ table: ServerTransfer.Table, rows: [[ServerTransfer.Value]]) async throws {
        let names = table.columns.map(\.name)
        var sql = "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        if table.replaces {
            sql += " ON CONFLICT (\(table.key.joined(separator: ", "))) DO UPDATE SET "
                + names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        }
        try await storage.pool.write { [sql] db in
            let statement = try db.cachedStatement(sql: sql)
            for row in rows {
                try statement.execute(arguments: StatementArguments(row.map(\.databaseValue)))
            }
        }
    }

    package func fingerprint() async throws -> [Int64] {
        try await storage.pool.read(SQLiteTransferReader.fingerprint)
    }

    package func commit() async throws {
        do {
            // Everything into the database file, so the file alone is the server.
            try await storage.pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            try storage.pool.close()
            try FileManager.default.moveItem(at: staging.appendingPathComponent(SQLiteServerStorage.fileName), to: target)
        } catch {
            await discard()
            throw ServerFailure("cannot put the new server.sqlite in place: \(error.localizedDescription)", exitCode: ServerFailure.ioError)
        }
        try? FileManager.default.removeItem(at: staging)
    }

    package func discard() async {
        try? storage.pool.close()
        try? FileManager.default.removeItem(at: staging)
    }
}

extension ServerTransfer.Value {
    /// The value as SQLite keeps it (dates as GRDB's text, booleans as integers).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .text(let text): text.databaseValue
        case .integer(let integer): integer.databaseValue
        case .blob(let data): data.databaseValue
        case .date(let date): date.databaseValue
        case .boolean(let flag): flag.databaseValue
        }
    }
}
