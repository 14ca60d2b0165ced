import Foundation
import SuiteSyncProtocol

/// Sync on a store whose configuration names a ``SyncSchema`` (its migrations installed the
/// ledger with ``SyncLedger/install(_:schema:)``).
extension Store {
    private func schema() throws(Failure) -> SyncSchema {
        guard let sync else { throw Failure(storeFailure: .unavailable(path: path, reason: "this store does not sync")) }
        return sync
    }

    /// This store's device id.
    package func syncDevice() throws(Failure) -> String {
        _ = try schema()
        return try read { db in try SyncLedger.device(db) }
    }

    /// Whether sync was turned on for this store.
    package func syncIsEnabled() throws(Failure) -> Bool {
        _ = try schema()
        return try read { db in try SyncLedger.isEnabled(db) }
    }

    /// Turns sync on: from now on every write records its changes; everything in the store now
    /// is recorded as changes to push.
    package func syncEnable() throws(Failure) {
        let schema = try schema()
        let now = Millis(clock()).value
        try write { db in try SyncLedger.enable(db, schema: schema, now: now) }
    }

    /// Up to `limit` changes not yet on the server, oldest first.
    package func syncPending(limit: Int = 1000) throws(Failure) -> [SyncChange] {
        _ = try schema()
        return try read { db in try SyncLedger.pending(db, limit: limit) }
    }

    /// How many changes are not yet on the server.
    package func syncPendingCount() throws(Failure) -> Int {
        _ = try schema()
        return try read { db in try SyncLedger.pendingCount(db) }
    }

    /// What this store names for a compaction of the log `log`, or nil while changes wait to be
    /// pushed (see ``SyncLedger/compaction(_:log:)``).
    package func syncCompaction(log: String) throws(Failure) -> SyncCompaction? {
        _ = try schema()
        return try read { db in try SyncLedger.compaction(db, log: log) }
    }

    /// Records that the server has these operations.
    package func syncAcknowledge(_ operations: [String]) throws(Failure) {
        _ = try schema()
        try write { db in try SyncLedger.acknowledge(db, operations: operations) }
    }

    /// Merges other devices' changes into this store, in one transaction (see
    /// ``syncApply(_:at:serverTime:)`` for `serverTime`).
    @discardableResult
    package func syncApply(_ changes: [SyncChange], serverTime: Int64? = nil) throws(Failure) -> SyncLedger.ApplyOutcome {
        let schema = try schema()
        return try write { db in try SyncLedger.apply(db, schema: schema, changes: changes, limit: serverTime.map(SyncClock.limit(serverTime:))) }
    }

    /// Checks this device's clock against the server's before a push: `serverTime` is the
    /// server's clock now and `offset` how far this device's clock is ahead of it, both in
    /// milliseconds (see ``SyncLedger/checkClock(_:serverTime:offset:now:)``).
    package func syncCheckClock(serverTime: Int64, offset: Int64) throws(Failure) -> SyncLedger.ClockCheck {
        _ = try schema()
        let now = Millis(clock()).value
        return try write { db in try SyncLedger.checkClock(db, serverTime: serverTime, offset: offset, now: now) }
    }

    /// Marks everything this store knows as to be pushed again (the server lost data).
    package func syncPushEverythingAgain() throws(Failure) {
        _ = try schema()
        try write { db in try SyncLedger.pushEverythingAgain(db) }
    }

    /// Texts that lost to concurrent edits on another device, newest first (see
    /// ``SyncField/keepsLosers``): of one row, of one entity, or all.
    package func syncConflicts(entity: String? = nil, key: String? = nil, limit: Int = 1000) throws(Failure) -> [SyncConflict] {
        _ = try schema()
        return try read { db in try SyncLedger.conflicts(db, entity: entity, key: key, limit: limit) }
    }

    /// Every field's winning change.
    package func syncWinners() throws(Failure) -> [SyncChange] {
        _ = try schema()
        return try read { db in try SyncLedger.winners(db) }
    }
}

extension Store {
    /// Where this store is in the server's log (see ``SyncLedger/serverPosition(_:)``).
    package func syncServerPosition() throws(Failure) -> SyncPosition {
        _ = try schema()
        return try read { db in try SyncLedger.serverPosition(db) }
    }

    /// Applies pulled changes and moves the position past them, in one transaction: a crash
    /// between the two cannot skip or lose an operation. With the server's clock (`serverTime`,
    /// milliseconds since 1970), readings too far ahead of it do not drag this device's clock.
    @discardableResult
    package func syncApply(_ changes: [SyncChange], at position: SyncPosition, serverTime: Int64? = nil) throws(Failure) -> SyncLedger.ApplyOutcome {
        let schema = try schema()
        return try write { db in
            let outcome = try SyncLedger.apply(db, schema: schema, changes: changes, limit: serverTime.map(SyncClock.limit(serverTime:)))
            try SyncLedger.setServerPosition(db, position)
            return outcome
        }
    }

    /// Applies operations pulled from `log`, sets aside those that cannot be used, and moves the
    /// position past all of them, in one transaction (see
    /// ``SyncLedger/apply(_:schema:pulled:refused:log:now:)``).
    @discardableResult
    package func syncApply(
        _ pulled: [SyncPulled], settingAside refused: [SyncRefused], log: String, at position: SyncPosition, serverTime: Int64? = nil
    ) throws(Failure) -> SyncLedger.ApplyOutcome {
        let schema = try schema()
        let now = Millis(clock()).value
        return try write { db in
            let outcome = try SyncLedger.apply(
                db, schema: schema, pulled: pulled, refused: refused, log: log, now: now, limit: serverTime.map(SyncClock.limit(serverTime:)))
            try SyncLedger.setServerPosition(db, position)
            return outcome
        }
    }

    /// Up to `limit` set-aside operations of `log` to try again, least recently tried first.
    package func syncSetAsideForRetry(log: String, limit: Int) throws(Failure) -> [SyncEnvelope] {
        _ = try schema()
        return try read { db in try SyncLedger.setAsideForRetry(db, log: log, limit: limit) }
    }

    /// Applies set-aside operations that open now; those that still cannot be used stay set aside
    /// with the reason of this try.
    @discardableResult
    package func syncRetrySetAside(_ pulled: [SyncPulled], stillRefused refused: [SyncRefused], log: String) throws(Failure) -> SyncLedger.ApplyOutcome {
        let schema = try schema()
        let now = Millis(clock()).value
        return try write { db in try SyncLedger.apply(db, schema: schema, pulled: pulled, refused: refused, log: log, now: now) }
    }

    /// The operations pulled from the server that could not be used, first set aside first.
    package func syncSetAside(limit: Int = 1000) throws(Failure) -> [SyncSetAside] {
        _ = try schema()
        return try read { db in try SyncLedger.setAside(db, limit: limit) }
    }

    /// How many operations pulled from the server are set aside.
    package func syncSetAsideCount() throws(Failure) -> Int {
        _ = try schema()
        return try read { db in try SyncLedger.setAsideCount(db) }
    }

    /// The server's log is not the one this store followed (wiped, restored from an older
    /// copy, or another server): start over at its beginning, pushing everything this store
    /// knows again. Nothing local changes.
    package func syncRestart(epoch: String) throws(Failure) {
        _ = try schema()
        try write { db in
            try SyncLedger.pushEverythingAgain(db)
            try SyncLedger.setServerPosition(db, SyncPosition(epoch: epoch))
        }
    }
}
