import Foundation
import SuiteTestSupport
import GRDB
import Testing
@testable import SuiteStorage

struct TestStoreError: StoreFailureRepresentable, Equatable {
    let failure: StoreFailure
    init(storeFailure: StoreFailure) { failure = storeFailure }
}

typealias TestStore = Store<TestStoreError>

/// A fresh private folder per test, so tests run in parallel.
func temporaryFolder() throws -> URL {
    let url = TestFolders.make("suite-storage-tests")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

func migrator(versions: Int) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerStoreMigration("v1") { db in
        try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    }
    if versions >= 2 {
        migrator.registerStoreMigration("v2") { db in
            try db.execute(sql: "ALTER TABLE item ADD COLUMN note TEXT")
        }
    }
    return migrator
}

let configuration = StoreConfiguration(applicationID: 0x7465_7374, busyTimeout: 10, requiredFeatures: [.fts5, .rtree])

func openStore(_ url: URL, versions: Int = 1, timeout: TimeInterval = 10) throws(TestStoreError) -> TestStore {
    var config = configuration
    config.busyTimeout = timeout
    return try TestStore.open(at: url, migrator: migrator(versions: versions), configuration: config)
}

/// Expects opening `url` to fail with a failure matching `check`, and the file to be unchanged.
func expectRefusedUnchanged(_ url: URL, versions: Int = 1, _ check: (StoreFailure) -> Bool) throws {
    let before = try Data(contentsOf: url)
    let siblingsBefore = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
    do {
        _ = try openStore(url, versions: versions)
        Issue.record("opening \(url.path) should have failed")
    } catch {
        #expect(check(error.failure), "unexpected failure: \(error.failure)")
        #expect(error.failure.path == url.path)
        #expect(error.failure.description.contains(url.path))
    }
    let after = try Data(contentsOf: url)
    #expect(before == after, "the refused file changed")
    let siblingsAfter = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        .filter { !$0.hasSuffix(".lock") }.sorted()
    #expect(siblingsAfter == siblingsBefore.filter { !$0.hasSuffix(".lock") })
}

@Suite struct OpeningAStore {
    @Test func createsTheFileWithMode0600AndTheFolderWith0700() throws {
        let folder = try temporaryFolder().appendingPathComponent("nested/store")
        let url = folder.appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('a')") }
        #expect(try mode(url.path) == 0o600)
        #expect(try mode(folder.path) == 0o700)
        #expect(try mode(url.path + ".lock") == 0o600)
        // While open, the write-ahead log and shared memory files are private too.
        #expect(try mode(url.path + "-wal") == 0o600)
        #expect(try mode(url.path + "-shm") == 0o600)
        try store.close()
        let reopened = try openStore(url)
        #expect(try mode(url.path) == 0o600)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
    }

    @Test func usesWALWithSynchronousFullAndABusyTimeout() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        let (journal, synchronous) = try store.write { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        #expect(journal == "wal")
        #expect(synchronous == 2)  // FULL
        let readerSynchronous = try store.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(readerSynchronous == 2)
        let busyTimeout = try store.read { db in try Int.fetchOne(db, sql: "PRAGMA busy_timeout") }
        #expect(busyTimeout == 10_000)
    }

    @Test func theSQLiteFeaturesTheProjectNeedsWork() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        let found = try store.write { db -> (String?, Int?) in
            try db.execute(sql: "CREATE VIRTUAL TABLE doc USING fts5(body)")
            try db.execute(sql: "INSERT INTO doc (body) VALUES ('imagination is more important than knowledge')")
            try db.execute(sql: "CREATE VIRTUAL TABLE box USING rtree(id, minX, maxX, minY, maxY)")
            try db.execute(sql: "INSERT INTO box VALUES (1, 0, 1, 0, 1)")
            return (try String.fetchOne(db, sql: "SELECT body FROM doc WHERE doc MATCH 'imag*'"),
                    try Int.fetchOne(db, sql: "SELECT id FROM box WHERE minX <= 0.5 AND maxX >= 0.5"))
        }
        #expect(found.0 == "imagination is more important than knowledge")
        #expect(found.1 == 1)
    }

    @Test func refusesRandomBytesAndLeavesThemUntouched() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: url)
        try expectRefusedUnchanged(url) { if case .corrupt = $0 { true } else { false } }
    }

    @Test func refusesAnEmptyFile() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        try Data().write(to: url)
        try expectRefusedUnchanged(url) { if case .corrupt(_, let reason) = $0 { reason.contains("empty") } else { false } }
    }

    @Test func refusesATruncatedDatabase() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        try store.write { db in
            for index in 0..<2000 {
                try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: ["item number \(index) with some text"])
            }
        }
        try store.close()
        let full = try Data(contentsOf: url)
        #expect(full.count > 16_384)
        try full.prefix(full.count / 2).write(to: url)
        try expectRefusedUnchanged(url) { if case .corrupt(_, let reason) = $0 { reason.contains("truncated") } else { false } }
    }

    @Test func refusesADatabaseFromANewerSchema() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let newer = try openStore(url, versions: 2)
        try newer.write { db in try db.execute(sql: "INSERT INTO item (name, note) VALUES ('a', 'b')") }
        try newer.close()
        try expectRefusedUnchanged(url, versions: 1) { $0 == .newerSchema(path: url.path) }
    }

    @Test func refusesANewerSchemaWhoseMigrationIsStillInTheLog() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        try openStore(url, versions: 1).close()
        // A newer version migrates and stays open: its migration is in the log, not yet in the
        // file, whose header still counts one migration.
        let newer = try openStore(url, versions: 2)
        try newer.write { db in try db.execute(sql: "INSERT INTO item (name, note) VALUES ('a', 'b')") }
        let before = try Data(contentsOf: url)
        for readOnly in [false, true] {
            #expect(throws: TestStoreError(storeFailure: .newerSchema(path: url.path))) {
                try TestStore.open(at: url, migrator: migrator(versions: 1), configuration: configuration, readOnly: readOnly)
            }
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try newer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
        try newer.close()
    }

    @Test func countsMigrationsInUserVersion() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        try openStore(url, versions: 1).close()
        func userVersion() throws -> Int {
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            return try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1 }
        }
        func setUserVersion(_ version: Int) throws {
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(version)") }
        }
        #expect(try userVersion() == 1)
        try openStore(url, versions: 2).close()
        #expect(try userVersion() == 2)

        // A store migrated before migrations counted themselves: a read-only open leaves it be,
        // the next writable open gives it its count.
        try setUserVersion(0)
        let reader = try TestStore.open(at: url, migrator: migrator(versions: 2), configuration: configuration, readOnly: true)
        try reader.close()
        #expect(try userVersion() == 0)
        try openStore(url, versions: 2).close()
        #expect(try userVersion() == 2)

        // More migrations counted than this build knows: written by a newer version.
        try setUserVersion(3)
        try expectRefusedUnchanged(url, versions: 2) { $0 == .newerSchema(path: url.path) }
    }

    @Test func aBulkWriteCommitsOrRollsBackAndRestoresTheCacheSize() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        func cacheSize(_ db: Database) throws -> Int { try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0 }
        let usual = try store.write { db in try cacheSize(db) }
        let during = try store.bulkWrite(cacheKiB: 8192) { db in
            try db.execute(sql: "INSERT INTO item (name) VALUES ('kept')")
            return try cacheSize(db)
        }
        #expect(during == -8192)
        #expect(try store.write { db in try cacheSize(db) } == usual)
        do {
            try store.bulkWrite { db in
                try db.execute(sql: "INSERT INTO item (name) VALUES ('dropped')")
                throw TestStoreError(storeFailure: .busy(path: "-"))
            }
            Issue.record("the error was swallowed")
        } catch {}
        #expect(try store.write { db in try cacheSize(db) } == usual)
        #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM item") } == ["kept"])
    }

    @Test func aBulkWritesScratchIsAFileOfItsOwnThatIsGoneAfterwardsAndLeftoversOfTheDeadAreRemoved() throws {
        let folder = try temporaryFolder()
        let url = folder.appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        // A scratch file left by a process that no longer exists (pid numbers above the kernel's
        // limit are never alive), and one of this process, which is left alone.
        let dead = url.path + ".scratch-2147483646-1"
        let alive = url.path + ".scratch-\(getpid())-1"
        for path in [dead, alive] { #expect(FileManager.default.createFile(atPath: path, contents: Data())) }
        let seen = try store.bulkWrite(scratch: true) { db in
            try db.execute(sql: "CREATE TABLE scratch.seen (key TEXT PRIMARY KEY) WITHOUT ROWID")
            let insert = try db.makeStatement(sql: "INSERT INTO scratch.seen (key) VALUES (?)")
            for n in 0..<5000 { try insert.execute(arguments: ["key \(n)"]) }
            try db.execute(sql: "INSERT INTO item (name) SELECT key FROM scratch.seen WHERE key = 'key 42'")
            // The scratch database is a file in the store's folder, private to its owner.
            let file = try String.fetchOne(db, sql: "SELECT file FROM pragma_database_list WHERE name = 'scratch'") ?? ""
            #expect(file.hasPrefix(url.path + ".scratch-\(getpid())-"))
            #expect(try mode(file) & 0o777 == 0o600)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM scratch.seen")
        }
        #expect(seen == 5000)
        #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM item") } == ["key 42"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".scratch-") }
        #expect(names == [(alive as NSString).lastPathComponent])
        // Detached: the next write sees no scratch database, also after a bulk write that failed.
        #expect(throws: (any Error).self) {
            try store.bulkWrite(scratch: true) { db in
                try db.execute(sql: "CREATE TABLE scratch.seen (key TEXT)")
                throw TestStoreError(storeFailure: .busy(path: "-"))
            }
        }
        #expect(try !store.write { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_database_list") }.contains("scratch"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".scratch-") }.count == 1)
    }

    @Test func refusesADatabaseOfAnotherApplication() throws {
        let url = try temporaryFolder().appendingPathComponent("other.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT)") }
        try queue.close()
        try expectRefusedUnchanged(url) { if case .foreign = $0 { true } else { false } }
    }

    @Test func refusesAReadOnlyFile() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        try openStore(url).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: url.path)
        try expectRefusedUnchanged(url) { if case .readOnly(_, let reason) = $0 { reason.contains("read-only") } else { false } }
    }

    @Test func migratesAnOlderStoreForward() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let old = try openStore(url, versions: 1)
        try old.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('kept')") }
        try old.close()
        let upgraded = try openStore(url, versions: 2)
        let row = try upgraded.read { db in try Row.fetchOne(db, sql: "SELECT name, note FROM item") }
        #expect(row?["name"] == "kept")
        #expect(row?["note"] == nil as String?)
    }

    @Test func aReadOnlyOpenWritesNothingAndRefusesWrites() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('kept')") }
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "the last close checkpoints and removes the log")
        let before = try Data(contentsOf: url)
        let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date

        let reader = try TestStore.open(at: url, migrator: migrator(versions: 1), configuration: configuration, readOnly: true)
        #expect(try reader.read { db in try String.fetchOne(db, sql: "SELECT name FROM item") } == "kept")
        do {
            try reader.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('refused')") }
            Issue.record("a read-only store accepted a write")
        } catch {
            #expect(error.failure.description.contains(url.path))
        }
        try reader.close()
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date == modified)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")))?.isEmpty ?? true, "nothing was logged")
    }

    @Test func aReadOnlyOpenStillCreatesAndMigrates() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let created = try TestStore.open(at: url, migrator: migrator(versions: 1), configuration: configuration, readOnly: true)
        #expect(try created.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 0)
        try created.close()
        let upgraded = try TestStore.open(at: url, migrator: migrator(versions: 2), configuration: configuration, readOnly: true)
        #expect(try upgraded.read { db in try db.columns(in: "item").map(\.name) } == ["id", "name", "note"])
        try upgraded.close()
        // A newer schema is refused the same way when only reading.
        #expect(throws: TestStoreError(storeFailure: .newerSchema(path: url.path))) {
            try TestStore.open(at: url, migrator: migrator(versions: 1), configuration: configuration, readOnly: true)
        }
    }

    @Test func refusesAStoreFolderThatIsAFile() throws {
        let folder = try temporaryFolder().appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: folder)
        do {
            _ = try openStore(folder.appendingPathComponent("test.sqlite"))
            Issue.record("should have failed")
        } catch {
            guard case .unavailable(let path, let reason) = error.failure else {
                Issue.record("unexpected \(error.failure)")
                return
            }
            #expect(path == folder.path)
            #expect(reason.contains("is a file"))
        }
        #expect(try Data(contentsOf: folder) == Data("x".utf8))
    }

    @Test func waitsForTheLockAndGivesUpAsBusy() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let held = try FileLock(path: url.path + ".lock", timeout: 1)
        defer { withExtendedLifetime(held) {} }
        do {
            _ = try openStore(url, timeout: 0.2)
            Issue.record("should have been busy")
        } catch {
            #expect(error.failure == .busy(path: url.path + ".lock"))
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func sixConcurrentOpenersOfOneFreshStoreAllSucceed() async throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let results = await withTaskGroup(of: String?.self) { group in
            for index in 0..<6 {
                group.addTask {
                    do {
                        let store = try openStore(url, versions: 2)
                        try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: ["task \(index)"]) }
                        try store.close()
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            var failures: [String] = []
            for await result in group { if let result { failures.append(result) } }
            return failures
        }
        #expect(results.isEmpty)
        let store = try openStore(url, versions: 2)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 6)
        #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") } == ["v1", "v2"])
    }

    @Test func aFailedCreationLeavesNoStoreBehind() throws {
        let folder = try temporaryFolder()
        let url = folder.appendingPathComponent("test.sqlite")
        var broken = DatabaseMigrator()
        broken.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE oops (") }
        do {
            _ = try TestStore.open(at: url, migrator: broken, configuration: configuration)
            Issue.record("should have failed")
        } catch {}
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".lock") }
        #expect(names.isEmpty)
    }
}
