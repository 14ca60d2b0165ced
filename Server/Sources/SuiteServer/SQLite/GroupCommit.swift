import GRDB
import NIOConcurrencyHelpers

/// Group commit on SQLite's single writer: writes that arrive while a transaction commits wait,
/// and then go together in the next one, so many concurrent writers share one `fsync` (with
/// `synchronous=FULL`, each commit waits for the disk). Each write runs in a savepoint of its
/// own: one that throws is rolled back alone and gets its error; the others commit. A write is
/// answered only once its transaction committed.
final class GroupCommit<Value: Sendable>: Sendable {
    typealias Work = @Sendable (Database) throws -> Value

    private struct Waiting: Sendable {
        let work: Work
        let continuation: CheckedContinuation<Value, any Error>
    }

    /// The most writes in one transaction.
    static var maximumGroup: Int { 256 }

    private let pool: DatabasePool
    private let state = NIOLockedValueBox<(waiting: [Waiting], committing: Bool)>(([], false))

    init(_ pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs a write in the next group's transaction and returns its value once committed.
    func write(_ work: @escaping Work) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let leads = state.withLockedValue { state -> Bool in
                state.waiting.append(Waiting(work: work, continuation: continuation))
                guard !state.committing else { return false }
                state.committing = true
                return true
            }
            // The first write of a group commits it, and the groups that gather meanwhile.
            if leads { Task { await self.commitWaiting() } }
        }
    }

    private func commitWaiting() async {
        while true {
            let group = state.withLockedValue { state -> [Waiting] in
                let group = Array(state.waiting.prefix(Self.maximumGroup))
                state.waiting.removeFirst(group.count)
                if group.isEmpty { state.committing = false }
                return group
            }
            if group.isEmpty { return }
            let works = group.map(\.work)
            let results: [Result<Value, any Error>]
            do {
                results = try await pool.write { db in
                    works.map { work in
                        Result {
                            var value: Value?
                            try db.inSavepoint {
                                value = try work(db)
                                return .commit
                            }
                            guard let value else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a write returned nothing") }
                            return value
                        }
                    }
                }
            } catch {
                // The transaction did not commit: no write of the group is kept.
                results = Array(repeating: .failure(error), count: group.count)
            }
            for (waiting, result) in zip(group, results) {
                waiting.continuation.resume(with: result)
            }
        }
    }
}
