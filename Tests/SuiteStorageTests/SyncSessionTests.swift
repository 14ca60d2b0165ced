import Foundation
import GRDB
import SuiteSyncProtocol
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

    @Test func sealingAndTheStoresWorkRunOnTheStoreQueueNotOnSwiftsThreads() async throws {
        /// Seals as PlainSyncCodec does, noting whether each seal ran on the store queue.
        final class NotingCodec: SyncCodec, @unchecked Sendable {
            let lock = NSLock()
            var onQueue: [Bool] = []
            func seal(_ change: SyncChange, log: String) throws -> SyncEnvelope {
                lock.withLock { onQueue.append(Background.isCurrent) }
                return try PlainSyncCodec().seal(change, log: log)
            }
            func open(_ envelope: SyncEnvelope, log: String) throws -> SyncChange { try PlainSyncCodec().open(envelope, log: log) }
        }
        let server = InMemorySyncServer()
        let device = try Device(millis: 1_000)
        for n in 0..<3 { try addItem(device, "a\(n)", "From A \(n)") }
        let codec = NotingCodec()
        let outcome = try await SyncSession(store: device.store, log: "toy", transport: server, codec: codec).run()
        #expect(outcome.pushed == 3 * 4)
        #expect(codec.lock.withLock { codec.onQueue.count } == 3 * 4)
        #expect(codec.lock.withLock { codec.onQueue.allSatisfy { $0 } })
        #expect(!Background.isCurrent)
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

    /// A device whose clock runs 2 days 3 h fast (past ``SyncClock/maximumLead``) sends nothing
    /// while it is, and says by how much: its edits cannot beat the real edits made meanwhile.
    /// Once its clock is right its changes go, dated about when they were made by the server's
    /// clock: nothing of it is lost, and a real edit made after its edit still wins.
    @Test func aDeviceTwoDaysFastSendsNothingUntilItsClockIsRightAndLosesNothing() async throws {
        let real = TestClock(millis: 1_800_000_000_000)
        let server = InMemorySyncServer(clock: { real.now })
        let fastBy: Int64 = (2 * 24 + 3) * 3_600_000
        let a = try Device(millis: real.now), b = try Device(millis: real.now - 2_000), fast = try Device(millis: real.now + fastBy)
        func advance(_ millis: Int64) { for clock in [real, a.clock, b.clock, fast.clock] { clock.now += millis } }
        try addItem(a, "i1", "Milk")
        _ = try await session(a, server: server)
        // It still receives; only sending is refused (nothing waits yet).
        await #expect(throws: SyncClockError.aheadOfServer(by: fastBy, pending: 0)) { try await session(fast, server: server) }
        #expect(try fast.items().map { $0[1] } == ["Milk"])

        advance(60_000)
        try fast.store.write { db in try db.execute(sql: "UPDATE item SET title = 'Oat milk (fast)' WHERE uuid = 'i1'") }
        try addItem(fast, "i2", "Bread (fast)")
        let waiting = try fast.store.syncPendingCount()
        do {
            _ = try await session(fast, server: server)
            Issue.record("a device 2 days fast pushed")
        } catch SyncClockError.aheadOfServer(let by, let pending) {
            #expect(abs(by - fastBy) < 1_000)
            #expect(pending == waiting)
        }
        #expect(await server.operationIDs(log: "toy").count == 4, "nothing of the fast device reached the server")
        #expect(try fast.store.syncPendingCount() == waiting)

        // A real edit made after the fast one; the other devices' clocks stay real.
        advance(60_000)
        try a.store.write { db in try db.execute(sql: "UPDATE item SET title = 'Soy milk' WHERE uuid = 'i1'") }
        _ = try await session(a, server: server)
        _ = try await session(b, server: server)
        #expect(try b.items().map { $0[1] } == ["Soy milk"])

        // The clock set right: the fast device's changes go; the later real edit still wins.
        advance(60_000)
        fast.clock.now = real.now + 300
        let fixed = try await session(fast, server: server)
        #expect(fixed.pushed > 0 && fixed.clockOffset.map { abs($0 - 300) < 1_000 } == true)
        _ = try await session(a, server: server)
        _ = try await session(b, server: server)
        #expect(try a.items().map { [$0[0], $0[1]] } == [["i1", "Soy milk"], ["i2", "Bread (fast)"]])
        #expect(try b.items() == a.items() && fast.items() == a.items())
        #expect(try fast.store.syncPendingCount() == 0)
        for device in [a, b, fast] {
            for change in try device.store.syncWinners() {
                #expect(change.time.millis <= real.now + 1_000, "no reading of the fast clock is left: \(change)")
            }
        }
        // Its next edit is stamped by the right clock.
        try fast.store.write { db in try db.execute(sql: "UPDATE item SET title = 'Rice milk' WHERE uuid = 'i1'") }
        #expect(try fast.store.syncPending().map { abs($0.time.millis - fast.clock.now) < 1_000 } == [true])
    }

    /// A device that was fast and edited before its clock was set right, without syncing
    /// meanwhile: its changes go with the time of the sync, not with the fast readings.
    @Test func changesStampedWhileFastAndNeverCheckedGoWithTheTimeOfTheSync() async throws {
        let real = TestClock(millis: 1_800_000_000_000)
        let server = InMemorySyncServer(clock: { real.now })
        let device = try Device(millis: real.now + 3 * 86_400_000)
        try addItem(device, "i1", "Milk")
        device.clock.now = real.now
        let outcome = try await session(device, server: server)
        #expect(outcome.pushed == 4)
        #expect(try device.store.syncWinners().allSatisfy { $0.time.millis <= real.now + 1_000 })
    }

    /// Clocks a day off either way are within the bound: they sync, and what one saw orders
    /// before what it does next whatever its clock says.
    @Test(arguments: [86_400_000, -86_400_000] as [Int64])
    func aClockADayOffSyncs(skew: Int64) async throws {
        let real = TestClock(millis: 1_800_000_000_000)
        let server = InMemorySyncServer(clock: { real.now })
        let a = try Device(millis: real.now - skew), off = try Device(millis: real.now + skew)
        try addItem(a, "i1", "Milk")
        _ = try await session(a, server: server)
        _ = try await session(off, server: server)
        try off.store.write { db in try db.execute(sql: "UPDATE item SET title = 'Seen, then changed' WHERE uuid = 'i1'") }
        let outcome = try await session(off, server: server)
        #expect(outcome.pushed == 1 && outcome.clockOffset.map { abs($0 - skew) < 1_000 } == true)
        _ = try await session(a, server: server)
        #expect(try a.items().map { $0[1] } == ["Seen, then changed"])
    }

    /// Pages are pulled ahead while one is applied: each page once, in order, and a pull that
    /// fails leaves the pages before it applied and the store where they left it.
    @Test func pagesArePulledAheadEachOnceInOrder() async throws {
        let server = InMemorySyncServer()
        let a = try Device(millis: 1_000), b = try Device(millis: 2_000)
        for n in 0..<20 { try addItem(a, "a\(n)", "From A \(n)") }
        _ = try await session(a, server).run()
        let recorder = PullRecorder(server, failing: 3)
        await #expect(throws: URLError.self) { try await session(b, recorder).run() }
        #expect(await recorder.positions == [0, 7, 14], "the third page failed while the second was applied")
        #expect(try b.store.syncServerPosition().cursor == 14)
        #expect(try b.items().count == 3, "the first two pages hold three items whole; the fourth waits for its title")
        let outcome = try await session(b, recorder).run()
        #expect(outcome.pulled == 20 * 4 - 14 && !outcome.restarted)
        #expect(await recorder.positions == [0, 7, 14, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77])
        #expect(try b.items() == a.items())
    }

    func session(_ device: Device, server: InMemorySyncServer) async throws -> SyncSession<TestStoreError>.Outcome {
        try await session(device, server).run()
    }
}

/// A server seen through a transport that records where each pull starts and fails one.
actor PullRecorder: SyncTransport {
    let server: InMemorySyncServer
    private(set) var positions: [Int64] = []
    private var failing: Int?

    /// `failing`: which pull (counting from 1) fails.
    init(_ server: InMemorySyncServer, failing: Int? = nil) {
        self.server = server
        self.failing = failing
    }

    func push(log: String, operations: [SyncEnvelope]) async throws -> SyncPushReply {
        try await server.push(log: log, operations: operations)
    }

    func pull(log: String, after cursor: Int64, limit: Int) async throws -> SyncPullReply {
        positions.append(cursor)
        if positions.count == failing { throw URLError(.networkConnectionLost) }
        return try await server.pull(log: log, after: cursor, limit: limit)
    }

    func compact(log: String, request: SyncCompactRequest) async throws -> SyncCompactReply {
        try await server.compact(log: log, request: request)
    }
}
