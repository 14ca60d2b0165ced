import Foundation
import GRDB
import SuiteSyncProtocol
import SuiteTestSupport
import Testing
@testable import SuiteStorage

/// Compaction with the toy schema: the server keeps what is alive, a new device receives about
/// that much, and devices that were away lose nothing, whether the server still knows where
/// they had stopped (within the grace period) or not (past it: they read everything again).
@Suite struct SyncCompactionTests {
    static let day: Int64 = 86_400_000

    func session(_ device: Device, _ server: any SyncTransport) -> SyncSession<TestStoreError> {
        var session = SyncSession(store: device.store, log: "toy", transport: server)
        session.batchSize = 50
        return session
    }

    func add(_ device: Device, _ key: String, _ title: String) throws {
        try device.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES (?, ?, 0)", arguments: [key, title]) }
    }

    func rename(_ device: Device, _ key: String, _ title: String) throws {
        try device.store.write { db in try db.execute(sql: "UPDATE item SET title = ? WHERE uuid = ?", arguments: [title, key]) }
    }

    func delete(_ device: Device, _ key: String) throws {
        try device.store.write { db in try db.execute(sql: "DELETE FROM item WHERE uuid = ?", arguments: [key]) }
    }

    func liveFields(_ device: Device) throws -> Int {
        try device.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_field") ?? 0 }
    }

    @Test func aCompactionKeepsWhatIsAliveAndANewDeviceReceivesOnlyThat() async throws {
        let server = InMemorySyncServer()
        await server.setCompactionMinimumTail(100)
        let a = try Device(millis: Self.day)
        for n in 0..<30 { try add(a, "i\(n)", "Item \(n)") }
        _ = try await session(a, server).run()
        var compacted = 0
        for round in 1...10 {
            a.clock.now += 1000
            for n in 0..<30 { try rename(a, "i\(n)", "Item \(n), edit \(round)") }
            compacted += try await session(a, server).run().compactedAway
        }
        #expect(compacted > 0, "the server asked, and the device compacted")
        try delete(a, "i0")
        _ = try await session(a, server).run()
        let last = try #require(try await session(a, server).compact())
        let live = try liveFields(a)
        #expect(last.kept == Int64(live))
        let stored = await server.liveOperationCount(log: "toy")
        #expect(stored == live)
        let positions = await server.operationIDs(log: "toy").count
        #expect(positions == 30 * 4 + 10 * 30 + 1, "positions stay: removed operations keep theirs")

        let b = try Device(millis: 2 * Self.day)
        let joined = try await session(b, server).run()
        #expect(joined.pulled == live, "a new device receives each field's winner once")
        #expect(try b.items() == a.items())
        #expect(try b.items().count == 29)
    }

    enum Return: String, CaseIterable { case withinTheGracePeriod, afterItsEnd }

    /// A device offline for a month with changes of its own, while the others edit, delete and
    /// compact; it comes back, nothing of anyone's is lost, its edits win where they are newer,
    /// a deletion is not undone by its older edit, and a new device receives at most 1.2 times
    /// the live fields.
    @Test(arguments: Return.allCases)
    func aDeviceOfflineForAMonthComesBackAndNothingIsLost(return how: Return) async throws {
        let server = InMemorySyncServer()
        await server.setCompactionMinimumTail(100)
        let a = try Device(millis: Self.day), b = try Device(millis: Self.day), c = try Device(millis: Self.day)
        let idle = try Device(millis: Self.day)   // behind, with nothing of its own
        for n in 0..<40 { try add(a, "i\(n)", "Item \(n)") }
        for device in [a, b, c, idle, a] { _ = try await session(device, server).run() }
        // The last operation C and the idle device read is superseded later, so compactions remove it.
        try rename(a, "i10", "Renamed before C left")
        for device in [a, c, idle] { _ = try await session(device, server).run() }

        // Day 1: A renames items 0–4 and deletes item 20.
        a.clock.now = Self.day + Self.day / 2
        for n in 0..<5 { try rename(a, "i\(n)", "A's \(n)") }
        try delete(a, "i20")
        _ = try await session(a, server).run()
        // Day 2, offline: C renames items 0–9 and 20, and adds one.
        c.clock.now = 2 * Self.day
        for n in 0..<10 { try rename(c, "i\(n)", "C's \(n)") }
        try rename(c, "i20", "C's 20")
        try add(c, "c1", "Made on C")
        // Days 3–30: B renames items 5–9; A edits items 10–30 again and again; both sync, and
        // the server asks for compactions.
        b.clock.now = 3 * Self.day
        _ = try await session(b, server).run()
        for n in 5..<10 { try rename(b, "i\(n)", "B's \(n)") }
        _ = try await session(b, server).run()
        var compacted = 0
        for round in 1...20 {
            a.clock.now = (3 + Int64(round)) * Self.day
            for n in 10..<30 where n != 20 { try rename(a, "i\(n)", "Item \(n), edit \(round)") }
            compacted += try await session(a, server).run().compactedAway
        }
        #expect(compacted > 300, "superseded edits were removed")
        if how == .afterItsEnd { await server.forgetRemoved() }

        // Day 32: C comes back, then everyone syncs.
        c.clock.now = 32 * Self.day
        idle.clock.now = 32 * Self.day
        let back = try await session(c, server).run()
        #expect(back.restarted == (how == .afterItsEnd))
        #expect(back.pastCompaction == (how == .afterItsEnd))
        let idleBack = try await session(idle, server).run()
        #expect(idleBack.restarted == (how == .afterItsEnd))
        for device in [a, b, c, idle] { _ = try await session(device, server).run() }

        let items = try a.items()
        for device in [b, c, idle] { #expect(try device.items() == items) }
        let titles = Dictionary(uniqueKeysWithValues: items.map { ($0[0]!, $0[1]!) })
        for n in 0..<5 { #expect(titles["i\(n)"] == "C's \(n)", "C's later edit wins") }
        for n in 5..<10 { #expect(titles["i\(n)"] == "B's \(n)", "B's later edit wins") }
        for n in 10..<30 where n != 20 { #expect(titles["i\(n)"] == "Item \(n), edit 20") }
        #expect(titles["i20"] == nil, "an older edit does not bring a deleted row back")
        #expect(titles["c1"] == "Made on C")
        #expect(items.count == 40)
        for device in [a, b, c, idle] { #expect(try device.store.syncPendingCount() == 0) }

        // Another compaction, then a new device: the live fields plus a short tail.
        _ = try await session(a, server).compact()
        let d = try Device(millis: 33 * Self.day)
        let joined = try await session(d, server).run()
        #expect(try d.items() == items)
        let live = try liveFields(a)
        #expect(Double(joined.pulled) <= 1.2 * Double(live), "\(joined.pulled) operations for \(live) live fields")
    }

    @Test func aDeviceWithChangesWaitingDoesNotCompact() async throws {
        let server = InMemorySyncServer()
        let a = try Device(millis: Self.day)
        try add(a, "i1", "One")
        _ = try await session(a, server).run()
        try rename(a, "i1", "Two")
        #expect(try await session(a, server).compact() == nil)
        _ = try await session(a, server).run()
        #expect(try await session(a, server).compact() == SyncCompactReply(kept: 4, removed: 1))
    }

    @Test func aCompactionFromAnotherHistoryIsRefused() async throws {
        let server = InMemorySyncServer()
        let a = try Device(millis: Self.day)
        try add(a, "i1", "One")
        _ = try await session(a, server).run()
        await #expect(throws: (any Error).self) {
            try await server.compact(log: "toy", request: SyncCompactRequest(through: 4, anchor: "not the operation there", keep: [], done: true))
        }
        #expect(await server.liveOperationCount(log: "toy") == 4)
    }
}
