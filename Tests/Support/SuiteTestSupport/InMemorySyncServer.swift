import Foundation
import SuiteStorage
import SuiteSyncProtocol

/// The server's side of the sync protocol in memory: one log per store, ordered by a counter,
/// pushes idempotent by operation id, an epoch that changes when the server is wiped. Tests
/// wipe it, restore it from an older copy, or lose its answers.
package actor InMemorySyncServer: SyncTransport {
    package struct State: Sendable {
        package var epoch: String
        package var logs: [String: [SyncEnvelope]] = [:]
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
        let start = Int(max(0, min(cursor, Int64(entries.count))))
        let page = Array(entries[start..<min(entries.count, start + limit)])
        let anchor = cursor > 0 && cursor <= Int64(entries.count) ? entries[Int(cursor) - 1].id : nil
        return SyncPullReply(epoch: state.epoch, head: Int64(entries.count), operations: page, next: Int64(start + page.count), anchor: anchor, serverTime: clock?())
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
