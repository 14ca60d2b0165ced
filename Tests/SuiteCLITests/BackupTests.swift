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
        #expect(try suite.run(["quotes", "list", "--json"]).stdout.contains("After the backup"))
        #expect(!FileManager.default.fileExists(atPath: suite.storeFolder.appendingPathComponent(".restore-quotes.sqlite").path))

        let none = try suite.run(["restore", suite.path("nowhere")])
        #expect(none.status == 66)
        try "{\"format\": \"other\"}".write(toFile: backup + "/suite-backup.json", atomically: true, encoding: .utf8)
        #expect(try suite.run(["restore", backup]).status == 65)
    }
}
