import ArgumentParser
import Foundation
import Logging

/// `suite-server migrate --from DIR|URL --to DIR|URL`: moves a server between SQLite and
/// PostgreSQL with nothing lost.
package struct MigrateCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move the server's storage from SQLite to PostgreSQL, or back (serve stopped).",
        discussion: """
            Every row is copied as it is: accounts, devices and their tokens, logs with their \
            epochs and positions, community data, invites and usage, so devices keep syncing \
            without noticing. Stop serve first: while it copies, migrate keeps every other \
            writer of the source waiting. The source's data is not changed (its schema is \
            brought up to date first, as serve would); the destination must hold no server yet \
            (a data folder without server.sqlite, or a database without accounts) and gets \
            everything or nothing.
            """ + "\n\n" + EnvironmentOptions.help(for: "migrate"))

    @Option(help: ArgumentHelp("The storage now: a SQLite data folder or a postgres:// URL.", valueName: "dir|url"))
    package var from: String

    @Option(help: ArgumentHelp("The new storage: a data folder or a postgres:// URL.", valueName: "dir|url"))
    package var to: String

    package init() {}

    /// A side of the migration.
    enum Place: Equatable, CustomStringConvertible {
        case sqlite(URL)
        case postgres(PostgresURL)

        init(_ text: String, option: String) throws {
            guard !text.isEmpty else { throw ValidationError("--\(option) is empty") }
            if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
                do {
                    self = .postgres(try PostgresURL(text))
                } catch {
                    throw ValidationError("--\(option): \(error)")
                }
            } else {
                self = .sqlite(URL(fileURLWithPath: text, isDirectory: true).standardizedFileURL)
            }
        }

        var description: String {
            switch self {
            case .sqlite(let folder): "SQLite (\(folder.path))"
            case .postgres(let url): "PostgreSQL (\(url))"
            }
        }
    }

    package func validate() throws {
        guard try Place(from, option: "from") != Place(to, option: "to") else {
            throw ValidationError("--from and --to name the same storage")
        }
    }

    package func run() async throws {
        let source = try Place(from, option: "from"), destination = try Place(to, option: "to")
        var logger = Logger(label: "suite-server")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let started = ContinuousClock.now
        do {
            let reader: any TransferReader = switch source {
            case .sqlite(let folder): try SQLiteTransferReader(directory: folder)
            case .postgres(let url): try await PostgresTransferReader(url: url, logger: logger)
            }
            let writer: any TransferWriter
            do {
                writer = switch destination {
                case .sqlite(let folder): try SQLiteTransferWriter(directory: folder)
                case .postgres(let url): try await PostgresTransferWriter(url: url, logger: logger)
                }
            } catch {
                await reader.close()
                throw error
            }
            let copied: [Int64]
            do {
                copied = try await Self.copy(from: reader, to: writer)
            } catch {
                await writer.discard()
                await reader.close()
                throw error
            }
            await reader.close()
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let count = { (table: String) in copied[ServerTransfer.tables.firstIndex { $0.name == table }!] }
            StandardOutput.writeLine("""
                migrated \(count("accounts")) accounts, \(count("devices")) devices and \(count("operations")) operations \
                from \(source) to \(destination) in \(String(format: "%.1f", seconds)) s; \
                serve from the new storage now (the old one is unchanged)
                """)
        } catch let error as ServerStorageError {
            throw ServerFailure(error)
        }
    }

    /// Copies every table, checks the copy and the source, and keeps the copy.
    ///
    /// - Returns: The fingerprint (rows of each table first).
    package static func copy(from reader: any TransferReader, to writer: any TransferWriter) async throws -> [Int64] {
        let before = try await reader.fingerprint()
        for table in ServerTransfer.tables {
            var after: [ServerTransfer.Value]?
            var limit = ServerTransfer.firstPageRows
            while true {
                let rows = try await reader.page(table, after: after, limit: limit)
                if rows.isEmpty { break }
                try await writer.insert(table, rows: rows)
                if rows.count < limit { break }
                after = table.keyIndices.map { rows[rows.count - 1][$0] }
                limit = ServerTransfer.nextPageRows(after: rows)
            }
        }
        let copied = try await writer.fingerprint()
        if let difference = ServerTransfer.difference(before, copied) {
            throw ServerFailure("the copy differs from the source (\(difference)); nothing was kept", exitCode: ServerFailure.ioError)
        }
        // The readers hold the source's locks, so this holds; checked all the same.
        let now = try await reader.currentFingerprint()
        if let difference = ServerTransfer.difference(before, now) {
            throw ServerFailure("the source changed while it was copied (\(difference)): stop suite-server serve and migrate again; nothing was kept",
                                exitCode: ServerFailure.failure)
        }
        try await writer.commit()
        return copied
    }
}

/// The side a migration reads, in one snapshot.
package protocol TransferReader {
    /// Up to `limit` rows of a table after the key `after` (from the start when nil), in key order.
    func page(_ table: ServerTransfer.Table, after: [ServerTransfer.Value]?, limit: Int) async throws -> [[ServerTransfer.Value]]
    /// ``ServerTransfer/fingerprintSQL`` in the snapshot.
    func fingerprint() async throws -> [Int64]
    /// ``ServerTransfer/fingerprintSQL`` as the storage is now.
    func currentFingerprint() async throws -> [Int64]
    func close() async
}

/// The side a migration writes: nothing of it is seen until ``commit()``.
package protocol TransferWriter {
    func insert(_ table: ServerTransfer.Table, rows: [[ServerTransfer.Value]]) async throws
    /// ``ServerTransfer/fingerprintSQL`` of what was written.
    func fingerprint() async throws -> [Int64]
    func commit() async throws
    /// Drops what was written.
    func discard() async
}
