import Foundation
import GRDB
import SuiteTestSupport
import Testing
@testable import SuiteStorage

/// A small schema with what the cores' data has: a referenced table, a reference that may be
/// NULL, a forward-only status with a generation, a local-only column, deletion.
enum Toy {
    static let statusRank: [String: Int64] = ["open": 0, "started": 1, "done": 2]

    static let schema = SyncSchema(entities: [
        SyncEntity(name: "folder", table: "folder", keyColumn: "uuid", fields: [SyncField("name")]),
        SyncEntity(name: "item", table: "item", keyColumn: "uuid", fields: [
            SyncField("title"),
            SyncField("folder", columns: ["folder_id"], reference: "folder"),
            SyncField("status", columns: ["generation", "status"], rank: { value in
                let parts = value.elements
                guard parts.count == 2, case .integer(let generation) = parts[0], case .text(let status) = parts[1] else { return 0 }
                return generation * 10 + (statusRank[status] ?? 0)
            }),
        ], insertDefaults: [(column: "seen_ms", expression: "0")]),
    ])

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerStoreMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE folder (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
                CREATE TABLE item (
                    id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
                    folder_id INTEGER REFERENCES folder(id),
                    generation INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'open',
                    seen_ms INTEGER NOT NULL
                );
                """)
        }
        migrator.registerStoreMigration("sync") { db in
            try SyncLedger.install(db, schema: schema)
            try SyncLedger.addSetAsideLog(db)
        }
        return migrator
    }
}

/// A wall clock a test sets.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var millis: Int64
    init(millis: Int64) { self.millis = millis }
    var now: Int64 {
        get { lock.withLock { millis } }
        set { lock.withLock { millis = newValue } }
    }
    var date: Date { Date(timeIntervalSince1970: Double(now) / 1000) }
}

/// One device: a store in memory with its own (possibly wrong) clock.
struct Device {
    let store: Store<TestStoreError>
    let clock: TestClock
    let id: String
    var cursor = 0

    init(millis: Int64) throws {
        let clock = TestClock(millis: millis)
        self.clock = clock
        store = try Store<TestStoreError>.inMemory(
            migrator: Toy.migrator,
            configuration: StoreConfiguration(applicationID: 0x5459_0001, sync: Toy.schema, clock: { clock.date }))
        try store.syncEnable()
        id = try store.syncDevice()
    }

    func items() throws -> [[String?]] {
        try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT item.uuid, item.title, folder.uuid AS folder, item.generation, item.status FROM item
                LEFT JOIN folder ON folder.id = item.folder_id ORDER BY item.uuid
                """).map { row in [row["uuid"], row["title"], row["folder"], String(row["generation"] as Int64), row["status"]] }
        }
    }

    func folders() throws -> [[String]] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT uuid, name FROM folder ORDER BY uuid").map { [$0["uuid"], $0["name"]] }
        }
    }
}

@Suite struct SyncLedgerTests {
    @Test func theHybridClockNeverGoesBackAndPassesWhatItSaw() {
        let last = HybridTime(millis: 1_000, counter: 5)
        #expect(SyncClock.send(last: last, now: 2_000) == HybridTime(millis: 2_000))
        #expect(SyncClock.send(last: last, now: 500) == HybridTime(millis: 1_000, counter: 6))
        #expect(SyncClock.send(last: last, now: 1_000) == HybridTime(millis: 1_000, counter: 6))
        let seen = SyncClock.receive(last: last, remote: HybridTime(millis: 90_000_000))
        #expect(SyncClock.send(last: seen, now: 1_000) > HybridTime(millis: 90_000_000))
        // A reading past the limit the server's clock sets is not taken; one at it is.
        let limit = SyncClock.limit(serverTime: 1_000)
        #expect(SyncClock.receive(last: last, remote: HybridTime(millis: 1_000 + SyncClock.maximumLead + 1), limit: limit) == last)
        #expect(SyncClock.receive(last: last, remote: HybridTime(millis: 1_000 + SyncClock.maximumLead), limit: limit) == HybridTime(millis: 1_000 + SyncClock.maximumLead))
        // The counter carries into the milliseconds rather than wrapping.
        #expect(SyncClock.send(last: HybridTime(millis: 7, counter: .max), now: 0) == HybridTime(millis: 8, counter: 0))
        #expect(HybridTime(millis: -5) == .zero)
    }

    @Test func valuesTravelAsPlainJSON() throws {
        let value = SyncValue.list([.integer(3), .text("done"), .null, .real(2.5)])
        let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        #expect(json == #"[3,"done",null,2.5]"#)
        #expect(try JSONDecoder().decode(SyncValue.self, from: Data(json.utf8)) == value)
    }

    @Test func blobsTravelAsBase64() throws {
        let value = SyncValue.blob(Data([0, 1, 254, 255]))
        let json = String(decoding: try SyncChange.encoder.encode(value), as: UTF8.self)
        #expect(json == #"{"blob":"AAH+/w=="}"#)
        #expect(try JSONDecoder().decode(SyncValue.self, from: Data(json.utf8)) == value)
    }

    /// A table whose key a trigger sets just after the insert (a content key from other
    /// columns): the row is recorded whole when the key arrives.
    @Test func aRowWhoseKeyATriggerSetsIsRecordedWhole() throws {
        let schema = SyncSchema(entities: [SyncEntity(name: "tag", table: "tag", keyColumn: "sync_key", fields: [SyncField("a"), SyncField("b")])])
        var migrator = DatabaseMigrator()
        migrator.registerStoreMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE tag (id INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT NOT NULL, sync_key TEXT UNIQUE);
                CREATE TRIGGER tag_key AFTER INSERT ON tag WHEN NEW.sync_key IS NULL BEGIN
                    UPDATE tag SET sync_key = NEW.a || ':' || NEW.b WHERE id = NEW.id;
                END;
                """)
            try SyncLedger.install(db, schema: schema)
        }
        let store = try Store<TestStoreError>.inMemory(migrator: migrator, configuration: StoreConfiguration(applicationID: 0x5459_0002, sync: schema))
        try store.syncEnable()
        try store.write { db in try db.execute(sql: "INSERT INTO tag (a, b) VALUES ('yelp', 'x1')") }
        #expect(Set(try store.syncPending().map { "\($0.key).\($0.field)=\($0.value)" }) == ["yelp:x1._exists=1", "yelp:x1.a=\"yelp\"", "yelp:x1.b=\"x1\""])
    }

    /// A write that leaves a field as it was — the row written whole again, or deleted and
    /// inserted again as INSERT OR REPLACE does — changes nothing that syncs: stamping it would
    /// make it beat another device's concurrent change of that field.
    @Test func aRowWrittenAgainWithTheSameValuesStampsOnlyWhatChanged() throws {
        let device = try Device(millis: 1_000_000)
        try device.store.write { db in
            try db.execute(sql: "INSERT INTO folder (uuid, name) VALUES ('f1', 'Home')")
            try db.execute(sql: "INSERT INTO item (uuid, title, folder_id, seen_ms) VALUES ('i1', 'Milk', 1, 0)")
        }
        let first = try device.store.syncPending().map(\.id)
        try device.store.syncAcknowledge(first)
        device.clock.now += 1_000
        try device.store.write { db in
            try db.execute(sql: "UPDATE item SET title = 'Milk', folder_id = 1, generation = 0, status = 'open' WHERE uuid = 'i1'")
            try db.execute(sql: "INSERT OR REPLACE INTO folder (id, uuid, name) VALUES (1, 'f1', 'Home')")
        }
        // The folder's row was deleted and inserted again: its existence is stamped (so that a
        // row removed elsewhere without a stamp comes back there), its name is not.
        #expect(try device.store.syncPending().map { "\($0.key).\($0.field)" } == ["f1._exists"])
        device.clock.now += 1_000
        try device.store.write { db in
            try db.execute(sql: "DELETE FROM item WHERE uuid = 'i1'")
            try db.execute(sql: "INSERT INTO item (uuid, title, folder_id, status, seen_ms) VALUES ('i1', 'Milk', 1, 'started', 5)")
        }
        #expect(try device.store.syncPending().map { "\($0.key).\($0.field)" }.sorted() == ["f1._exists", "i1._exists", "i1.status"])
    }

    @Test func nothingIsRecordedUntilSyncIsTurnedOnThenEverythingIs() throws {
        let clock = TestClock(millis: 1_000_000)
        let store = try Store<TestStoreError>.inMemory(
            migrator: Toy.migrator, configuration: StoreConfiguration(applicationID: 0x5459_0001, sync: Toy.schema, clock: { clock.date }))
        try store.write { db in
            try db.execute(sql: "INSERT INTO folder (uuid, name) VALUES ('f1', 'Home')")
            try db.execute(sql: "INSERT INTO item (uuid, title, folder_id, seen_ms) VALUES ('i1', 'Milk', 1, 5)")
        }
        #expect(try store.syncPendingCount() == 0)
        try store.syncEnable()
        let pending = try store.syncPending()
        #expect(Set(pending.map { "\($0.entity).\($0.key).\($0.field)=\($0.value)" }) == [
            "folder.f1._exists=1", "folder.f1.name=\"Home\"",
            "item.i1._exists=1", "item.i1.title=\"Milk\"", "item.i1.folder=\"f1\"", "item.i1.status=[0, \"open\"]",
        ])
        // What was there before sync was turned on carries the earliest reading: any edit wins.
        #expect(Set(pending.map(\.time)) == [HybridTime(rawValue: 1)])
        // An update records only the fields it changed; the local-only column records nothing.
        clock.now += 10
        try store.write { db in try db.execute(sql: "UPDATE item SET title = 'Oat milk', seen_ms = 9 WHERE uuid = 'i1'") }
        let title = try #require(try store.syncPending().first { $0.field == "title" })
        #expect(title.value == .text("Oat milk") && title.time == HybridTime(millis: 1_000_010))
        #expect(try store.syncPendingCount() == 6)
        // A write that changes nothing synced records nothing.
        try store.write { db in try db.execute(sql: "UPDATE item SET seen_ms = 10") }
        #expect(try store.syncPendingCount() == 6)
        try store.syncAcknowledge(try store.syncPending().map(\.id))
        #expect(try store.syncPendingCount() == 0)
    }

    @Test func anEditMadeAfterSeeingAnotherWinsWhateverTheClocksSay() throws {
        let day: Int64 = 86_400_000
        let base: Int64 = 1_800_000_000_000
        var ahead = try Device(millis: base + day), behind = try Device(millis: base - day)
        var relay = Relay()
        try ahead.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES ('i1', 'From the future', 0)") }
        try relay.sync(&ahead)
        try relay.sync(&behind)
        #expect(try behind.items().map { $0[1] } == ["From the future"])
        // Two days behind on the wall clock, but after seeing the other edit.
        try behind.store.write { db in try db.execute(sql: "UPDATE item SET title = 'Seen, then changed' WHERE uuid = 'i1'") }
        try relay.sync(&behind)
        try relay.sync(&ahead)
        #expect(try ahead.items().map { $0[1] } == ["Seen, then changed"])
        #expect(try behind.items() == ahead.items())
    }

    @Test func aCompletionCannotBeUndoneByAStaleEditOnlyByAReopen() throws {
        var a = try Device(millis: 1_000), b = try Device(millis: 1_000)
        var relay = Relay()
        try a.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES ('i1', 'Post', 0)") }
        try relay.sync(&a); try relay.sync(&b)
        a.clock.now = 2_000
        try a.store.write { db in try db.execute(sql: "UPDATE item SET status = 'done' WHERE uuid = 'i1'") }
        // Later by the clock, but only "started": it does not undo "done".
        b.clock.now = 9_000
        try b.store.write { db in try db.execute(sql: "UPDATE item SET status = 'started' WHERE uuid = 'i1'") }
        try relay.sync(&a); try relay.sync(&b); try relay.sync(&a)
        #expect(try a.items()[0][3...] == ["0", "done"])
        #expect(try b.items() == a.items())
        // A reopen raises the generation and wins over the completion.
        try b.store.write { db in try db.execute(sql: "UPDATE item SET status = 'open', generation = 1 WHERE uuid = 'i1'") }
        try relay.sync(&b); try relay.sync(&a)
        #expect(try a.items()[0][3...] == ["1", "open"])
    }

    /// A local change that ranks below the field's winner would lose on every other device; it
    /// is undone here too, so the devices cannot end apart.
    @Test func aLocalChangeBelowTheWinnersRankIsUndone() throws {
        var a = try Device(millis: 1_000), b = try Device(millis: 1_000)
        var relay = Relay()
        try a.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES ('i1', 'Post', 0)") }
        try a.store.write { db in try db.execute(sql: "UPDATE item SET status = 'done' WHERE uuid = 'i1'") }
        try relay.sync(&a); try relay.sync(&b)
        b.clock.now = 50_000
        try b.store.write { db in try db.execute(sql: "UPDATE item SET status = 'started' WHERE uuid = 'i1'") }
        #expect(try b.items()[0][3...] == ["0", "done"])
        #expect(try b.store.syncPendingCount() == 0)
        try relay.sync(&b); try relay.sync(&a)
        #expect(try a.items() == b.items())
    }

    @Test func aRowWhoseReferenceIsNotHereYetIsCompletedWhenItArrives() throws {
        let a = try Device(millis: 1_000), b = try Device(millis: 1_000)
        try a.store.write { db in
            try db.execute(sql: "INSERT INTO folder (uuid, name) VALUES ('f1', 'Home')")
            try db.execute(sql: "INSERT INTO item (uuid, title, folder_id, seen_ms) VALUES ('i1', 'Milk', 1, 0)")
        }
        let changes = try a.store.syncPending()
        try b.store.syncApply(changes.filter { $0.entity == "item" })
        #expect(try b.items() == [["i1", "Milk", nil, "0", "open"]])
        try b.store.syncApply(changes.filter { $0.entity == "folder" })
        #expect(try b.items() == [["i1", "Milk", "f1", "0", "open"]])
        #expect(try b.store.syncPendingCount() == 0, "applying is not a local edit")
        // Applying everything again changes nothing.
        let outcome = try b.store.syncApply(changes)
        #expect(outcome.applied == 0 && outcome.ignored == changes.count)
    }

    @Test func afterTheServerLostEverythingTheStorePushesItAllAgainWithItsOriginalStamps() throws {
        let a = try Device(millis: 1_000)
        try a.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES ('i1', 'Milk', 0)") }
        let first = try a.store.syncPending()
        try a.store.syncAcknowledge(first.map(\.id))
        #expect(try a.store.syncPendingCount() == 0)
        try a.store.syncPushEverythingAgain()
        #expect(Set(try a.store.syncPending()) == Set(first))
        #expect(try a.items().count == 1)
    }

    /// A reading from a clock too far ahead of the server's (an older client, which does not
    /// check) still merges by its stamp, but does not drag this device's clock: what it edits
    /// next is stamped by its own clock.
    @Test func aReadingTooFarAheadOfTheServerDoesNotDragTheClock() throws {
        let real: Int64 = 1_800_000_000_000
        let fast = try Device(millis: real + 2 * 86_400_000), device = try Device(millis: real)
        try fast.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES ('i1', 'From the future', 0)") }
        try device.store.syncApply(try fast.store.syncPending(), serverTime: real)
        #expect(try device.items().map { $0[1] } == ["From the future"])
        try device.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES ('i2', 'Now', 0)") }
        #expect(Set(try device.store.syncPending().map(\.time)) == [HybridTime(millis: real)])
        // Without the server's time (an older server), the clock follows what it saw, as before.
        let other = try Device(millis: real)
        try other.store.syncApply(try fast.store.syncPending())
        try other.store.write { db in try db.execute(sql: "UPDATE item SET title = 'Seen' WHERE uuid = 'i1'") }
        #expect(try other.store.syncPending().allSatisfy { $0.time.millis >= real + 2 * 86_400_000 })
    }

    /// A change from a clock past the bound is applied without moving this clock; an edit made
    /// here afterwards to the same field still comes after it, so it wins on every device, not
    /// only here.
    @Test func anEditOfAFieldWhoseWinnerIsPastTheBoundComesAfterIt() throws {
        let real: Int64 = 1_800_000_000_000
        let fast = try Device(millis: real + 2 * 86_400_000), device = try Device(millis: real), third = try Device(millis: real)
        try fast.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES ('i1', 'From the future', 0)") }
        let fromTheFuture = try fast.store.syncPending()
        try device.store.syncApply(fromTheFuture, serverTime: real)
        try device.store.write { db in try db.execute(sql: "UPDATE item SET title = 'Corrected' WHERE uuid = 'i1'") }
        let edit = try #require(try device.store.syncPending().first { $0.field == "title" })
        #expect(edit.time > fromTheFuture.first { $0.field == "title" }!.time)
        try third.store.syncApply(fromTheFuture + [edit], serverTime: real)
        #expect(try third.items().map { $0[1] } == ["Corrected"])
        #expect(try device.items() == third.items())
    }

    /// A server whose clock says something impossible (reset to 1970, or past what a reading
    /// holds) neither traps the device nor locks it out: the bound is off for that answer.
    @Test(arguments: [Int64.min, -1, 0, 1_000, Int64.max, HybridTime.maximumMillis])
    func anImpossibleServerClockIsIgnored(serverTime: Int64) async throws {
        let real: Int64 = 1_800_000_000_000
        let server = InMemorySyncServer(clock: { serverTime }), device = try Device(millis: real), other = try Device(millis: real)
        try device.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES ('i1', 'Milk', 0)") }
        _ = try await SyncSession(store: device.store, log: "toy", transport: server).run()
        _ = try await SyncSession(store: other.store, log: "toy", transport: server).run()
        #expect(try other.items().map { $0[1] } == ["Milk"])
        #expect(try device.store.syncPending().isEmpty)
        #expect(SyncClock.limit(serverTime: serverTime) <= HybridTime(rawValue: Int64.max))
    }

    /// Devices (8, clocks up to a day either side of the server's: the range accepted, see
    /// ``SyncClock/maximumLead``) make random changes with random offline periods; the relay drops acknowledgements,
    /// repeats and reorders what it delivers. Afterwards every device holds the same rows, and
    /// they are what an independent model computes from every write made: per field, the write
    /// with the highest (rank, clock reading, device).
    /// (The run's size: ``RandomSyncRun``.)
    @Test(arguments: RandomSyncRun.seeds(from: 1))
    func devicesConvergeToTheModelWhateverTheOrder(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let base: Int64 = 1_800_000_000_000
        let skews: [Int64] = [0, 86_400_000, -86_400_000, 3_000, -250, 600_000, -600_000, 40]
        var devices = try skews.map { try Device(millis: base + $0) }
        var server: [SyncChange] = []
        var serverIDs = Set<String>()

        // The model: its own clock per device, and every write with its stamp.
        struct Write { var value: SyncValue; var rank: Int64; var time: Int64; var device: String }
        var modelLast = [Int64](repeating: 0, count: devices.count)
        var writes: [String: [Write]] = [:]   // "entity|key|field" → writes
        func modelSend(_ d: Int) -> Int64 {
            let wall = max(devices[d].clock.now, 0) << 16
            modelLast[d] = max(modelLast[d] + 1, wall)
            return modelLast[d]
        }
        func rank(_ field: String, _ value: SyncValue) -> Int64 {
            guard field == "status", case .list(let parts) = value, case .integer(let g) = parts[0], case .text(let s) = parts[1] else { return 0 }
            return g * 10 + (Toy.statusRank[s] ?? 0)
        }
        func model(_ d: Int, _ entity: String, _ key: String, _ fields: [(String, SyncValue)]) {
            let time = modelSend(d)
            for (field, value) in fields {
                writes["\(entity)|\(key)|\(field)", default: []].append(Write(value: value, rank: rank(field, value), time: time, device: devices[d].id))
            }
        }

        var counter = 0
        for _ in 0..<RandomSyncRun.steps {
            let now = devices[0].clock.now - skews[0] + Int64(random.next(upTo: 40))
            for (index, skew) in skews.enumerated() { devices[index].clock.now = now + skew }
            let serverTime = now   // the server's clock is device 0's, which is right
            let d = random.next(upTo: devices.count)
            let store = devices[d].store
            counter += 1
            let items = try devices[d].items()
            let folders = try devices[d].folders()
            switch random.next(upTo: 10) {
            case 0:
                let key = "f\(counter)"
                try store.write { db in try db.execute(sql: "INSERT INTO folder (uuid, name) VALUES (?, ?)", arguments: [key, "Folder \(counter)"]) }
                model(d, "folder", key, [("_exists", .integer(1)), ("name", .text("Folder \(counter)"))])
            case 1, 2:
                let key = "i\(counter)"
                let folder = folders.isEmpty || random.next(upTo: 3) == 0 ? nil : folders[random.next(upTo: folders.count)][0]
                try store.write { db in
                    try db.execute(sql: "INSERT INTO item (uuid, title, folder_id, seen_ms) VALUES (?, ?, (SELECT id FROM folder WHERE uuid = ?), 0)",
                                   arguments: [key, "Item \(counter)", folder])
                }
                model(d, "item", key, [("_exists", .integer(1)), ("title", .text("Item \(counter)")),
                                       ("folder", folder.map(SyncValue.text) ?? .null), ("status", .list([.integer(0), .text("open")]))])
            case 3 where !items.isEmpty:
                let key = items[random.next(upTo: items.count)][0]!
                try store.write { db in try db.execute(sql: "UPDATE item SET title = ? WHERE uuid = ?", arguments: ["Title \(counter)", key]) }
                model(d, "item", key, [("title", .text("Title \(counter)"))])
            case 4 where !items.isEmpty && !folders.isEmpty:
                let item = items[random.next(upTo: items.count)]
                let folder = folders[random.next(upTo: folders.count)][0]
                guard item[2] != folder else { break }
                try store.write { db in
                    try db.execute(sql: "UPDATE item SET folder_id = (SELECT id FROM folder WHERE uuid = ?) WHERE uuid = ?", arguments: [folder, item[0]])
                }
                model(d, "item", item[0]!, [("folder", .text(folder))])
            case 5 where !items.isEmpty:
                let item = items[random.next(upTo: items.count)]
                let generation = Int64(item[3]!)!
                let next: (Int64, String) = switch item[4]! {
                case "open": (generation, "started")
                case "started": (generation, "done")
                default: (generation + 1, "open")   // a reopen
                }
                try store.write { db in
                    try db.execute(sql: "UPDATE item SET generation = ?, status = ? WHERE uuid = ?", arguments: [next.0, next.1, item[0]])
                }
                model(d, "item", item[0]!, [("status", .list([.integer(next.0), .text(next.1)]))])
            case 6 where !items.isEmpty && random.next(upTo: 3) == 0:
                let key = items[random.next(upTo: items.count)][0]!
                try store.write { db in try db.execute(sql: "DELETE FROM item WHERE uuid = ?", arguments: [key]) }
                model(d, "item", key, [("_exists", .integer(0))])
            default:
                // Sync this device: push (the acknowledgement may be lost), then pull in shuffled,
                // partly repeated batches (or lose the whole answer).
                // Every clock is within the bound of the server's.
                let check = try store.syncCheckClock(serverTime: serverTime, offset: skews[d])
                #expect(check == .fine(restamped: 0))
                let pending = try store.syncPending(limit: 10_000)
                for change in pending where serverIDs.insert(change.id).inserted { server.append(change) }
                if random.next(upTo: 5) != 0 { try store.syncAcknowledge(pending.map(\.id)) }
                if random.next(upTo: 10) == 0 { break }
                var batch = Array(server[devices[d].cursor...])
                batch += batch.filter { _ in random.next(upTo: 8) == 0 }
                batch.shuffle(using: &random)
                let cut = batch.isEmpty ? 0 : random.next(upTo: batch.count + 1)
                try store.syncApply(Array(batch[..<cut]), serverTime: serverTime)
                try store.syncApply(Array(batch[cut...]), serverTime: serverTime)
                if let latest = batch.map(\.time.rawValue).max() { modelLast[d] = max(modelLast[d], latest) }
                devices[d].cursor = server.count
            }
        }
        // Everyone online: push everything, then pull everything.
        let serverTime = devices[0].clock.now
        for _ in 0..<2 {
            for d in devices.indices {
                let pending = try devices[d].store.syncPending(limit: 100_000)
                for change in pending where serverIDs.insert(change.id).inserted { server.append(change) }
                try devices[d].store.syncAcknowledge(pending.map(\.id))
            }
            for d in devices.indices {
                try devices[d].store.syncApply(Array(server[devices[d].cursor...]), serverTime: serverTime)
                devices[d].cursor = server.count
            }
        }

        // The model's answer.
        func winner(_ slot: String) -> Write? {
            writes[slot]?.max { ($0.rank, $0.time, $0.device) < ($1.rank, $1.time, $1.device) }
        }
        let folderKeys = Set(writes.keys.filter { $0.hasPrefix("folder|") }.map { $0.split(separator: "|")[1] })
        let expectedFolders = folderKeys.sorted().compactMap { key -> [String]? in
            guard case .integer(1) = winner("folder|\(key)|_exists")?.value, case .text(let name) = winner("folder|\(key)|name")?.value else { return nil }
            return [String(key), name]
        }
        let itemKeys = Set(writes.keys.filter { $0.hasPrefix("item|") }.map { $0.split(separator: "|")[1] })
        let expectedItems = itemKeys.sorted().compactMap { key -> [String?]? in
            guard case .integer(1) = winner("item|\(key)|_exists")?.value,
                  case .text(let title) = winner("item|\(key)|title")?.value,
                  case .list(let status) = winner("item|\(key)|status")?.value,
                  case .integer(let generation) = status[0], case .text(let state) = status[1] else { return nil }
            var folder: String?
            if case .text(let key) = winner("item|\(key)|folder")?.value { folder = key }
            return [String(key), title, folder, String(generation), state]
        }
        #expect(expectedItems.count > 20)
        for device in devices {
            #expect(try device.folders() == expectedFolders)
            #expect(try device.items() == expectedItems)
            #expect(try device.store.syncPendingCount() == 0)
        }
        // The clocks agree with the model's too: every field's winning stamp is the model's.
        for change in try devices[0].store.syncWinners() {
            let expected = try #require(winner("\(change.entity)|\(change.key)|\(change.field)"))
            #expect(change.time.rawValue == expected.time && change.device == expected.device, "\(change)")
        }
        // Every operation is on the server once.
        #expect(Set(server.map(\.id)).count == server.count)
    }
}

/// The simplest server: every change pushed, in order; a device pulls what came after its cursor.
struct Relay {
    var server: [SyncChange] = []

    mutating func sync(_ device: inout Device) throws {
        let pending = try device.store.syncPending()
        server += pending
        try device.store.syncAcknowledge(pending.map(\.id))
        try device.store.syncApply(Array(server[device.cursor...]))
        device.cursor = server.count
    }
}
