import ArgumentParser
import Foundation
import Logging

/// `--data-dir DIR | --database URL`: where a command finds the server's storage.
package struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: ArgumentHelp(
        "The SQLite data folder (default: $SUITE_SERVER_HOME, else ~/.local/share/suite-server).", valueName: "dir"))
    package var dataDirectory: String?

    @Option(name: .customLong("database"), help: ArgumentHelp("A PostgreSQL URL instead of SQLite.", valueName: "url"))
    package var database: String?

    package init() {}

    package func validate() throws {
        if dataDirectory != nil && database != nil {
            throw ValidationError("use --data-dir or --database, not both")
        }
        if let database {
            do {
                _ = try PostgresURL(database)
            } catch {
                throw ValidationError("--database: \(error)")
            }
        }
        if dataDirectory?.isEmpty == true {
            throw ValidationError("--data-dir is empty")
        }
    }

    /// Opens the storage for a one-off command (a small pool on PostgreSQL), runs the body, and
    /// turns storage errors into the command's failure.
    package func withStorage(_ body: (any ServerStorage) async throws -> Void) async throws {
        var logger = Logger(label: "suite-server")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        do {
            if let database {
                let storage = try await PostgresServerStorage(url: try PostgresURL(database), maximumConnections: 2, logger: logger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await storage.pool.run() }
                    defer { group.cancelAll() }
                    // The pool leases connections once its run loop has started (before, postgres-nio
                    // warns): give that task a moment.
                    try await Task.sleep(for: .milliseconds(50))
                    try await body(storage)
                }
            } else {
                try await body(try SQLiteServerStorage(directory: sqliteDirectory))
            }
        } catch let error as ServerStorageError {
            throw ServerFailure(error)
        }
    }

    /// The SQLite data folder: `--data-dir`, else ``ServeCommand/defaultDataDirectory(environment:)``.
    package var sqliteDirectory: URL {
        dataDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? ServeCommand.defaultDataDirectory(environment: ProcessInfo.processInfo.environment)
    }
}
