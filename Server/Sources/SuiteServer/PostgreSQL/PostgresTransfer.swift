import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Reads a PostgreSQL server's storage for `migrate`, in one `REPEATABLE READ` transaction that
/// holds every table in `SHARE` mode: nothing else writes meanwhile (a serve left running
/// waits), so what is copied is the storage as it stays.
package final class PostgresTransferReader: TransferReader {
    private let url: PostgresURL
    private let connection: PostgresConnection
    private let logger: Logger

    /// Connects (the schema brought up to date, as serve would) and starts the snapshot.
    package init(url: PostgresURL, logger: Logger) async throws {
        guard try await PostgresServerStorage.hasSchema(url: url) else {
            throw ServerFailure("\(url) holds no suite-server", exitCode: ServerFailure.ioError)
        }
        _ = try await PostgresServerStorage(url: url, maximumConnections: 1, logger: logger)
        self.url = url
        self.logger = logger
        connection = try await PostgresTransfer.connect(url, logger: logger)
        do {
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: logger)
            let names = ServerTransfer.tables.map(\.name).joined(separator: ", ")
            try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(names) IN SHARE MODE"), logger: logger)
        } catch {
            try? await connection.close()
            throw PostgresTransfer.failure(error, url)
        }
    }

    package func page(_ table: ServerTransfer.Table, after: [ServerTransfer.Value]?, limit: Int) async throws -> [[ServerTransfer.Value]] {
        var binds = PostgresBindings()
        for value in after ?? [] { try value.bind(into: &binds) }
        binds.append(Int64(limit))
        let sql = ServerTransfer.pageSQL(table, after: after != nil) { "$\($0)" }
        do {
            var rows: [[ServerTransfer.Value]] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
                var values: [ServerTransfer.Value] = []
                values.reserveCapacity(table.columns.count)
                for (cell, column) in zip(row, table.columns) {
                    values.append(try ServerTransfer.Value(cell, column.kind, at: "\(table.name).\(column.name)"))
                }
                rows.append(values)
            }
            return rows
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw PostgresTransfer.failure(error, url)
        }
    }

    package func fingerprint() async throws -> [Int64] {
        try await PostgresTransfer.fingerprint(connection, url: url, logger: logger)
    }

    package func currentFingerprint() async throws -> [Int64] {
        let fresh = try await PostgresTransfer.connect(url, logger: logger)
        do {
            let result = try await PostgresTransfer.fingerprint(fresh, url: url, logger: logger)
            try? await fresh.close()
            return result
        } catch {
            try? await fresh.close()
            throw error
        }
    }

    package func close() async {
        _ = try? await connection.query("ROLLBACK", logger: logger)
        try? await connection.close()
    }
}

/// Writes a PostgreSQL server's storage for `migrate`, in one transaction that holds every
/// table locked: committed whole, or rolled back.
package final class PostgresTransferWriter: TransferWriter {
    private let url: PostgresURL
    private let connection: PostgresConnection
    private let logger: Logger

    /// Connects (the schema made or brought up to date), begins the transaction and checks that
    /// the database holds no server's data.
    package init(url: PostgresURL, logger: Logger) async throws {
        _ = try await PostgresServerStorage(url: url, maximumConnections: 1, logger: logger)
        self.url = url
        self.logger = logger
        connection = try await PostgresTransfer.connect(url, logger: logger)
        do {
            try await connection.query("BEGIN", logger: logger)
            // The source's locks, when both URLs name one database, would make this wait forever.
            try await connection.query("SET LOCAL lock_timeout = '30s'", logger: logger)
            let names = ServerTransfer.tables.map(\.name).joined(separator: ", ")
            try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(names) IN ACCESS EXCLUSIVE MODE"), logger: logger)
            for table in ServerTransfer.tables where !table.replaces {
                for try await found in try await connection.query(PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(table.name))"), logger: logger)
                    .decode(Bool.self) where found {
                    throw ServerFailure("\(url) already holds a suite-server (its \(table.name) has rows); migrate into an empty database",
                                        exitCode: ServerFailure.ioError)
                }
            }
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            try? await connection.close()
            if let failure = error as? ServerFailure { throw failure }
            throw PostgresTransfer.failure(error, url)
        }
    }

    package func insert(_ table: ServerTransfer.Table, rows: [[ServerTransfer.Value]]) async throws {
        let names = table.columns.map(\.name)
        // PostgreSQL takes at most 65,535 values a statement.
        let rowsPerStatement = max(1, 60_000 / names.count)
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + rowsPerStatement)
            var binds = PostgresBindings(capacity: (end - start) * names.count)
            var tuples: [String] = []
            var next = 1
            for row in rows[start..<end] {
                var placeholders: [String] = []
                for value in row {
                    try value.bind(into: &binds)
                    placeholders.append("$\(next)")
                    next += 1
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            var sql = "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES " + tuples.joined(separator: ", ")
            if table.replaces {
                sql += " ON CONFLICT (\(table.key.joined(separator: ", "))) DO UPDATE SET "
                    + names.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            }
            do {
                try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            } catch {
                throw PostgresTransfer.failure(error, url)
            }
            start = end
        }
    }

    package func fingerprint() async throws -> [Int64] {
        try await PostgresTransfer.fingerprint(connection, url: url, logger: logger)
    }

    package func commit() async throws {
        do {
            try await connection.query("COMMIT", logger: logger)
        } catch {
            await discard()
            throw PostgresTransfer.failure(error, url)
        }
        try? await connection.close()
    }

    package func discard() async {
        _ = try? await connection.query("ROLLBACK", logger: logger)
        try? await connection.close()
    }
}

enum PostgresTransfer {
    static func connect(_ url: PostgresURL, logger: Logger) async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 5, logger: logger)
        } catch {
            throw ServerStorageError.unavailable("cannot connect to \(url): \(PostgresServerStorage.oneLine(error))")
        }
    }

    static func fingerprint(_ connection: PostgresConnection, url: PostgresURL, logger: Logger) async throws -> [Int64] {
        do {
            var result: [Int64] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: ServerTransfer.fingerprintSQL), logger: logger) {
                result = try row.map { try $0.decode(Int64?.self) ?? 0 }
            }
            return result
        } catch {
            throw failure(error, url)
        }
    }

    static func failure(_ error: any Error, _ url: PostgresURL) -> ServerStorageError {
        if let error = error as? ServerStorageError { return error }
        return .unavailable("\(url): \(PostgresServerStorage.oneLine(error))")
    }
}

extension ServerTransfer.Value {
    /// A cell as this kind of column.
    package init(_ cell: PostgresCell, _ kind: ServerTransfer.Kind, at column: String) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        do {
            switch kind {
            case .text: self = .text(try cell.decode(String.self))
            case .integer: self = .integer(try cell.decode(Int64.self))
            case .blob: self = .blob(try cell.decode(Data.self))
            case .date: self = .date(try cell.decode(Date.self))
            case .boolean: self = .boolean(try cell.decode(Bool.self))
            }
        } catch {
            throw ServerStorageError.corrupt("\(column) holds a value that is not a \(kind)")
        }
    }

    /// Binds the value (a date as `TIMESTAMPTZ`, a boolean as `BOOLEAN`).
    func bind(into binds: inout PostgresBindings) throws {
        switch self {
        case .null: binds.appendNull()
        case .text(let text): binds.append(text)
        case .integer(let integer): binds.append(integer)
        case .blob(let data): binds.append(ByteBuffer(bytes: data))
        case .date(let date): binds.append(date)
        case .boolean(let flag): binds.append(flag)
        }
    }
}
