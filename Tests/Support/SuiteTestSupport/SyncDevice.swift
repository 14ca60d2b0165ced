import Foundation
import GRDB
import SuiteStorage

/// A device of an app in the sync tests: the app's in-memory store with a clock of its own,
/// syncing through a server. What `dump` reads (by global keys: local ids differ between
/// devices) is what every device must hold alike once all have synced.
package final class SyncDevice<AppStore: Sendable, Failure: StoreFailureRepresentable>: Sendable {
    package let store: AppStore
    /// The app store's own `Store`, which syncs.
    package let storage: Store<Failure>
    private let clock: DeviceClock
    private let log: String
    private let queries: [String]

    /// - Parameters:
    ///   - open: makes the app's in-memory store with the given clock.
    ///   - storage: the app store's `Store`.
    package init(
        millis: Int64, log: String, dump queries: [String],
        open: (@escaping @Sendable () -> Date) throws -> AppStore, storage: (AppStore) -> Store<Failure>
    ) throws {
        let clock = DeviceClock(millis: millis)
        self.clock = clock
        store = try open { clock.date }
        self.storage = storage(store)
        self.log = log
        self.queries = queries
        try self.storage.syncEnable()
    }

    package func advance(_ delta: Int64) { clock.advance(delta) }

    package func sync(_ server: InMemorySyncServer) async throws {
        _ = try await SyncSession(store: storage, log: log, transport: server).run()
    }

    /// Every row the queries give, each as ` | `-joined values, sorted.
    package func dump() throws -> [String] {
        try storage.read { db in
            var lines: [String] = []
            for sql in queries {
                lines += try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(\.description).joined(separator: " | ") }
            }
            return lines.sorted()
        }
    }

    /// What still waits: changes to send, and changes received that wait to be applied; both 0
    /// once every device has synced.
    package func waiting() throws -> (pending: Int, received: Int) {
        (try storage.syncPendingCount(), try storage.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_waiting") ?? 0 })
    }
}

extension SyncDevice {
    /// A random run's steps (``RandomSyncRun/steps`` of them): each moves every device's clock on
    /// by up to 30 s, then one device chosen at random takes `step`, given the step's number
    /// (from 1) and the run's random numbers.
    package static func randomRun(
        _ devices: [SyncDevice], random: inout SeededRandom,
        step: (_ device: SyncDevice, _ counter: Int, _ random: inout SeededRandom) async throws -> Void
    ) async throws {
        for index in 0..<RandomSyncRun.steps {
            for device in devices { device.advance(Int64(random.next(upTo: 30_000))) }
            try await step(devices[random.next(upTo: devices.count)], index + 1, &random)
        }
    }

    /// What every device holds after each has synced twice (enough for each to receive what all
    /// sent): its ``dump()``, whether that equals the first device's row for row, the rows in
    /// which they differ (for the message), and what still waits on it (``waiting()``).
    package static func syncAll(_ devices: [SyncDevice], through server: InMemorySyncServer) async throws
        -> [(dump: [String], same: Bool, differences: [String], waiting: (pending: Int, received: Int))] {
        for _ in 0..<2 { for device in devices { try await device.sync(server) } }
        let reference = try devices[0].dump()
        return try devices.map { device in
            let dump = try device.dump()
            return (dump, dump == reference, Set(dump).symmetricDifference(Set(reference)).sorted(), try device.waiting())
        }
    }
}

/// The shape of the random sync runs: 8 devices with clocks up to a day apart and 2,000 steps;
/// 10 seeds for the sync ledger's run against its independent model, 5 for each app's run
/// through its own commands (each costs about 15 ms a step in a debug build: the full run's
/// library tests, mostly these two runs, took 300 s with 10 seeds and 199 s with 5). `SUITE_SYNC_STEPS` and `SUITE_SYNC_SEEDS` (for every run) make longer or, in
/// `Scripts/test --quick`, shorter runs.
package enum RandomSyncRun {
    package static let steps = Int(ProcessInfo.processInfo.environment["SUITE_SYNC_STEPS"] ?? "") ?? 2_000

    /// The seeds of one run, from `first` on (each app its own, so they differ): `count` of them,
    /// or `SUITE_SYNC_SEEDS`.
    package static func seeds(from first: UInt64, count: UInt64 = 10) -> [UInt64] {
        // At least one: 0 would make the tests run no case and pass.
        (0..<max(1, UInt64(ProcessInfo.processInfo.environment["SUITE_SYNC_SEEDS"] ?? "") ?? count)).map { first + $0 }
    }

    /// The devices' clocks, as offsets from a common start.
    package static let clockOffsets: [Int64] = [0, 86_400_000, -86_400_000, 5_000, -3_000, 600_000, -600_000, 250]
}
