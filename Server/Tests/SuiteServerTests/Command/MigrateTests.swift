import Foundation
import GRDB
import Logging
import PostgresNIO
import SuiteServer
import SuiteSyncProtocol
import Testing

/// `suite-server migrate`: a server moved from SQLite to PostgreSQL and back keeps its accounts,
/// passwords, tokens, epochs and every operation, and devices go on syncing; a destination that
/// holds a server, or a source that changed while it was copied, keeps nothing.
@Suite("Migrate between backends")
struct MigrateTests {
    static func login(port: Int, account: String, secret: Data) async throws -> Int {
        let body = try SyncProtocol.encoder.encode(LoginRequest(account: account, authenticationSecret: secret, device: "phone"))
        return try await blocking {
            try LoopbackClient.request(port: port, method: "POST", path: "/v1/login", body: body).status
        }
    }

    @Test(.enabled(if: TestBackend.postgresRuns, "SUITE_TEST_POSTGRES_URL is not set (Server/Scripts/with-postgres sets it)"))
    func sqliteToPostgresAndBack() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("a").path, last = folder.appendingPathComponent("c").path
        try await TestBackend.withScratchDatabase { database in
            let server = try await ServerProcess(["--data-dir", first])
            let secret = Data("secret-\(UUID())".utf8)
            let signup = Fixtures.signup(secret: secret)
            let created = try await blocking {
                try LoopbackClient.request(port: server.port, method: "POST", path: "/v1/signup", body: try SyncProtocol.encoder.encode(signup))
            }
            #expect(created.status == 201)
            let token = try SyncProtocol.decoder.decode(SessionReply.self, from: created.body).token
            let before = (0..<300).map { "before-\($0)" }
            #expect(try await BackupTests.push(port: server.port, token: token, ids: before) == 200)
            let epoch = try await BackupTests.pull(port: server.port, token: token).epoch
            #expect(try await ServerBinaryTests.run(["invite", "--data-dir", first]).status == 0)
            _ = try await server.stop()

            let moved = try await ServerBinaryTests.run(["migrate", "--from", first, "--to", database])
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(moved.stdout.contains("migrated 1 accounts, 1 devices and 300 operations"), "\(moved.stdout)")
            let again = try await ServerBinaryTests.run(["migrate", "--from", first, "--to", database])
            #expect(again.status == 74 && again.stderr.split(separator: "\n").count == 1 && again.stderr.contains("already holds"), "\(again.stderr)")

            let onPostgres = try await ServerProcess(["--database", database])
            let pulled = try await BackupTests.pull(port: onPostgres.port, token: token)
            #expect(pulled.epoch == epoch, "the same epoch: devices do not start over")
            #expect(pulled.operations.map(\.id) == before)
            #expect(pulled.head == 300)
            #expect(try await Self.login(port: onPostgres.port, account: signup.account, secret: secret) == 200, "the password still signs in")
            #expect(try await Self.login(port: onPostgres.port, account: signup.account, secret: Data("wrong".utf8)) == 401)
            #expect(try await BackupTests.push(port: onPostgres.port, token: token, ids: ["on-postgres"]) == 200)
            _ = try await onPostgres.stop()

            let back = try await ServerBinaryTests.run(["migrate", "--from", database, "--to", last])
            #expect(back.status == 0, "\(back.stderr)")
            #expect(back.stdout.contains("migrated 1 accounts, 2 devices and 301 operations"), "\(back.stdout)")
            let over = try await ServerBinaryTests.run(["migrate", "--from", database, "--to", last])
            #expect(over.status == 74 && over.stderr.contains("exists"), "\(over.stderr)")

            let onSQLite = try await ServerProcess(["--data-dir", last])
            let final = try await BackupTests.pull(port: onSQLite.port, token: token)
            #expect(final.epoch == epoch)
            #expect(final.operations.map(\.id) == before + ["on-postgres"])
            #expect(try await BackupTests.push(port: onSQLite.port, token: token, ids: ["on-sqlite"]) == 200)
            _ = try await onSQLite.stop()
            // One unused invite came along both ways.
            let accounts = try await ServerBinaryTests.run(["accounts", "list", "--data-dir", last])
            #expect(accounts.stdout.contains(signup.account))
        }
    }

    /// While migrate reads, nothing else can write the source (a serve left running would write
    /// what the copy misses): a write waits, and fails after the busy timeout.
    @Test func nothingWritesTheSourceWhileItIsCopied() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("a"), destination = folder.appendingPathComponent("b")
        #expect(try await ServerBinaryTests.run(["invite", "--data-dir", source.path]).status == 0)
        let reader = try SQLiteTransferReader(directory: source)
        let blocked = try await ServerBinaryTests.run(["invite", "--data-dir", source.path])
        #expect(blocked.status != 0, "a write while the source is read: \(blocked.stdout)")
        let writer = try SQLiteTransferWriter(directory: destination)
        let copied = try await MigrateCommand.copy(from: reader, to: writer)
        await reader.close()
        #expect(copied[ServerTransfer.tables.firstIndex { $0.name == "invites" }!] == 1)
        #expect(try await ServerBinaryTests.run(["invite", "--data-dir", source.path]).status == 0, "the lock ends with the copy")
        // A folder with what a server left (a write-ahead log) is not a destination.
        let leftovers = folder.appendingPathComponent("c")
        try FileManager.default.createDirectory(at: leftovers, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: leftovers.appendingPathComponent("server.sqlite-wal").path, contents: Data("x".utf8)))
        let refused = try await ServerBinaryTests.run(["migrate", "--from", source.path, "--to", leftovers.path])
        #expect(refused.status == 74 && refused.stderr.contains("server.sqlite-wal"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: leftovers.path) == ["server.sqlite-wal"])
    }

    @Test func refusalsChangeNothing() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = folder.appendingPathComponent("a").path, b = folder.appendingPathComponent("b").path
        let empty = try await ServerBinaryTests.run(["migrate", "--from", a, "--to", b])
        #expect(empty.status == 74 && empty.stderr.contains("holds no suite-server"), "\(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: b))
        let same = try await ServerBinaryTests.run(["migrate", "--from", a, "--to", a + "/"])
        #expect(same.status == 64 && same.stderr.contains("the same storage"), "\(same.stderr)")
        #expect(try await ServerBinaryTests.run(["migrate", "--to", b]).status == 64)
        #expect(try await ServerBinaryTests.run(["migrate", "--from", "postgres://", "--to", b]).status == 64)
    }

    /// Every column of every table the SQLite schema has is in ``ServerTransfer/tables``.
    @Test func everySQLiteColumnIsCopied() throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try SQLiteServerStorage(directory: folder)
        let queue = try DatabaseQueue(path: folder.appendingPathComponent(SQLiteServerStorage.fileName).path)
        let columns = try queue.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'")
            return Set(try tables.flatMap { table in
                try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { row -> String in "\(table).\(row["name"] as String)" }
            })
        }
        #expect(columns == Self.transferred)
    }

    /// Every column of every table the PostgreSQL schema has is in ``ServerTransfer/tables``.
    @Test(.enabled(if: TestBackend.postgresRuns, "SUITE_TEST_POSTGRES_URL is not set (Server/Scripts/with-postgres sets it)"))
    func everyPostgresColumnIsCopied() async throws {
        try await TestBackend.withScratchDatabase { database in
            var logger = Logger(label: "migrate-test")
            logger.logLevel = .warning
            _ = try await PostgresServerStorage(url: try PostgresURL(database), maximumConnections: 1, logger: logger)
            let connection = try await PostgresConnection.connect(configuration: try PostgresURL(database).connectionConfiguration, id: 9, logger: logger)
            var columns = Set<String>()
            for try await (table, column) in try await connection.query("""
                SELECT table_name::text, column_name::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'
                """, logger: logger).decode((String, String).self) {
                columns.insert("\(table).\(column)")
            }
            try await connection.close()
            #expect(columns == Self.transferred)
        }
    }

    static var transferred: Set<String> {
        Set(ServerTransfer.tables.flatMap { table in table.columns.map { "\(table.name).\($0.name)" } })
    }
}
