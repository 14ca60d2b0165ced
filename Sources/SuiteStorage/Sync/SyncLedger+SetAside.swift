import Foundation
import GRDB
import SuiteSyncProtocol

/// Operations set aside: pulled from the server, but not usable here — they do not open (damaged
/// on the server, moved from another log, sealed with another key), name an entity this store
/// does not have, or the store could not apply them. Each is kept whole (`sync_set_aside`: its
/// log, id, slot and payload, why, when first and last tried), counted and listed, and tried
/// again by later syncs; the cursor moves past it, so it never stops a sync.
extension SyncLedger {
    /// Adds the table of set-aside operations to a ledger (nothing when it is there): run from a
    /// store migration of its own, after ``install(_:schema:)``.
    package static func addSetAsideLog(_ db: Database) throws {
        guard try !db.tableExists("sync_set_aside") else { return }
        try db.execute(sql: """
            CREATE TABLE sync_set_aside (
                log TEXT NOT NULL,
                op TEXT NOT NULL,
                slot TEXT NOT NULL,
                payload BLOB NOT NULL,
                reason TEXT NOT NULL,
                first_ms INTEGER NOT NULL,
                tried_ms INTEGER NOT NULL,
                tries INTEGER NOT NULL,
                PRIMARY KEY (log, op)
            ) WITHOUT ROWID;
            """)
    }

    /// Applies operations pulled from the log `log` and sets aside those that cannot be used:
    /// `refused` (they did not open), those naming an entity `schema` does not have, and those
    /// the store fails to apply. The others are applied as
    /// ``apply(_:schema:changes:limit:oneByOne:)`` does, and leave the set-aside list if they
    /// were on it.
    ///
    /// When the batch fails to apply, each operation is tried alone (undone) to find those that
    /// fail; the rest is applied together. A failure of the store itself (disk full, I/O,
    /// corruption, busy) is not the operation's fault and is thrown. `oneByOne` as for
    /// ``apply(_:schema:changes:limit:oneByOne:)``.
    @discardableResult
    package static func apply(
        _ db: Database, schema: SyncSchema, pulled: [SyncPulled], refused: [SyncRefused], log: String, now: Int64, limit: HybridTime? = nil,
        oneByOne: Bool = false
    ) throws -> ApplyOutcome {
        var refused = refused
        var usable: [SyncPulled] = []
        for operation in pulled {
            // An operation sealed before payloads named their log (format 1) can be moved between
            // logs unnoticed by the seal; entity names are unique across Suite's stores, so one
            // from another log names an entity this store does not have.
            if schema.entity(named: operation.change.entity) == nil {
                refused.append(SyncRefused(envelope: operation.envelope, reason: SyncOperationFailure.unknownEntity(operation.change.entity).description))
            } else {
                usable.append(operation)
            }
        }
        var outcome: ApplyOutcome
        do {
            outcome = try applyAll(db, schema: schema, usable, limit: limit, oneByOne: oneByOne)
        } catch where !isStoreFailure(error) {
            var good: [SyncPulled] = []
            for operation in usable {
                do {
                    try db.inSavepoint {
                        _ = try apply(db, schema: schema, changes: [operation.change], limit: limit, oneByOne: oneByOne)
                        return .rollback
                    }
                    good.append(operation)
                } catch where !isStoreFailure(error) {
                    refused.append(SyncRefused(envelope: operation.envelope, reason: failure(error).description))
                }
            }
            do {
                outcome = try applyAll(db, schema: schema, good, limit: limit, oneByOne: oneByOne)
            } catch where !isStoreFailure(error) {
                // Fails only together with others: one at a time, keeping those that apply.
                outcome = ApplyOutcome()
                let failing = good
                good = []
                for operation in failing {
                    do {
                        let one = try applyAll(db, schema: schema, [operation], limit: limit, oneByOne: oneByOne)
                        outcome.applied += one.applied
                        outcome.ignored += one.ignored
                        outcome.bulk += one.bulk
                        outcome.latest = max(outcome.latest, one.latest)
                        good.append(operation)
                    } catch where !isStoreFailure(error) {
                        refused.append(SyncRefused(envelope: operation.envelope, reason: failure(error).description))
                    }
                }
            }
            usable = good
        }
        // Usually nothing of this log is set aside: one look-up rather than one per operation.
        if try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM sync_set_aside WHERE log = ?)"), arguments: [log]) ?? false {
            let delete = try db.cachedStatement(sql: "DELETE FROM sync_set_aside WHERE log = ? AND op = ?")
            for operation in usable {
                try delete.execute(arguments: [log, operation.envelope.id])
                if db.changesCount > 0 { outcome.recovered += 1 }
            }
        }
        for operation in refused where try setAside(db, log: log, envelope: operation.envelope, reason: operation.reason, now: now) {
            outcome.setAside += 1
        }
        return outcome
    }

    /// ``apply(_:schema:changes:limit:oneByOne:)`` in a savepoint: all or nothing.
    private static func applyAll(_ db: Database, schema: SyncSchema, _ operations: [SyncPulled], limit: HybridTime?, oneByOne: Bool) throws -> ApplyOutcome {
        var outcome = ApplyOutcome()
        guard !operations.isEmpty else { return outcome }
        try db.inSavepoint {
            outcome = try apply(db, schema: schema, changes: operations.map(\.change), limit: limit, oneByOne: oneByOne)
            return .commit
        }
        return outcome
    }

    /// Whether `error` is the store's own failure rather than the operation's.
    private static func isStoreFailure(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        switch error.resultCode {
        case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_NOMEM, .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_BUSY, .SQLITE_LOCKED,
             .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_INTERRUPT, .SQLITE_PERM, .SQLITE_ABORT, .SQLITE_PROTOCOL:
            return true
        default:
            return false
        }
    }

    /// Why applying failed, in a line (without the SQL).
    private static func failure(_ error: any Error) -> SyncOperationFailure {
        if let error = error as? DatabaseError {
            return .notApplied("SQLite error \(error.resultCode.rawValue): \(error.message ?? "unknown")")
        }
        let text = "\(error)"
        return .notApplied(text.count > 200 ? String(text.prefix(200)) + "…" : text)
    }

    /// Keeps an operation that cannot be used; true when it was not set aside before (otherwise
    /// its reason and last try are updated).
    @discardableResult
    package static func setAside(_ db: Database, log: String, envelope: SyncEnvelope, reason: String, now: Int64) throws -> Bool {
        let known = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sync_set_aside WHERE log = ? AND op = ?)", arguments: [log, envelope.id]) ?? false
        try db.execute(sql: """
            INSERT INTO sync_set_aside (log, op, slot, payload, reason, first_ms, tried_ms, tries) VALUES (?, ?, ?, ?, ?, ?, ?, 1)
            ON CONFLICT (log, op) DO UPDATE SET
                slot = excluded.slot, payload = excluded.payload, reason = excluded.reason,
                tried_ms = excluded.tried_ms, tries = tries + 1
            """, arguments: [log, envelope.id, envelope.slot, envelope.payload, reason, now, now])
        return !known
    }

    /// Up to `limit` set-aside operations of `log` to try again, least recently tried first.
    package static func setAsideForRetry(_ db: Database, log: String, limit: Int) throws -> [SyncEnvelope] {
        try Row.fetchAll(db, sql: """
            SELECT op, slot, payload FROM sync_set_aside WHERE log = ? ORDER BY tried_ms, op LIMIT ?
            """, arguments: [log, limit]).map { SyncEnvelope(id: $0["op"], slot: $0["slot"], payload: $0["payload"]) }
    }

    /// The set-aside operations, first set aside first.
    package static func setAside(_ db: Database, limit: Int = 1000) throws -> [SyncSetAside] {
        try Row.fetchAll(db, sql: """
            SELECT log, op, reason, length(payload) AS size, first_ms, tried_ms, tries FROM sync_set_aside
            ORDER BY first_ms, log, op LIMIT ?
            """, arguments: [limit]).map { row in
            SyncSetAside(log: row["log"], id: row["op"], reason: row["reason"], size: row["size"],
                         firstSeen: Millis(row["first_ms"] as Int64).date, lastTried: Millis(row["tried_ms"] as Int64).date, tries: row["tries"])
        }
    }

    /// How many operations are set aside.
    package static func setAsideCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_set_aside") ?? 0
    }
}

/// An operation pulled from the server and set aside (see ``SyncLedger/addSetAsideLog(_:)``).
package struct SyncSetAside: Sendable, Hashable {
    /// The server log it was pulled from.
    package var log: String
    /// Its operation id.
    package var id: String
    /// Why it is set aside (as of the last try).
    package var reason: String
    /// The payload's size in bytes.
    package var size: Int
    package var firstSeen: Date
    package var lastTried: Date
    /// How many times it was tried (pulled or retried).
    package var tries: Int
}
