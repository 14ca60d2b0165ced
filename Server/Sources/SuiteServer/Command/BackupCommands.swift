import ArgumentParser
import Crypto
import Foundation
import GRDB

/// What a backup folder holds besides the data: which backend made it, when, and a digest of
/// the data file (checked before a restore).
struct BackupManifest: Codable, Equatable {
    static let fileName = "manifest.json"
    /// `sqlite` (a `server.sqlite` copy) or `postgresql` (a `pg_dump` archive, `server.pgdump`).
    var backend: String
    var file: String
    var sha256: String
    var createdAt: Date
    var format = 1
}

enum BackupFiles {
    static func sha256(_ url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Runs a PostgreSQL client tool; its error output becomes the failure's line.
    static func run(_ tool: String, _ arguments: [String], password: String?) throws {
        let process = Process()
        guard let path = ["/usr/bin/\(tool)", "/usr/local/bin/\(tool)"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ServerFailure("\(tool) is not installed (Debian: apt install postgresql-client)", exitCode: ServerFailure.unavailable)
        }
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        if let password { environment["PGPASSWORD"] = password }
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let line = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? "exit \(process.terminationStatus)"
            throw ServerFailure("\(tool) failed: \(line)", exitCode: ServerFailure.ioError)
        }
    }
}

/// `suite-server backup DIR [--data-dir D | --database URL]`.
package struct BackupCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the server's storage into a new folder, consistent while serve runs.",
        discussion: """
            SQLite: a copy of server.sqlite made with SQLite's online backup (one consistent \
            moment, while serve goes on). PostgreSQL: a pg_dump archive (one snapshot), which \
            needs pg_dump. The folder also gets manifest.json (backend, time, SHA-256); files \
            are 0600 in a 0700 folder. `suite-server restore DIR` puts it back.
            """ + "\n\n" + EnvironmentOptions.help(for: "backup"))

    @OptionGroup package var place: StorageOptions
    @Argument(help: ArgumentHelp("A new (or empty) folder for the backup.", valueName: "dir"))
    package var folder: String

    package init() {}

    package func run() async throws {
        let target = URL(fileURLWithPath: folder, isDirectory: true)
        let manager = FileManager.default
        if manager.fileExists(atPath: target.path) {
            guard (try? manager.contentsOfDirectory(atPath: target.path))?.isEmpty == true else {
                throw ServerFailure("\(target.path) exists and is not an empty folder", exitCode: ServerFailure.ioError)
            }
        } else {
            do {
                try manager.createDirectory(at: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ServerFailure("cannot create \(target.path): \(error.localizedDescription)", exitCode: ServerFailure.ioError)
            }
        }
        try? manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: target.path)
        let backend: String, file: String
        if let database = place.database {
            backend = "postgresql"; file = "server.pgdump"
            // Opened first: an unreachable database or an older schema fails here, clearly.
            try await place.withStorage { _ in }
            let url = try PostgresURL(database)
            try BackupFiles.run("pg_dump", ["--format=custom", "--no-owner", "--file", target.appendingPathComponent(file).path, "--dbname", url.libpqURL],
                                password: url.password)
        } else {
            backend = "sqlite"; file = SQLiteServerStorage.fileName
            try await place.withStorage { storage in
                guard let storage = storage as? SQLiteServerStorage else { return }
                let copy = try DatabaseQueue(path: target.appendingPathComponent(file).path)
                try storage.pool.backup(to: copy)
                try copy.close()
            }
        }
        let data = target.appendingPathComponent(file)
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: data.path)
        let manifest = BackupManifest(backend: backend, file: file, sha256: try BackupFiles.sha256(data), createdAt: Date())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let manifestURL = target.appendingPathComponent(BackupManifest.fileName)
        try encoder.encode(manifest).write(to: manifestURL)
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: manifestURL.path)
        StandardOutput.writeLine("backed up (\(backend)) into \(target.path)")
    }
}

/// `suite-server restore DIR [--data-dir D | --database URL]`.
package struct RestoreCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup back into an empty data folder or database (serve stopped).",
        discussion: """
            The backup's digest is checked first; the target must hold no server yet (a data \
            folder without server.sqlite, or a database without Suite's tables), so nothing is \
            overwritten. Accounts, devices, tokens, logs and the epoch come back as they were: \
            devices keep syncing and send what the backup lacks. A SQLite backup restores into a \
            data folder, a PostgreSQL one into a database (pg_restore).
            """ + "\n\n" + EnvironmentOptions.help(for: "restore"))

    @OptionGroup package var place: StorageOptions
    @Argument(help: ArgumentHelp("A folder made by suite-server backup.", valueName: "dir"))
    package var folder: String

    package init() {}

    package func run() async throws {
        let source = URL(fileURLWithPath: folder, isDirectory: true)
        let manifest: BackupManifest
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            manifest = try decoder.decode(BackupManifest.self, from: Data(contentsOf: source.appendingPathComponent(BackupManifest.fileName)))
        } catch {
            throw ServerFailure("\(source.path) is not a suite-server backup (no readable manifest.json)", exitCode: ServerFailure.dataError)
        }
        let data = source.appendingPathComponent(manifest.file)
        guard manifest.file == SQLiteServerStorage.fileName || manifest.file == "server.pgdump",
              (try? BackupFiles.sha256(data)) == manifest.sha256 else {
            throw ServerFailure("the backup in \(source.path) is damaged (\(manifest.file) does not match its digest)", exitCode: ServerFailure.dataError)
        }
        if let database = place.database {
            guard manifest.backend == "postgresql" else {
                throw ServerFailure("this is a SQLite backup: restore it into a data folder (--data-dir)", exitCode: ServerFailure.usage)
            }
            let url = try PostgresURL(database)
            guard try await !PostgresServerStorage.hasSchema(url: url) else {
                throw ServerFailure("the database already holds a suite-server; restore into an empty one", exitCode: ServerFailure.ioError)
            }
            try BackupFiles.run("pg_restore", ["--no-owner", "--exit-on-error", "--dbname", url.libpqURL, data.path], password: url.password)
        } else {
            guard manifest.backend == "sqlite" else {
                throw ServerFailure("this is a PostgreSQL backup: restore it into a database (--database)", exitCode: ServerFailure.usage)
            }
            let directory = place.sqliteDirectory
            let target = directory.appendingPathComponent(SQLiteServerStorage.fileName)
            let manager = FileManager.default
            guard !manager.fileExists(atPath: target.path) else {
                throw ServerFailure("\(target.path) exists; restore into a data folder without a server", exitCode: ServerFailure.ioError)
            }
            do {
                try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let partial = directory.appendingPathComponent(".restore-\(UUID().uuidString)")
                try manager.copyItem(at: data, to: partial)
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial.path)
                try manager.moveItem(at: partial, to: target)
            } catch {
                throw ServerFailure("cannot restore into \(directory.path): \(error.localizedDescription)", exitCode: ServerFailure.ioError)
            }
        }
        // Opening it checks it and brings its schema up to date.
        try await place.withStorage { _ in }
        StandardOutput.writeLine("restored (\(manifest.backend)) from \(source.path)")
    }
}
