import Foundation
import GRDB
import SuiteSyncProtocol
import SuiteTestSupport
import Testing
@testable import SuiteStorage

/// Applying a batch records in bulk the changes that are the only one of their field, for a
/// field with no winner yet (what a new device's first sync receives), and merges the others
/// one by one. The two ways must leave exactly the same store: every table row by row, the
/// ledger, the conflict log, the set-aside operations, the clock.
@Suite struct SyncBulkApplyTests {
    /// The toy schema with a title whose losing texts are kept (conflicts), and a step after
    /// applying that refuses one title (an operation that fails to apply is set aside).
    static let schema = SyncSchema(entities: [
        Toy.schema.entities[0],
        SyncEntity(name: "item", table: "item", keyColumn: "uuid", fields: [
            SyncField.text("title"),
            SyncField("folder", columns: ["folder_id"], reference: "folder"),
            SyncField("status", columns: ["generation", "status"], rank: Toy.schema.entities[1].fields[2].rank),
        ], insertDefaults: [(column: "seen_ms", expression: "0")]),
    ], afterApply: { db, touched in
        for key in touched["item"] ?? [] where try String.fetchOne(db, sql: "SELECT title FROM item WHERE uuid = ?", arguments: [key]) == "POISON" {
            throw Poisoned.Refused()
        }
    })

    static let now: Int64 = 1_800_000_000_000

    func store() throws -> Store<TestStoreError> {
        try Store<TestStoreError>.inMemory(
            migrator: Toy.migrator,
            configuration: StoreConfiguration(applicationID: 0x5459_0001, sync: Self.schema, clock: { Date(timeIntervalSince1970: Double(Self.now) / 1000) }))
    }

    func apply(_ store: Store<TestStoreError>, _ pulled: [SyncPulled], refused: [SyncRefused], oneByOne: Bool) throws -> SyncLedger.ApplyOutcome {
        try store.write { db in
            try SyncLedger.apply(db, schema: Self.schema, pulled: pulled, refused: refused, log: "toy", now: Self.now,
                                 limit: SyncClock.limit(serverTime: Self.now), oneByOne: oneByOne)
        }
    }

    /// Every row of every table, in a fixed order, but what says when this device noticed a
    /// conflict (the wall clock) and the device's own random id.
    func contents(_ store: Store<TestStoreError>) throws -> [String: [[String]]] {
        try store.read { db in
            var tables: [String: [[String]]] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'") {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map { row in
                    Array(row.columnNames).filter { !(table == "sync_conflict" && $0 == "noted_ms") && !(table == "sync_control" && $0 == "device") }
                        .map { "\($0)=\(row[$0] as DatabaseValue)" }
                }
                tables[table] = rows.sorted { $0.joined(separator: "|") < $1.joined(separator: "|") }
            }
            return tables
        }
    }

    /// A hand-made account: everything about one field, in batches a server could send.
    @Test func theBulkPathLeavesTheSameStoreAsOneByOneAndIsTaken() throws {
        var id = 0
        func change(_ entity: String, _ key: String, _ field: String, _ value: SyncValue, at millis: Int64, by device: String = "d1",
                    base: String? = nil) -> SyncChange {
            id += 1
            return SyncChange(id: "op\(id)", entity: entity, key: key, field: field, value: value, time: HybridTime(millis: Self.now - 100_000 + millis),
                              device: device, base: base)
        }
        func pulled(_ changes: [SyncChange]) -> [SyncPulled] {
            changes.map { SyncPulled(envelope: SyncEnvelope(id: $0.id, slot: "\($0.entity)|\($0.key)|\($0.field)", payload: Data()), change: $0) }
        }
        // First batch, into an empty store: two items, one whose folder comes later (it waits),
        // one whose title two devices wrote without seeing each other (a conflict in the batch),
        // one operation that did not open and one of another store.
        let t1 = change("item", "i1", "title", .text("First title"), at: 10)
        let t1b = change("item", "i1", "title", .text("Concurrent title"), at: 12, by: "d2")
        let first = [
            change("item", "i1", "_exists", .integer(1), at: 10), t1,
            change("item", "i1", "status", .list([.integer(0), .text("open")]), at: 10),
            change("item", "i1", "folder", .text("f1"), at: 10),
            change("item", "i2", "_exists", .integer(1), at: 11), change("item", "i2", "title", .text("Second"), at: 11),
            change("item", "i2", "status", .list([.integer(0), .text("started")]), at: 11), t1b,
        ]
        let unopened = SyncRefused(envelope: SyncEnvelope(id: "broken", slot: "?", payload: Data([1, 2])), reason: "does not open")
        let foreign = change("quote", "q1", "text", .text("Not ours"), at: 13)
        // Second batch: the folder arrives, a title loses to the winner here (a conflict with
        // what is here), a status edit ranks below, the same operation twice, one already
        // applied, a deletion, a row whose title cannot be applied (set aside), a reading past
        // the clock's bound, and the operation that did not open, now usable (recovered).
        let second = [
            change("folder", "f1", "_exists", .integer(1), at: 20), change("folder", "f1", "name", .text("Folder"), at: 20),
            change("item", "i1", "title", .text("Old title"), at: 5, by: "d3"),
            change("item", "i2", "status", .list([.integer(0), .text("open")]), at: 30),
            change("item", "i3", "_exists", .integer(1), at: 31), change("item", "i3", "title", .text("POISON"), at: 31),
            change("item", "i3", "status", .list([.integer(0), .text("open")]), at: 31),
            change("item", "i4", "_exists", .integer(1), at: 32), change("item", "i4", "title", .text("Gone soon"), at: 32),
            change("item", "i4", "status", .list([.integer(0), .text("open")]), at: 32),
            change("item", "i4", "_exists", .integer(0), at: 33, base: "op0"),
            change("item", "i5", "_exists", .integer(1), at: SyncClock.maximumLead + 200_000),
            t1b,
        ]
        let recovered = SyncChange(id: "broken", entity: "item", key: "i6", field: "_exists", value: .integer(1), time: HybridTime(millis: Self.now), device: "d2")

        let bulk = try store(), oneByOne = try store()
        var taken = 0
        for (batch, refused) in [(pulled(first + [foreign]), [unopened]), (pulled(second + [recovered]) + pulled([second[0]]), [])] {
            let fast = try apply(bulk, batch, refused: refused, oneByOne: false)
            let slow = try apply(oneByOne, batch, refused: refused, oneByOne: true)
            #expect(slow.bulk == 0)
            taken += fast.bulk
            var same = fast
            same.bulk = 0
            #expect(same == slow)
            #expect(try contents(bulk) == contents(oneByOne))
        }
        // Into the empty store, every field with one operation went in bulk (i1's title had two).
        #expect(taken > 0)
        let contents = try contents(bulk)
        #expect(contents["sync_conflict"]?.count == 2, "the title that lost in the batch, and the older one that lost to it")
        #expect(contents["sync_set_aside"]?.count == 2, "the other store's operation and the title that cannot be applied")
        #expect(try bulk.syncSetAside().map(\.id).sorted() == [foreign.id, second[5].id].sorted())
    }

    /// Random batches from several devices (repeated, reordered, concurrent, with stale bases,
    /// deletions, references that come late, operations that cannot be used): after every
    /// batch the two stores are the same, and the bulk path was taken.
    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func randomBatchesLeaveTheSameStoreBothWays(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let devices = ["d1", "d2", "d3"]
        var seen: [String: [String]] = [:]   // operation ids by field
        var all: [SyncChange] = []
        func value(_ field: String) -> SyncValue {
            switch field {
            case "_exists": return .integer(random.next(upTo: 6) == 0 ? 0 : 1)
            case "name", "title":
                let texts: [SyncValue] = [.text("A"), .text("B"), .text(""), .null, .text("Line\nbreak / \"quoted\""), .text("POISON")]
                let poison = random.next(upTo: 12) == 0
                return texts[random.next(upTo: poison ? 6 : 5)]
            case "folder": return random.next(upTo: 4) == 0 ? .null : .text("f\(random.next(upTo: 4))")
            default: return .list([.integer(Int64(random.next(upTo: 2))), .text(["open", "started", "done"][random.next(upTo: 3)])])
            }
        }
        let bulk = try store(), oneByOne = try store()
        var taken = 0
        for _ in 0..<12 {
            var batch: [SyncPulled] = [], refused: [SyncRefused] = []
            for _ in 0..<random.next(upTo: 60) {
                if !all.isEmpty, random.next(upTo: 6) == 0 {
                    let again = all[random.next(upTo: all.count)]   // sent again
                    batch.append(SyncPulled(envelope: SyncEnvelope(id: again.id, slot: "", payload: Data()), change: again))
                    continue
                }
                let entity = random.next(upTo: 4) == 0 ? "folder" : "item"
                let key = entity == "folder" ? "f\(random.next(upTo: 4))" : "i\(random.next(upTo: 12))"
                let fields = entity == "folder" ? ["_exists", "name"] : ["_exists", "title", "folder", "status"]
                let field = fields[random.next(upTo: fields.count)]
                let slot = "\(entity)|\(key)|\(field)"
                let base = seen[slot].flatMap { $0.isEmpty || random.next(upTo: 3) == 0 ? nil : $0[random.next(upTo: $0.count)] }
                let change = SyncChange(id: "op\(seed)-\(all.count)", entity: random.next(upTo: 40) == 0 ? "quote" : entity, key: key, field: field,
                                        value: value(field), time: HybridTime(millis: Self.now - 60_000 + Int64(random.next(upTo: 50_000)), counter: UInt16(random.next(upTo: 3))),
                                        device: devices[random.next(upTo: devices.count)], base: base)
                seen[slot, default: []].append(change.id)
                all.append(change)
                let envelope = SyncEnvelope(id: change.id, slot: slot, payload: Data())
                if random.next(upTo: 30) == 0 {
                    refused.append(SyncRefused(envelope: envelope, reason: "does not open"))
                } else {
                    batch.append(SyncPulled(envelope: envelope, change: change))
                }
            }
            let fast = try apply(bulk, batch, refused: refused, oneByOne: false)
            let slow = try apply(oneByOne, batch, refused: refused, oneByOne: true)
            #expect(slow.bulk == 0)
            taken += fast.bulk
            var same = fast
            same.bulk = 0
            #expect(same == slow)
            #expect(try contents(bulk) == contents(oneByOne))
        }
        #expect(taken > 0)
    }

    /// The store a new device builds through the bulk path is the one it builds one by one, for
    /// the convergence test's kind of history too: every device's changes pushed to a server,
    /// then a new device reads the whole log in pages.
    @Test func aNewDeviceReadingAWholeLogBuildsTheSameStoreBothWays() throws {
        var relay = Relay()
        var a = try Device(millis: 1_000), b = try Device(millis: 2_000)
        for n in 0..<30 {
            try a.store.write { db in try db.execute(sql: "INSERT INTO folder (uuid, name) VALUES (?, ?)", arguments: ["fa\(n % 3)-\(n)", "Folder \(n)"]) }
            try b.store.write { db in
                try db.execute(sql: "INSERT INTO item (uuid, title, folder_id, seen_ms) VALUES (?, ?, (SELECT id FROM folder WHERE uuid = ?), 0)",
                               arguments: ["ib\(n)", "Item \(n)", "fa\(n % 3)-\(n - 1)"])
            }
            if n % 7 == 0 {
                try relay.sync(&a)
                try relay.sync(&b)
            }
        }
        try relay.sync(&a)
        try relay.sync(&b)
        let bulk = try store(), oneByOne = try store()
        var taken = 0
        for start in stride(from: 0, to: relay.server.count, by: 25) {
            let page = relay.server[start..<min(start + 25, relay.server.count)].map {
                SyncPulled(envelope: SyncEnvelope(id: $0.id, slot: "", payload: Data()), change: $0)
            }
            taken += try apply(bulk, page, refused: [], oneByOne: false).bulk
            _ = try apply(oneByOne, page, refused: [], oneByOne: true)
        }
        #expect(taken == relay.server.count, "a new device has no winner for any field: every operation goes in bulk")
        #expect(try contents(bulk) == contents(oneByOne))
    }
}
