import ArgumentParser
import Foundation

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

    /// The SQLite data folder: `--data-dir`, else ``ServeCommand/defaultDataDirectory(environment:)``.
    package var sqliteDirectory: URL {
        dataDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? ServeCommand.defaultDataDirectory(environment: ProcessInfo.processInfo.environment)
    }
}
