import Foundation
import GRDB

/// Keeping a fast clock's readings off the server (see ``SyncClock/maximumLead``).
extension SyncLedger {
    /// What ``checkClock(_:serverTime:offset:now:)`` found.
    package enum ClockCheck: Sendable, Equatable {
        /// The clock is too far ahead: nothing may be pushed; `pending` changes wait.
        case ahead(pending: Int)
        /// The clock is within the bound; `restamped` pending changes, stamped while it was
        /// too far ahead, were stamped again with the time now.
        case fine(restamped: Int)
    }

    /// Checks this device's clock against the server's before a push; `serverTime` is the
    /// server's clock now, `offset` how far this device's clock is ahead of it, and `now` this
    /// device's clock (all in milliseconds).
    ///
    /// - Ahead by more than ``SyncClock/maximumLead``: pending changes stamped after the
    ///   server's time were stamped by this clock; they are moved back by the lead measured, to
    ///   about when they were made by the server's clock, so that once they go they do not beat
    ///   edits made since elsewhere. They get new operation ids (the server never had them with
    ///   these stamps). The clock forgets readings past the limit. Nothing may be pushed.
    /// - Within the bound: the clock forgets readings past the limit (made while it was fast
    ///   and not yet checked), and pending changes stamped past it — made while the clock was
    ///   fast, by an amount no longer known — are stamped again with the time now. They go with
    ///   this push; nothing is lost.
    package static func checkClock(_ db: Database, serverTime: Int64, offset: Int64, now: Int64) throws -> ClockCheck {
        let limit = SyncClock.limit(serverTime: serverTime)
        if offset > SyncClock.maximumLead {
            let serverNow = HybridTime(millis: serverTime, counter: .max)
            try db.execute(sql: """
                UPDATE sync_field SET time = max(time - ?, 1), op = lower(hex(randomblob(16)))
                WHERE pending = 1 AND time > ?
                """, arguments: [HybridTime(millis: offset).rawValue, serverNow.rawValue])
            try forgetReadings(db, past: limit)
            return .ahead(pending: try pendingCount(db))
        }
        try forgetReadings(db, past: limit)
        let restamped = try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_field WHERE pending = 1 AND time > ?", arguments: [limit.rawValue]) ?? 0
        guard restamped > 0 else { return .fine(restamped: 0) }
        let last = HybridTime(rawValue: try Int64.fetchOne(db, sql: "SELECT last_time FROM sync_control") ?? 0)
        let time = SyncClock.send(last: last, now: now)
        try db.execute(sql: "UPDATE sync_field SET time = ?, op = lower(hex(randomblob(16))) WHERE pending = 1 AND time > ?",
                       arguments: [time.rawValue, limit.rawValue])
        try db.execute(sql: "UPDATE sync_control SET last_time = ?", arguments: [time.rawValue])
        return .fine(restamped: restamped)
    }

    /// Sets the clock's last reading back to the latest one at or before `limit` that the store
    /// holds, when it is past the limit: readings made by a clock too far ahead are not the time.
    private static func forgetReadings(_ db: Database, past limit: HybridTime) throws {
        guard let last = try Int64.fetchOne(db, sql: "SELECT last_time FROM sync_control"), last > limit.rawValue else { return }
        let latest = try Int64.fetchOne(db, sql: "SELECT max(time) FROM sync_field WHERE time <= ?", arguments: [limit.rawValue]) ?? 0
        try db.execute(sql: "UPDATE sync_control SET last_time = ?", arguments: [latest])
    }
}
