import Foundation
import GRDB

extension SyncLedger {
    /// What this store names when the server asks it to compact the log `log` (see
    /// `SyncCompactRequest`): its position in the log and the operations that still matter — each
    /// field's winning change and each operation set aside (a newer Suite may use it). Every
    /// other operation the store has read lost to one of these, so a device that never read it
    /// ends the same without it.
    ///
    /// - Returns: nil while changes wait to be pushed (a winner not on the server yet may
    ///   replace one that is: the server must keep that one), and before the first pull.
    package static func compaction(_ db: Database, log: String) throws -> SyncCompaction? {
        let position = try serverPosition(db)
        guard position.epoch != nil, position.cursor > 0, let anchor = position.anchor, try pendingCount(db) == 0 else { return nil }
        var keep = try String.fetchAll(db, sql: "SELECT DISTINCT op FROM sync_field")
        if try db.tableExists("sync_set_aside") {
            keep += try String.fetchAll(db, sql: "SELECT op FROM sync_set_aside WHERE log = ?", arguments: [log])
        }
        return SyncCompaction(position: position.cursor, anchor: anchor, keep: keep)
    }
}

/// A store's answer to a compaction request: where it is in the log and what to keep.
package struct SyncCompaction: Sendable, Hashable {
    /// The position the store has read the log through.
    package var position: Int64
    /// The id of the operation there.
    package var anchor: String
    /// The operations still winning a field, and those set aside.
    package var keep: [String]
}
