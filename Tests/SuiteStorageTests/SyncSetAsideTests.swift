import Foundation
import GRDB
import SuiteSyncProtocol
import SuiteTestSupport
import Testing
@testable import SuiteStorage

/// One operation that cannot be used never stops a sync: it is set aside (kept with its log, id
/// and why, counted, tried again) and everything else keeps syncing both ways.
@Suite struct SyncSetAsideTests {
    func session(_ device: Device, _ server: any SyncTransport, log: String = "toy") -> SyncSession<TestStoreError> {
        var session = SyncSession(store: device.store, log: log, transport: server)
        session.batchSize = 7   // several pages per sync
        return session
    }

    func addItem(_ device: Device, _ key: String, _ title: String) throws {
        try device.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES (?, ?, 0)", arguments: [key, title]) }
    }

    /// The operation holding a title, as pushed to the server.
    func titleOperation(of key: String, on server: InMemorySyncServer, log: String = "toy") async throws -> SyncEnvelope {
        try #require(await server.operations(log: log).first { $0.slot == "item|\(key)|title" })
    }

    @Test func aDamagedOperationIsSetAsideAndEverythingElseSyncsBothWays() async throws {
        let server = InMemorySyncServer()
        let a = try Device(millis: 1_000), b = try Device(millis: 2_000)
        for n in 0..<10 { try addItem(a, "a\(n)", "From A \(n)") }
        _ = try await session(a, server).run()
        let damaged = try await titleOperation(of: "a3", on: server)
        await server.damage(log: "toy", id: damaged.id)

        try addItem(b, "b1", "From B")
        let outcome = try await session(b, server).run()
        #expect(outcome.setAside == 1)
        #expect(outcome.pulled == 10 * 4 + 4, "A's, and B's own back")
        #expect(outcome.pushed == 4, "B's own changes went out")
        // Everything but the damaged title arrived (that item waits for its title).
        #expect(try b.items().map { $0[0] } == ["a0", "a1", "a2", "a4", "a5", "a6", "a7", "a8", "a9", "b1"])
        let kept = try b.store.syncSetAside()
        #expect(kept.count == 1)
        #expect(kept.first?.log == "toy" && kept.first?.id == damaged.id)
        #expect(kept.first?.reason == SyncOperationFailure.unreadable.description)
        #expect(try b.store.syncSetAsideCount() == 1)
        // The other direction too.
        _ = try await session(a, server).run()
        #expect(try a.items().map { $0[0] }.contains("b1"))

        // The cursor moved past it: the next sync pulls nothing again, does not count it again,
        // and tries it once more.
        let again = try await session(b, server).run()
        #expect(again.setAside == 0 && again.pulled == 0)
        #expect(try b.store.syncSetAside().first?.tries == 2)
    }

    /// An operation set aside is tried again by later syncs: once it can be used (here, the
    /// store learnt to apply it), it is applied and leaves the list.
    @Test func aSetAsideOperationIsAppliedWhenItCanBe() async throws {
        let server = InMemorySyncServer()
        let a = try Device(millis: 1_000)
        try addItem(a, "a1", "POISON")
        try addItem(a, "a2", "Fine")
        _ = try await session(a, server).run()
        let url = TestFolders.make("suite-set-aside").appendingPathComponent("toy.sqlite")
        let poisoned = try Poisoned.store(at: url)
        let outcome = try await SyncSession(store: poisoned, log: "toy", transport: server).run()
        #expect(outcome.setAside == 1)
        #expect(try poisoned.syncSetAside().first?.reason.contains("could not be applied: a title this version cannot take") == true)
        #expect(try titles(poisoned) == ["a2": "Fine"])
        // The same store file opened by a version that can apply it.
        let healed = try Store<TestStoreError>.open(at: url, migrator: Toy.migrator, configuration: StoreConfiguration(applicationID: 0x5459_0001, sync: Toy.schema))
        let retried = try await SyncSession(store: healed, log: "toy", transport: server).run()
        #expect(retried.recovered == 1 && retried.setAside == 0)
        #expect(try healed.syncSetAsideCount() == 0)
        #expect(try titles(healed) == ["a1": "POISON", "a2": "Fine"])
    }

    /// An operation that opens but fails to apply is set aside; the rest of its batch applies.
    @Test func anOperationThatFailsToApplyIsSetAsideAndTheRestOfItsBatchApplies() async throws {
        let server = InMemorySyncServer()
        let a = try Device(millis: 1_000)
        for n in 0..<5 { try addItem(a, "a\(n)", n == 2 ? "POISON" : "Item \(n)") }
        _ = try await session(a, server).run()
        let store = try Poisoned.store()
        var session = SyncSession(store: store, log: "toy", transport: server)
        session.batchSize = 500   // the whole log in one batch
        let outcome = try await session.run()
        #expect(outcome.setAside == 1)
        let poison = try await titleOperation(of: "a2", on: server)
        #expect(try store.syncSetAside().map(\.id) == [poison.id])
        #expect(try titles(store).keys.sorted() == ["a0", "a1", "a3", "a4"])
        #expect(try store.syncServerPosition().cursor == 5 * 4)
    }

    /// An operation of another log (another store's entity), moved by the server: set aside,
    /// never applied.
    @Test func anOperationMovedFromAnotherLogIsSetAsideNotApplied() async throws {
        let server = InMemorySyncServer()
        let foreign = SyncChange(id: UUID().uuidString.lowercased(), entity: "quote", key: "q1", field: "text", value: .text("Not an item"),
                                 time: HybridTime(millis: 5_000), device: "other")
        _ = try await server.push(log: "quotes", operations: [try PlainSyncCodec().seal(foreign, log: "quotes")])
        let a = try Device(millis: 1_000)
        try addItem(a, "a1", "Mine")
        _ = try await session(a, server).run()
        await server.copy(id: foreign.id, from: "quotes", to: "toy")
        let b = try Device(millis: 1_000)
        let outcome = try await session(b, server).run()
        #expect(outcome.setAside == 1)
        #expect(try b.store.syncSetAside().map(\.reason) == [SyncOperationFailure.unknownEntity("quote").description])
        #expect(try b.store.syncWinners().allSatisfy { $0.entity != "quote" }, "nothing of it is in the ledger")
        #expect(try b.items().map { $0[0] } == ["a1"])
    }

    func titles(_ store: Store<TestStoreError>) throws -> [String: String] {
        try store.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT uuid, title FROM item").map { ($0["uuid"] as String, $0["title"] as String) })
        }
    }
}

/// The toy store with a step after applying that cannot handle one value: what a core does with
/// a value it cannot materialize.
enum Poisoned {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "a title this version cannot take" }
    }

    static let schema = SyncSchema(entities: Toy.schema.entities, afterApply: { db, touched in
        for key in touched["item"] ?? [] where try String.fetchOne(db, sql: "SELECT title FROM item WHERE uuid = ?", arguments: [key]) == "POISON" {
            throw Refused()
        }
    })

    static func store(at url: URL? = nil) throws -> Store<TestStoreError> {
        let configuration = StoreConfiguration(applicationID: 0x5459_0001, sync: schema)
        let store: Store<TestStoreError>
        if let url {
            store = try Store<TestStoreError>.open(at: url, migrator: Toy.migrator, configuration: configuration)
        } else {
            store = try Store<TestStoreError>.inMemory(migrator: Toy.migrator, configuration: configuration)
        }
        try store.syncEnable()
        return store
    }
}
