import Foundation
import SuiteStorage
import SuiteSyncProtocol

/// The server's side of the sync protocol in memory: one log per store, ordered by a counter,
/// pushes idempotent by operation id, an epoch that changes when the server is wiped. Tests
/// wipe it, restore it from an older copy, or lose its answers. Compactions remove operations
/// as the real server does: a removed one keeps its id and position (pulls skip it) until
/// ``forgetRemoved()``.
package actor InMemorySyncServer: SyncTransport {
    package struct State: Sendable {
        package var epoch: String
        package var logs: [String: [SyncEnvelope]] = [:]
        /// Per log, the furthest compaction position that named each operation as kept.
        package var kept: [String: [String: Int64]] = [:]
        /// Per log, the ids of removed operations (still holding their position).
        package var removed: [String: Set<String>] = [:]
        /// Per log, the ids of removed operations whose position is forgotten too.
        package var forgotten: [String: Set<String>] = [:]
        /// Per log, the position of the last compaction and how many it kept.
        package var compacted: [String: (through: Int64, kept: Int64)] = [:]
    }

    package private(set) var state: State
    /// Push answers to lose after the push was committed (the client sees an error).
    private var answersToLose = 0

    /// The server's clock (milliseconds since 1970) that its answers carry; nil for a server
    /// that does not say its time (an older one).
    private let clock: (@Sendable () -> Int64)?

    package init(clock: (@Sendable () -> Int64)? = nil) {
        state = State(epoch: UUID().uuidString)
        self.clock = clock
    }

    package func push(log: String, operations: [SyncEnvelope]) async throws -> SyncPushReply {
        var entries = state.logs[log] ?? []
        let known = Set(entries.map(\.id))
        var added = Set<String>()
        for operation in operations where !known.contains(operation.id) && added.insert(operation.id).inserted {
            entries.append(operation)
        }
        state.logs[log] = entries
        if answersToLose > 0 {
            answersToLose -= 1
            throw URLError(.networkConnectionLost)
        }
        return SyncPushReply(epoch: state.epoch, head: Int64(entries.count), serverTime: clock?())
    }

    package func pull(log: String, after cursor: Int64, limit: Int) async throws -> SyncPullReply {
        let entries = state.logs[log] ?? []
        let removed = state.removed[log] ?? [], forgotten = state.forgotten[log] ?? []
        var index = Int(max(0, min(cursor, Int64(entries.count))))
        var page: [SyncEnvelope] = []
        var last = cursor
        while index < entries.count && page.count < limit {
            if !removed.contains(entries[index].id) {
                page.append(entries[index])
                last = Int64(index + 1)
            }
            index += 1
        }
        let head = Int64(entries.count)
        let next = page.count < limit ? max(last, head) : last
        let anchor = cursor > 0 && cursor <= head && !forgotten.contains(entries[Int(cursor) - 1].id) ? entries[Int(cursor) - 1].id : nil
        let compaction = state.compacted[log] ?? (0, 0)
        return SyncPullReply(epoch: state.epoch, head: head, operations: page, next: next, anchor: anchor, serverTime: clock?(),
                             compacted: compaction.through > 0 ? compaction.through : nil,
                             compactionWanted: compactionWanted(head: head, through: compaction.through, kept: compaction.kept) ? true : nil)
    }

    /// The fewest operations after the last compaction that make the server ask for one (the
    /// real server's rule, with a minimum tests choose).
    package var compactionMinimumTail: Int64 = .max
    package func setCompactionMinimumTail(_ tail: Int64) { compactionMinimumTail = tail }

    private func compactionWanted(head: Int64, through: Int64, kept: Int64) -> Bool {
        let tail = head - through
        return tail >= compactionMinimumTail && Double(tail) > 0.1 * Double(kept)
    }

    package func compact(log: String, request: SyncCompactRequest) async throws -> SyncCompactReply {
        let entries = state.logs[log] ?? []
        guard request.through >= 1, request.through <= Int64(entries.count), entries[Int(request.through) - 1].id == request.anchor,
              !(state.forgotten[log] ?? []).contains(request.anchor) else {
            throw URLError(.badServerResponse)
        }
        let positions = Dictionary(entries.enumerated().map { ($0.element.id, Int64($0.offset + 1)) }, uniquingKeysWith: { first, _ in first })
        for id in request.keep + [request.anchor] {
            guard let position = positions[id], position <= request.through else { continue }
            state.kept[log, default: [:]][id] = max(state.kept[log]?[id] ?? 0, request.through)
        }
        guard request.done else { return SyncCompactReply(kept: 0, removed: 0) }
        var removed: Int64 = 0, kept: Int64 = 0
        for entry in entries.prefix(Int(request.through)) where !(state.removed[log] ?? []).contains(entry.id) {
            if (state.kept[log]?[entry.id] ?? 0) < request.through {
                state.removed[log, default: []].insert(entry.id)
                removed += 1
            } else {
                kept += 1
            }
        }
        if (state.compacted[log]?.through ?? 0) <= request.through {
            state.compacted[log] = (request.through, kept)
        }
        return SyncCompactReply(kept: kept, removed: removed)
    }

    /// Forgets the positions of every removed operation (the grace period is over): a device
    /// whose cursor points at one reads again from the start.
    package func forgetRemoved() {
        for (log, ids) in state.removed {
            state.forgotten[log, default: []].formUnion(ids)
        }
    }

    /// Operations a pull from the start returns.
    package func liveOperationCount(log: String) -> Int {
        let removed = state.removed[log] ?? []
        return (state.logs[log] ?? []).filter { !removed.contains($0.id) }.count
    }

    /// The next `count` push answers are lost after the push was committed.
    package func loseAnswers(_ count: Int) { answersToLose = count }

    /// Everything gone; a new epoch.
    package func wipe() { state = State(epoch: UUID().uuidString) }

    /// Back to an earlier copy (its epoch and log as they were).
    package func restore(_ copy: State) { state = copy }

    /// Replaces the payload of operation `id` in `log` (damaged on the server).
    package func damage(log: String, id: String, payload: Data = Data("not what was pushed".utf8)) {
        guard let index = state.logs[log]?.firstIndex(where: { $0.id == id }) else { return }
        state.logs[log]?[index].payload = payload
    }

    /// Adds an operation to the end of `log` as it is, as anyone holding a device token can.
    package func append(log: String, _ operation: SyncEnvelope) {
        state.logs[log, default: []].append(operation)
    }

    /// Puts operation `id` of the log `from` at the end of the log `to` too (a server moving an
    /// operation to another log; the source keeps its positions).
    package func copy(id: String, from: String, to: String) {
        guard let operation = state.logs[from]?.first(where: { $0.id == id }) else { return }
        state.logs[to, default: []].append(operation)
    }

    /// The operations of a log, in order.
    package func operations(log: String) -> [SyncEnvelope] { state.logs[log] ?? [] }

    /// Every operation id in a log.
    package func operationIDs(log: String) -> [String] { (state.logs[log] ?? []).map(\.id) }
}
