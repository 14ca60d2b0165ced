import SuiteSyncProtocol

/// What a push stores, decided in one place for both storages.
///
/// A storage holds the log for the push (SQLite's write transaction; PostgreSQL's lock on the
/// log's row), reads the facts (the account's epoch, the log's head, which of
/// ``candidates(_:)`` the log already holds), makes the plan from them, and writes it: the usage
/// added (``AccountQuota``), the head moved to ``newHead``, each of ``operations`` stored at
/// ``position(at:)``. The decisions (each id once, at its first occurrence in the batch; none the
/// log holds; the positions right after the head, in the batch's order; the bytes counted) are
/// made here and nowhere else.
package struct PushPlan: Sendable, Equatable {
    /// The operations to store, in the batch's order.
    package let operations: [SyncEnvelope]
    /// The log's head before the push.
    package let head: Int64
    /// The bytes the operations count against the account's quota.
    package let bytes: Int64

    /// The operations of a batch whose ids a storage looks up in the log: each id once, at its
    /// first occurrence, in order.
    ///
    /// - Parameter batch: The pushed operations.
    /// - Returns: The operations without repeated ids.
    package static func candidates(_ batch: [SyncEnvelope]) -> [SyncEnvelope] {
        var seen = Set<String>()
        return batch.filter { seen.insert($0.id).inserted }
    }

    /// The bytes an operation counts against its account's quota: its id, slot and payload, and
    /// 16 for its position and row.
    ///
    /// - Parameter operation: The operation.
    /// - Returns: Its size in the account's usage.
    package static func storedSize(of operation: SyncEnvelope) -> Int64 {
        Int64(SyncProtocol.size(of: operation) + 16)
    }

    /// Decides a push.
    ///
    /// - Parameters:
    ///   - candidates: ``candidates(_:)`` of the batch.
    ///   - stored: Which of their ids the log holds.
    ///   - head: The log's head, read while the push holds the log.
    package init(candidates: [SyncEnvelope], stored: Set<String>, head: Int64) {
        operations = candidates.filter { !stored.contains($0.id) }
        self.head = head
        bytes = operations.reduce(0) { $0 + Self.storedSize(of: $1) }
    }

    /// The log's head after the push.
    package var newHead: Int64 { head + Int64(operations.count) }

    /// Where an operation of the plan is stored.
    ///
    /// - Parameter index: Its index in ``operations``.
    /// - Returns: Its position in the log.
    package func position(at index: Int) -> Int64 { head + 1 + Int64(index) }

    /// What the push answers once the plan is written.
    ///
    /// - Parameter epoch: The account's epoch.
    /// - Returns: The epoch, ``newHead`` and how many operations were stored.
    package func outcome(epoch: String) -> PushOutcome {
        PushOutcome(epoch: epoch, head: newHead, stored: operations.count)
    }
}

/// The quota rule both storages apply whenever bytes are added to an account's usage (a push, a
/// shared list).
package enum AccountQuota {
    /// Refuses bytes that would take an account past its quota; removing bytes is never refused.
    ///
    /// - Parameters:
    ///   - bytes: The bytes added (negative: freed).
    ///   - used: The account's usage before them.
    ///   - quota: The most bytes the account may store, or nil.
    /// - Throws: ``ServerStorageError/quotaExceeded(used:quota:)``.
    package static func check(adding bytes: Int64, to used: Int64, quota: Int64?) throws {
        if let quota, bytes > 0, used + bytes > quota {
            throw ServerStorageError.quotaExceeded(used: used, quota: quota)
        }
    }
}
