import Foundation
import GRDB
import SuiteTestSupport
import Testing
@testable import SuiteStorage

@Suite struct SyncSessionTests {
    func session(_ device: Device, _ server: any SyncTransport) -> SyncSession<TestStoreError> {
        var session = SyncSession(store: device.store, log: "toy", transport: server)
        session.batchSize = 7   // several pages per sync
        return session
    }

    func addItem(_ device: Device, _ key: String, _ title: String) throws {
        try device.store.write { db in try db.execute(sql: "INSERT INTO item (uuid, title, seen_ms) VALUES (?, ?, 0)", arguments: [key, title]) }
    }

    @Test func twoDevicesConvergeThroughTheServerInPages() async throws {
        let server = InMemorySyncServer()
        let a = try Device(millis: 1_000), b = try Device(millis: 2_000)
        for n in 0..<20 { try addItem(a, "a\(n)", "From A \(n)") }
        for n in 0..<15 { try addItem(b, "b\(n)", "From B \(n)") }
        let first = try await session(a, server).run()
        #expect(first.pushed == 20 * 4 && !first.restarted)
        _ = try await session(b, server).run()
        _ = try await session(a, server).run()
        #expect(try a.items().count == 35)
        #expect(try a.items() == b.items())
        #expect(try a.store.syncPendingCount() == 0)
        #expect(try b.store.syncPendingCount() == 0)
        let ids = await server.operationIDs(log: "toy")
        #expect(ids.count == 35 * 4 && Set(ids).count == ids.count)
        // A sync with nothing new moves nothing.
        let idle = try await session(b, server).run()
        #expect(idle == .init())
    }

    @Test func aPushWhoseAnswerWasLostIsSentAgainAndKeptOnce() async throws {
        let server = InMemorySyncServer()
        let a = try Device(millis: 1_000)
        for n in 0..<10 { try addItem(a, "a\(n)", "Item \(n)") }
        await server.loseAnswers(1)
        await #expect(throws: URLError.self) { try await session(a, server).run() }
        #expect(try a.store.syncPendingCount() == 40, "nothing is acknowledged without an answer")
        _ = try await session(a, server).run()
        #expect(try a.store.syncPendingCount() == 0)
        let ids = await server.operationIDs(log: "toy")
        #expect(ids.count == 40 && Set(ids).count == 40)
    }

    enum Loss: CaseIterable { case wiped, restoredFromAnOlderCopy, replacedByAnotherServer }

    /// The server loses data while devices keep working; afterwards the server and every device
    /// hold the union of what the devices had, and no device lost a row.
    @Test(arguments: Loss.allCases)
    func aLostServerGetsEverythingBackAndNoDeviceLosesARow(loss: Loss) async throws {
        let first = InMemorySyncServer()
        let a = try Device(millis: 1_000), b = try Device(millis: 1_000)
        try addItem(a, "a1", "Before the copy")
        _ = try await session(a, server: first)
        _ = try await session(b, server: first)
        let copy = await first.state
        try addItem(b, "b1", "After the copy")
        _ = try await session(b, server: first)
        _ = try await session(a, server: first)
        try addItem(a, "a2", "Offline on A")
        try addItem(b, "b2", "Offline on B")
        let before = (try a.items(), try b.items())

        var server: InMemorySyncServer = first
        switch loss {
        case .wiped: await first.wipe()
        case .restoredFromAnOlderCopy: await first.restore(copy)
        case .replacedByAnotherServer: server = InMemorySyncServer()
        }
        let outcomeA = try await session(a, server).run()
        let outcomeB = try await session(b, server).run()
        _ = try await session(a, server).run()
        // The first device back notices the server's log is not the one it followed and sends
        // everything; after a wipe or on a new server the other does too (the epoch changed).
        #expect(outcomeA.restarted)
        #expect(outcomeB.restarted || loss == .restoredFromAnOlderCopy)
        #expect(try a.items().map { $0[0] } == ["a1", "a2", "b1", "b2"])
        #expect(try a.items() == b.items())
        #expect(Set(before.0).isSubset(of: Set(try a.items())))
        #expect(Set(before.1).isSubset(of: Set(try b.items())))
        let ids = await server.operationIDs(log: "toy")
        #expect(ids.count == 4 * 4 && Set(ids).count == ids.count)
    }

    /// A server restored from an older copy, then pushed to by a device that never synced: its
    /// head is back where a device's cursor was, but another operation stands there. The device
    /// notices by the anchor and does not skip what it never saw.
    @Test func anotherOperationAtTheCursorIsNoticed() async throws {
        let server = InMemorySyncServer()
        let empty = await server.state
        let a = try Device(millis: 1_000), b = try Device(millis: 1_000), c = try Device(millis: 1_000)
        try addItem(a, "a1", "From A")
        _ = try await session(a, server: server)
        _ = try await session(b, server: server)
        await server.restore(empty)
        try addItem(c, "c1", "From C")
        _ = try await session(c, server: server)
        let outcome = try await session(b, server: server)
        #expect(outcome.restarted)
        #expect(try b.items().map { $0[0] } == ["a1", "c1"])
        _ = try await session(a, server: server)
        _ = try await session(c, server: server)
        #expect(try c.items() == b.items())
        #expect(try a.items() == b.items())
    }

    func session(_ device: Device, server: InMemorySyncServer) async throws -> SyncSession<TestStoreError>.Outcome {
        try await session(device, server).run()
    }
}
