import Foundation
import GRDB
import SuiteServer
import Testing

/// The shared storage suite on SQLite, in a temporary folder per test.
@Suite("Storage on SQLite")
struct SQLiteStorageTests {
    let contract = StorageContract(backend: .sqlite)

    /// Every test of the contract (``StorageContract/cases``), on this backend.
    @Test(arguments: StorageContract.cases)
    func keepsTheContract(_ test: ContractCase<StorageContract>) async throws { try await test.run(contract) }

    /// A file a newer suite-server migrated is refused, and left as it was.
    @Test func aNewerSchemaIsRefusedUnchanged() async throws {
        try await TestBackend.sqlite.withPlace { place in
            _ = try SQLiteServerStorage(directory: place.directory)
            let file = place.directory.appendingPathComponent(SQLiteServerStorage.fileName)
            let queue = try DatabaseQueue(path: file.path)
            try await queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('99-from-the-future')") }
            try queue.close()
            let before = try Data(contentsOf: file)
            #expect {
                _ = try SQLiteServerStorage(directory: place.directory)
            } throws: { error in
                guard case ServerStorageError.migrationFailed(let reason) = error else { return false }
                return reason.contains("newer suite-server")
            }
            #expect(try Data(contentsOf: file) == before)
        }
    }

    @Test func filesArePrivateAndTheJournalIsWAL() async throws {
        try await TestBackend.sqlite.withPlace { place in
            let storage = try SQLiteServerStorage(directory: place.directory)
            let folder = try FileManager.default.attributesOfItem(atPath: place.directory.path)
            let file = try FileManager.default.attributesOfItem(atPath: storage.fileURL.path)
            #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            #expect((file[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try await storage.pragma("journal_mode") == "wal")
            #expect(try await storage.pragma("synchronous") == "2")
        }
    }

    @Test func aFileWhereTheFolderShouldBeIsRefused() async throws {
        try await TestBackend.sqlite.withPlace { place in
            try FileManager.default.createDirectory(at: place.directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: place.directory.path, contents: Data("x".utf8)))
            #expect(throws: ServerStorageError.self) { try SQLiteServerStorage(directory: place.directory) }
        }
    }
}
