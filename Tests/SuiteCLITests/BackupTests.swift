import Foundation
import GRDB
import Synchronization
import Testing

/// `suite backup` and `suite restore`: consistent copies while other processes write, and a
/// restore that never loses newer data unless told.
@Suite struct BackupTests {
    /// Texts whose `bundle add` returned 0, in order.
    final class Acknowledged: Sendable {
        let texts = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
    }

    @Test func aBackupTakenWhileAnotherProcessWritesHoldsEverythingAcknowledgedBeforeIt() throws {
        let suite = try Suite()
        try suite.run(["bundle", "add", "First, before any writer"])
        let acknowledged = Acknowledged()
        let writer = Thread {
            var index = 0
            while !acknowledged.stop.load(ordering: .relaxed) {
                index += 1
                let text = "Written concurrently \(index)"
                if let result = try? suite.runProcess(["bundle", "add", text]), result.status == 0 {
                    acknowledged.texts.withLock { $0.append(text) }
                }
            }
        }
        writer.start()
        defer { acknowledged.stop.store(true, ordering: .relaxed) }
        while acknowledged.texts.withLock({ $0.count }) < 5 { Thread.sleep(forTimeInterval: 0.02) }
        let before = acknowledged.texts.withLock { $0 }
        let backup = suite.path("backup")
        let result = try suite.runProcess(["backup", backup])
        #expect(result.status == 0, "\(result.stderr)")
        // The writer was still going around the backup: it acknowledges more after it.
        let deadline = Date().addingTimeInterval(60)
        while acknowledged.texts.withLock({ $0.count }) <= before.count && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let after = acknowledged.texts.withLock { $0.count }
        acknowledged.stop.store(true, ordering: .relaxed)
        while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(after > before.count, "the writer kept writing around the backup")

        let copy = try DatabaseQueue(path: backup + "/bundle.sqlite")
        #expect(try copy.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
        let texts = Set(try copy.read { db in try String.fetchAll(db, sql: "SELECT text FROM todo") })
        #expect(texts.contains("First, before any writer"))
        #expect(Set(before).isSubset(of: texts), "missing: \(Set(before).subtracting(texts).sorted())")
        try copy.close()
        let attributes = try FileManager.default.attributesOfItem(atPath: backup + "/bundle.sqlite")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(FileManager.default.fileExists(atPath: backup + "/suite-backup.json"))

        // Restored into a new store folder: the same todos.
        let restored = try suite.run(["restore", backup], environment: ["SUITE_HOME": suite.path("elsewhere")])
        #expect(restored.status == 0, "\(restored.stderr)")
        let todos = try suite.run(["bundle", "todos", "--json"], environment: ["SUITE_HOME": suite.path("elsewhere")])
        for text in before { #expect(todos.stdout.contains(text)) }
    }

    @Test func restoreRefusesToOverwriteNewerDataWithoutForceAndChangesNothing() throws {
        let suite = try Suite()
        try suite.run(["bundle", "add", "Kept in the backup"])
        try suite.run(["quotes", "add", "A quote of my own"])
        #expect(try suite.run(["backup", suite.path("b")]).status == 0)
        // A second backup never overwrites the first.
        #expect(try suite.run(["backup", suite.path("b")]).status == 1)
        Thread.sleep(forTimeInterval: 0.05)
        try suite.run(["bundle", "add", "Written after the backup"])
        let refused = try suite.run(["restore", suite.path("b")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("after the backup was taken") && refused.stderr.contains("--force"))
        #expect(try suite.run(["bundle", "todos"]).stdout.contains("Written after the backup"))

        let forced = try suite.run(["restore", suite.path("b"), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("quotes.sqlite: unchanged since the backup"))
        let todos = try suite.run(["bundle", "todos"]).stdout
        #expect(todos.contains("Kept in the backup") && !todos.contains("Written after the backup"))
        #expect(try suite.run(["check"]).status == 0)
    }

    @Test func aDamagedOrForeignBackupIsRefusedBeforeAnyStoreChanges() throws {
        let suite = try Suite()
        try suite.run(["bundle", "add", "Mine"])
        try suite.run(["quotes", "add", "A quote of my own"])
        let backup = suite.path("b")
        #expect(try suite.run(["backup", backup]).status == 0)
        // The second copy in the manifest is damaged: the first store must not be restored either.
        let bundle = backup + "/bundle.sqlite"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        for index in stride(from: 4096, to: min(bytes.count, 4096 * 3), by: 1) { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: bundle))
        try suite.run(["quotes", "add", "After the backup"])
        let result = try suite.run(["restore", backup, "--force"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("bundle.sqlite cannot be restored"))
        #expect(try suite.run(["quotes", "list", "--mine", "--json"]).stdout.contains("After the backup"))
        #expect(!FileManager.default.fileExists(atPath: suite.storeFolder.appendingPathComponent(".restore-quotes.sqlite").path))

        let none = try suite.run(["restore", suite.path("nowhere")])
        #expect(none.status == 66)
        try "{\"format\": \"other\"}".write(toFile: backup + "/suite-backup.json", atomically: true, encoding: .utf8)
        #expect(try suite.run(["restore", backup]).status == 65)
    }
}

/// What a backup holds beyond the store files, and what a restore lets into the live stores.
@Suite struct BackupContentTests {
    /// The stored path of attachment `number` of todo 1, from `bundle attachments`.
    static func storedPath(_ suite: Suite, environment: [String: String?] = [:]) throws -> String {
        let listing = try suite.run(["bundle", "attachments", "1"], environment: environment)
        let fileLine = try #require(listing.stdout.split(separator: "\n").first { $0.contains(" file ") }, "\(listing.stdout)\(listing.stderr)")
        return String(try #require(fileLine.range(of: " at ").map { fileLine[$0.upperBound...] }))
    }

    @Test func aBackupCarriesAttachedFilesAndRestorePutsThemWhereTheTodosPoint() async throws {
        let suite = try Suite()
        let lease = suite.path("lease.pdf")
        try Data("%PDF-1.4 the lease".utf8).write(to: URL(fileURLWithPath: lease))
        #expect(try await suite.runProcessAsync(["bundle", "add", "Sign the lease", "--attach", lease]).status == 0)
        let backup = suite.path("b")
        let made = try await suite.runProcessAsync(["backup", backup])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("attachments: 1 file, 18 bytes"), "\(made.stdout)")
        let copies = try FileManager.default.contentsOfDirectory(atPath: backup + "/attachments")
        #expect(copies.count == 1)
        let manifest = try String(contentsOfFile: backup + "/suite-backup.json", encoding: .utf8)
        #expect(manifest.contains("\"attachments/\(copies[0])\""), "\(manifest)")
        let copyMode = try FileManager.default.attributesOfItem(atPath: backup + "/attachments/" + copies[0])[.posixPermissions] as? NSNumber
        #expect(copyMode?.intValue == 0o600)

        // Restored into another store folder, while the first one is gone: the todo's file is there.
        let elsewhere: [String: String?] = ["SUITE_HOME": suite.path("elsewhere")]
        try FileManager.default.removeItem(at: suite.storeFolder)
        let restored = try await suite.runProcessAsync(["restore", backup], environment: elsewhere)
        #expect(restored.status == 0, "\(restored.stderr)")
        let stored = try Self.storedPath(suite, environment: elsewhere)
        #expect(stored.hasPrefix(suite.path("elsewhere") + "/attachments/"), "\(stored)")
        #expect(FileManager.default.contents(atPath: stored) == Data("%PDF-1.4 the lease".utf8))
        #expect(try await suite.runProcessAsync(["check"], environment: elsewhere).status == 0)
        // Restoring the same backup again finds the store as restored: nothing to overwrite.
        let again = try await suite.runProcessAsync(["restore", backup], environment: elsewhere)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("bundle.sqlite: unchanged since the backup"), "\(again.stdout)")
    }

    @Test func aBackupWithAnAttachmentMissingOrOutsideItsFolderIsRefusedWithNothingChanged() async throws {
        let suite = try Suite()
        let lease = suite.path("lease.pdf")
        try Data("lease".utf8).write(to: URL(fileURLWithPath: lease))
        #expect(try suite.run(["bundle", "add", "Sign the lease", "--attach", lease]).status == 0)
        let backup = suite.path("b")
        #expect(try suite.run(["backup", backup]).status == 0)
        let elsewhere: [String: String?] = ["SUITE_HOME": suite.path("elsewhere")]
        let copies = try FileManager.default.contentsOfDirectory(atPath: backup + "/attachments")
        try FileManager.default.removeItem(atPath: backup + "/attachments/" + copies[0])
        expectFailure(try await suite.runProcessAsync(["restore", backup], environment: elsewhere), status: 65, "is missing: the backup is incomplete")
        #expect(!FileManager.default.fileExists(atPath: suite.path("elsewhere") + "/bundle.sqlite"))

        let manifestPath = backup + "/suite-backup.json"
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        try manifest.replacingOccurrences(of: "\"attachments/\(copies[0])\"", with: "\"attachments/../../outside\"")
            .write(toFile: manifestPath, atomically: true, encoding: .utf8)
        expectFailure(try await suite.runProcessAsync(["restore", backup], environment: elsewhere), status: 65, "names an attached file suite does not make")
        #expect(!FileManager.default.fileExists(atPath: suite.path("elsewhere") + "/bundle.sqlite"))
    }

    /// The first (by name) object of `type` in the database at `path` that Suite made (with SQL).
    static func firstName(in path: String, of type: String) throws -> String? {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM sqlite_schema WHERE type = ? AND sql IS NOT NULL ORDER BY name LIMIT 1", arguments: [type])
        }
    }

    /// SQL added to a store file, as a backup could carry it.
    static func plant(_ sql: String, in path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
        try queue.close()
        for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
    }

    @Test func restoreAndCheckRefuseAStoreWithSQLSuiteDoesNotMake() async throws {
        let suite = try Suite()
        try suite.run(["quotes", "add", "A quote of my own"])
        try suite.run(["bundle", "add", "Mine"])
        let backup = suite.path("b")
        #expect(try suite.run(["backup", backup]).status == 0)
        try Self.plant("CREATE TRIGGER eat_notes AFTER INSERT ON todo BEGIN DELETE FROM todo; END", in: backup + "/bundle.sqlite")
        try suite.run(["bundle", "add", "After the backup"])
        let before = try suite.dump("bundle.sqlite")
        let refused = try await suite.runProcessAsync(["restore", backup, "--force"])
        expectFailure(refused, status: 65, "bundle.sqlite cannot be restored: its schema is not the one suite makes: an unexpected trigger 'eat_notes' (Suite does not make it)")
        #expect(try suite.dump("bundle.sqlite") == before)

        // The same trigger planted in a live store: check names it, and exits 74.
        let live = suite.storeFolder.appendingPathComponent("quotes.sqlite").path
        try Self.plant("CREATE VIEW peek AS SELECT 1", in: live)
        let checked = try await suite.runProcessAsync(["check"])
        #expect(checked.status == 74, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("quotes: ALTERED (\(live)): an unexpected view 'peek' (Suite does not make it)"), "\(checked.stdout)")
        #expect(checked.stdout.contains("bundle: healthy"))
        let json = try await suite.runProcessAsync(["check", "--json"])
        #expect(json.stdout.contains("schema: an unexpected view 'peek'"), "\(json.stdout)")

        // A trigger Suite makes, changed: named too.
        try Self.plant("DROP VIEW peek", in: live)
        let trigger = try #require(try Self.firstName(in: live, of: "trigger"))
        for suffix in ["-wal", "-shm"] { unlink(live + suffix) }
        try Self.plant("DROP TRIGGER \"\(trigger)\"; CREATE TRIGGER \"\(trigger)\" AFTER INSERT ON quote BEGIN DELETE FROM quote; END", in: live)
        let changed = try await suite.runProcessAsync(["check"])
        #expect(changed.status == 74)
        #expect(changed.stdout.contains("the trigger '\(trigger)' is not the one Suite makes"), "\(changed.stdout)")
        try Self.plant("DROP TRIGGER \"\(trigger)\"", in: live)
        #expect(try await suite.runProcessAsync(["check"]).stdout.contains("the trigger '\(trigger)' is missing"))
    }

    /// What a forged copy could change besides triggers: an index Suite makes, on other columns;
    /// the migrations list (which would hide the rest from the comparison).
    @Test func aChangedIndexOrAForgedMigrationsListIsNamed() async throws {
        let suite = try Suite()
        try suite.run(["bundle", "add", "Mine"])
        let backup = suite.path("b")
        #expect(try suite.run(["backup", backup]).status == 0)
        let copy = backup + "/bundle.sqlite"
        let index = try #require(try Self.firstName(in: copy, of: "index"))
        for suffix in ["-wal", "-shm"] { unlink(copy + suffix) }
        let pristine = try Data(contentsOf: URL(fileURLWithPath: copy))
        try Self.plant("DROP INDEX \"\(index)\"; CREATE INDEX \"\(index)\" ON todo(text)", in: copy)
        expectFailure(try await suite.runProcessAsync(["restore", backup, "--force"]), status: 65, "the index '\(index)' is not the one Suite makes")
        try pristine.write(to: URL(fileURLWithPath: copy))
        try Self.plant("DELETE FROM grdb_migrations WHERE identifier = 'v1'; CREATE TRIGGER hidden AFTER INSERT ON todo BEGIN DELETE FROM todo; END", in: copy)
        expectFailure(try await suite.runProcessAsync(["restore", backup, "--force"]), status: 65, "the migrations it records are not a sequence Suite makes")
        try pristine.write(to: URL(fileURLWithPath: copy))
        try Self.plant("INSERT INTO grdb_migrations VALUES ('zz-later'); CREATE TRIGGER hidden AFTER INSERT ON todo BEGIN DELETE FROM todo; END", in: copy)
        expectFailure(try await suite.runProcessAsync(["restore", backup, "--force"]), status: 65, "unknown: 'zz-later'")
        #expect(try suite.run(["bundle", "list"]).stdout.contains("Mine"))
    }

    @Test func everyStoreSuiteMakesAndUsesMatchesItsSchema() async throws {
        let suite = try Suite()
        try suite.run(["bmm", "add", "Acme"])
        try suite.run(["bmm", "set", "vp", "--text", "Bread"])
        try suite.run(["places", "add", "--name", "Corner café", "--at", "48.85,2.35"])
        try suite.run(["quotes", "random"])
        try suite.run(["bundle", "add", "Mine", "--before", "go out"])
        let result = try await suite.runProcessAsync(["check"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 4, "\(result.stdout)")
    }
}
