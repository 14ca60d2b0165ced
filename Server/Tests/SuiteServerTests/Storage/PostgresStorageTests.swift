import Foundation
import Logging
import PostgresNIO
import SuiteServer
import SuiteSyncProtocol
import Testing

/// The shared storage suite on PostgreSQL, plus what only a shared database has to get right.
///
/// Skipped (and reported as skipped) unless `SUITE_TEST_POSTGRES_URL` names a database, e.g.
/// `postgres://postgres@/postgres?host=/tmp/pg`, or CI is set (then a missing database fails
/// them); `Scripts/with-postgres` sets one up and CI runs the tests through it.
@Suite("Storage on PostgreSQL", .enabled(if: TestBackend.postgresRuns, "SUITE_TEST_POSTGRES_URL is not set (Server/Scripts/with-postgres sets it)"))
struct PostgresStorageTests {
    let contract = StorageContract(backend: .postgres)

    /// Every test of the contract (``StorageContract/cases``), on this backend.
    @Test(arguments: StorageContract.cases)
    func keepsTheContract(_ test: ContractCase<StorageContract>) async throws { try await test.run(contract) }

    @Test func eventsReachEveryProcessSharingTheDatabase() async throws {
        try await TestBackend.postgres.withPlace { place in
            try await TestBackend.running(try await place.open()) { first in
                try await TestBackend.running(try await place.open()) { second in
                    let service = Fixtures.service(first)
                    let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
                    let heardBySecond = second.events.subscribe(accountID: session.accountID)
                    let heardByFirst = first.events.subscribe(accountID: session.accountID)
                    _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("n", count: 1)), session: session)
                    #expect(await StorageContract.next(heardBySecond) == "notes")
                    #expect(await StorageContract.next(heardByFirst) == "notes")
                }
            }
        }
    }

    @Test func processesStartingTogetherMigrateOnce() async throws {
        try await TestBackend.postgres.withPlace { place in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { _ = try await place.open(maximumConnections: 1) }
                }
                try await group.waitForAll()
            }
            try await TestBackend.running(try await place.open(maximumConnections: 1)) { storage async throws in
                #expect(try await storage.dumpRows(of: "schema_migrations").count == PostgresSchemaVersions.count)
                #expect(try await storage.dumpRows(of: "server_settings").count == 1)
            }
        }
    }

    @Test func aCancelledTransactionLeavesThePoolUsable() async throws {
        // One pooled connection: the next request must get the very connection that was
        // inside the cancelled transaction.
        try await TestBackend.postgres.withStorage(maximumConnections: 1) { storage in
            let postgres = try #require(storage as? PostgresServerStorage)
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let marker = Fixtures.accountName("cancelled")

            let started = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                try await postgres.withTransaction { connection in
                    try await connection.query("INSERT INTO server_settings (key, value) VALUES (\(marker), '\\x00')", logger: Logger(label: "test"))
                    started.continuation.yield()
                    try await connection.query("SELECT pg_sleep(1)", logger: Logger(label: "test"))
                    return 1
                }
            }
            for await _ in started.stream { break }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }

            // The next requests work on the same connection, outside the cancelled transaction
            // (inside it they would see the marker), and nothing of it was committed.
            _ = try await service.push(log: "after-cancel", request: SyncPushRequest(operations: Fixtures.operations("c", count: 2)), session: session)
            #expect(try await service.pull(log: "after-cancel", after: 0, limit: 10, session: session).head == 2)
            let state: String = try await postgres.withTransaction { connection in
                var count = -1
                for try await value in try await connection.query("SELECT count(*) FROM server_settings WHERE key = \(marker)", logger: Logger(label: "test")).decode(Int.self) {
                    count = value
                }
                return "\(count)"
            }
            #expect(state == "0")
        }
    }

    @Test func aFailedStatementLeavesThePoolUsable() async throws {
        try await TestBackend.postgres.withStorage(maximumConnections: 1) { storage in
            let postgres = try #require(storage as? PostgresServerStorage)
            await #expect(throws: (any Error).self) {
                try await postgres.withTransaction { connection in
                    try await connection.query("SELECT * FROM no_such_table", logger: Logger(label: "test"))
                }
            }
            let service = Fixtures.service(storage)
            _ = try await service.signup(Fixtures.signup())
        }
    }

    /// A backend ended under a transaction (as a restart ends them all): the request fails as
    /// unavailable (503, try again), not as an internal error, and the pool goes on.
    /// Without the watch this request waited forever (the ROLLBACK on the cut connection never
    /// ended): hence the time limit.
    @Test(.timeLimit(.minutes(1))) func aConnectionEndedUnderATransactionIsUnavailableAndThePoolGoesOn() async throws {
        try await TestBackend.postgres.withStorage(maximumConnections: 1) { storage in
            let postgres = try #require(storage as? PostgresServerStorage)
            let error = await #expect(throws: ServerStorageError.self) {
                try await postgres.withTransaction { connection in
                    try await connection.query("SELECT pg_terminate_backend(pg_backend_pid())", logger: Logger(label: "test"))
                }
            }
            if case .unavailable = error {} else { Issue.record("expected unavailable, got \(String(describing: error))") }
            let service = Fixtures.service(storage)
            _ = try await service.signup(Fixtures.signup())
        }
    }

    /// What postgres-nio can leave behind when the database cuts a connection: a query that never
    /// ends on a closed connection (here an operation that waits 30 s). The watch gives up on it
    /// as soon as the connection is closed, and cancels it.
    @Test(.timeLimit(.minutes(1))) func aRequestStopsWaitingOnAConnectionThatClosed() async throws {
        let url = try PostgresURL(try #require(TestBackend.postgresURL))
        let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 7, logger: Logger(label: "test"))
        let cancelled = AsyncStream.makeStream(of: Bool.self)
        let closer = Task {
            try await Task.sleep(for: .milliseconds(300))
            try await connection.close()
        }
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: ServerStorageError.self) {
            try await PostgresConnectionWatch.abandoningIfClosed(connection) { () async throws -> Int in
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    cancelled.continuation.yield(true)
                    throw error
                }
                return 1
            }
        }
        if case .unavailable = error {} else { Issue.record("expected unavailable, got \(String(describing: error))") }
        #expect(clock.now - start < .seconds(10))
        var wasCancelled = false
        for await value in cancelled.stream { wasCancelled = value; break }
        #expect(wasCancelled)
        try await closer.value
        // On an open connection the operation's own result and errors come through.
        let open = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 8, logger: Logger(label: "test"))
        struct Refused: Error {}
        do {
            #expect(try await PostgresConnectionWatch.abandoningIfClosed(open) { 42 } == 42)
            await #expect(throws: Refused.self) { try await PostgresConnectionWatch.abandoningIfClosed(open) { () async throws -> Int in throw Refused() } }
        } catch {
            try await open.close()
            throw error
        }
        try await open.close()
    }

    @Test func anUnreachableDatabaseIsReportedAsUnavailable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("no-postgres-\(UUID().uuidString)")
        await #expect(throws: ServerStorageError.self) {
            _ = try await PostgresServerStorage(url: try PostgresURL("postgres://nobody@/db?host=\(directory.path)"), logger: Logger(label: "test"))
        }
    }
}

extension PostgresStorageTests {
    /// A database a newer suite-server migrated is refused, nothing applied.
    @Test func aNewerSchemaIsRefused() async throws {
        let source = try #require(TestBackend.postgresURL)
        let name = "newer_\(UUID().uuidString.prefix(8).lowercased())"
        var logger = Logger(label: "newer-test")
        logger.logLevel = .warning
        let admin = try await PostgresConnection.connect(configuration: try PostgresURL(source).connectionConfiguration, id: 9, logger: logger)
        try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        let url = try PostgresURL(source.replacingOccurrences(of: "/postgres?", with: "/\(name)?"))
        do {
            let storage = try await PostgresServerStorage(url: url, maximumConnections: 1, logger: logger)
            _ = storage
            let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 10, logger: logger)
            try await connection.query("INSERT INTO schema_migrations (version) VALUES (99)", logger: logger)
            try await connection.close()
            await #expect {
                _ = try await PostgresServerStorage(url: url, maximumConnections: 1, logger: logger)
            } throws: { error in
                guard case ServerStorageError.migrationFailed(let reason) = error else { return false }
                return reason.contains("schema version 99")
            }
        } catch {
            Issue.record(error)
        }
        try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: logger)
        try await admin.close()
    }
}

/// How many migrations the PostgreSQL schema has.
enum PostgresSchemaVersions {
    static let count = 8
}
