import Foundation
import Logging
import PostgresNIO
import SuiteServer
import Testing

/// A storage the tests can also read behind its back.
protocol InspectableStorage: ServerStorage {
    /// Every row of a table, as text.
    func dumpRows(of table: String) async throws -> [String]
}

extension SQLiteServerStorage: InspectableStorage {}
extension PostgresServerStorage: InspectableStorage {}

/// The backends the shared storage suite runs against.
enum TestBackend: String, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    /// `SUITE_TEST_POSTGRES_URL`, when `Server/Scripts/with-postgres` (as CI runs the tests) sets it.
    static let postgresURL: String? = {
        let value = ProcessInfo.processInfo.environment["SUITE_TEST_POSTGRES_URL"]
        return value?.isEmpty == false ? value : nil
    }()

    /// Whether the PostgreSQL tests run: when `SUITE_TEST_POSTGRES_URL` is set, and always in CI
    /// (`CI` set, as `.ci/run` does), where a missing database fails them instead of skipping them.
    static let postgresRuns = postgresURL != nil || inCI

    /// Whether this is CI (`CI` set, as `.ci/run` does): a test that needs a tool runs there, and
    /// fails when the tool is missing, instead of being skipped.
    static let inCI = ProcessInfo.processInfo.environment["CI"]?.isEmpty == false

    var description: String { rawValue }

    /// A place for one test's storage: a new temporary folder for SQLite, the shared test
    /// database for PostgreSQL (tests keep apart by using their own account names).
    struct Place: Sendable {
        let backend: TestBackend
        let directory: URL

        /// Opens a storage in this place (several times, to reopen or to act as several
        /// server processes).
        func open(maximumConnections: Int = 4) async throws -> any InspectableStorage {
            switch backend {
            case .sqlite:
                return try SQLiteServerStorage(directory: directory)
            case .postgres:
                guard let text = TestBackend.postgresURL else { throw TestBackendError.noPostgres }
                var logger = Logger(label: "test-postgres")
                logger.logLevel = .warning
                return try await PostgresServerStorage(url: try PostgresURL(text), maximumConnections: maximumConnections, logger: logger)
            }
        }
    }

    /// Runs a body with a fresh place, removed afterwards.
    func withPlace<Result: Sendable>(_ body: (Place) async throws -> Result) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("suite-server-tests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(Place(backend: self, directory: directory.appendingPathComponent("data", isDirectory: true)))
    }

    /// Runs a body with an open, running storage.
    func withStorage<Result: Sendable>(
        maximumConnections: Int = 4,
        _ body: @Sendable (any InspectableStorage) async throws -> Result
    ) async throws -> Result {
        try await withPlace { place in
            try await Self.running(try await place.open(maximumConnections: maximumConnections), body)
        }
    }

    /// Runs a body while a storage's background work runs; stops it afterwards.
    static func running<Result: Sendable>(
        _ storage: any InspectableStorage,
        _ body: @Sendable (any InspectableStorage) async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await storage.run() }
            defer { group.cancelAll() }
            try await storage.waitUntilReady()
            return try await body(storage)
        }
    }
}

extension TestBackend {
    /// Runs a body with the URL of a new, empty database on the test cluster (dropped after).
    static func withScratchDatabase(_ body: (String) async throws -> Void) async throws {
        let source = try #require(TestBackend.postgresURL)
        let name = "scratch_\(UUID().uuidString.prefix(8).lowercased())"
        var logger = Logger(label: "scratch-database")
        logger.logLevel = .warning
        let admin = try await PostgresConnection.connect(configuration: try PostgresURL(source).connectionConfiguration, id: 9, logger: logger)
        try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        let target = source.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
        #expect(target != source)
        do {
            try await body(target)
        } catch {
            Issue.record(error)
        }
        try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: logger)
        try await admin.close()
    }
}

enum TestBackendError: Error {
    case noPostgres
}
