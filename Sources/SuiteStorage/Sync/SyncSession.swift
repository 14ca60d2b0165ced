import Foundation
import SuiteSyncProtocol

/// How a device reaches a server: one log per store (by the store's name), pushes idempotent
/// by operation id, pulls after a cursor. A live HTTP client and an in-memory server for tests
/// implement it.
package protocol SyncTransport: Sendable {
    func push(log: String, operations: [SyncEnvelope]) async throws -> SyncPushReply
    func pull(log: String, after cursor: Int64, limit: Int) async throws -> SyncPullReply
}

/// Turns changes into envelopes and back. The plain codec encodes them as JSON; an encrypting
/// one seals the payload and hides the slot.
package protocol SyncCodec: Sendable {
    func seal(_ change: SyncChange) throws -> SyncEnvelope
    func open(_ envelope: SyncEnvelope) throws -> SyncChange
}

package struct PlainSyncCodec: SyncCodec {
    package init() {}

    package func seal(_ change: SyncChange) throws -> SyncEnvelope {
        SyncEnvelope(id: change.id, slot: "\(change.entity)|\(change.key)|\(change.field)", payload: try SyncChange.encoder.encode(change))
    }

    package func open(_ envelope: SyncEnvelope) throws -> SyncChange {
        let change = try JSONDecoder().decode(SyncChange.self, from: envelope.payload)
        guard change.id == envelope.id else { throw SyncProtocolError.mismatchedOperation(envelope.id) }
        return change
    }
}

/// A server answer that breaks the protocol.
package enum SyncProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An operation whose payload names another operation id.
    case mismatchedOperation(String)
    /// A pull that did not move forward although the server says it has more.
    case stalledPull(cursor: Int64)

    package var description: String {
        switch self {
        case .mismatchedOperation(let id): return "the server sent operation \(id) with the payload of another"
        case .stalledPull(let cursor): return "the server's log did not move past position \(cursor)"
        }
    }
}

/// One sync of one store with a server: pull, push every pending change, then pull until the
/// store has everything the server has. Safe to interrupt anywhere: a change stays pending until the
/// server acknowledged it, and the cursor moves only with the changes it covers, in one
/// transaction.
///
/// When the server's log is not the one the store followed — another epoch (wiped or a new
/// server), a head below the store's cursor, or another operation at the cursor than the one
/// pulled there (restored from an older copy) — the store pushes
/// everything it knows again with the original stamps and pulls from the start. Nothing local
/// is ever deleted for it.
///
/// When the server says its time, the device's clock is checked against it before every push:
/// more than ``SyncClock/maximumLead`` ahead, the store still receives but sends nothing and the
/// run throws ``SyncClockError/aheadOfServer(by:pending:)``; its changes wait.
package struct SyncSession<Failure: StoreFailureRepresentable & Sendable>: Sendable {
    package let store: Store<Failure>
    package let log: String
    package let transport: any SyncTransport
    package let codec: any SyncCodec
    package var batchSize = 500

    package init(store: Store<Failure>, log: String, transport: any SyncTransport, codec: any SyncCodec = PlainSyncCodec()) {
        self.store = store
        self.log = log
        self.transport = transport
        self.codec = codec
    }

    package typealias Outcome = SyncOutcome

    package func run() async throws -> Outcome {
        var outcome = Outcome()
        // At most one restart a run: a server that keeps changing its epoch is reported by the
        // next run, not looped on.
        // Pull first: a server restored from an older copy shows a head behind the cursor only
        // until this store's own push raises it again.
        // The last pull picks up what others pushed meanwhile, and is needed only after a push.
        for _ in 0..<2 {
            let pushed = outcome.pushed
            guard try await pullAll(&outcome) else { outcome.restarted = true; continue }
            try checkClock(outcome)
            guard try await pushAll(&outcome) else { outcome.restarted = true; continue }
            if outcome.pushed == pushed { return outcome }
            if try await pullAll(&outcome) { return outcome }
            outcome.restarted = true
        }
        return outcome
    }

    /// Pushes every pending change; false when the server's log changed (the store restarts).
    private func pushAll(_ outcome: inout Outcome) async throws -> Bool {
        while true {
            let pending = try store.syncPending(limit: batchSize)
            if pending.isEmpty { return true }
            let reply = try await transport.push(log: log, operations: try pending.map(codec.seal))
            if try restartIfMoved(epoch: reply.epoch, head: reply.head) { return false }
            try store.syncAcknowledge(pending.map(\.id))
            outcome.pushed += pending.count
        }
    }

    /// Refuses to push while this device's clock is too far ahead of the server's (its changes
    /// wait); within the bound, restamps what was stamped while it was (see
    /// ``SyncLedger/checkClock(_:serverTime:offset:now:)``). Nothing is checked when the server
    /// does not say its time.
    private func checkClock(_ outcome: Outcome) throws {
        guard let offset = outcome.clockOffset else { return }
        let now = Millis(store.clock()).value
        if case .ahead(let pending) = try store.syncCheckClock(serverTime: now - offset, offset: offset) {
            throw SyncClockError.aheadOfServer(by: offset, pending: pending)
        }
    }

    /// Pulls until the store has the server's head; false when the server's log changed.
    private func pullAll(_ outcome: inout Outcome) async throws -> Bool {
        while true {
            let position = try store.syncServerPosition()
            let sent = Millis(store.clock()).value
            let reply = try await transport.pull(log: log, after: position.cursor, limit: batchSize)
            if let serverTime = reply.serverTime {
                // The server read its clock about halfway through the exchange.
                outcome.clockOffset = (sent + Millis(store.clock()).value) / 2 - serverTime
            }
            if try restartIfMoved(epoch: reply.epoch, head: reply.head) { return false }
            if position.epoch != nil, position.cursor > 0, reply.anchor != position.anchor {
                try store.syncRestart(epoch: reply.epoch)
                return false
            }
            let changes = try reply.operations.map(codec.open)
            let applied = try store.syncApply(changes, at: SyncPosition(
                epoch: reply.epoch, cursor: reply.next, anchor: reply.operations.last?.id ?? position.anchor), serverTime: reply.serverTime)
            outcome.pulled += changes.count
            outcome.applied += applied.applied
            if !reply.hasMore { return true }
            if reply.next <= position.cursor { throw SyncProtocolError.stalledPull(cursor: position.cursor) }
        }
    }

    /// Checks the server's log against the store's position: a first sync adopts the epoch; a
    /// new epoch or a head behind the cursor restarts the store on this log.
    private func restartIfMoved(epoch: String, head: Int64) throws -> Bool {
        let position = try store.syncServerPosition()
        guard let known = position.epoch else { return false }
        guard known != epoch || head < position.cursor else { return false }
        try store.syncRestart(epoch: epoch)
        return true
    }
}

/// What one sync of a store did.
package struct SyncOutcome: Sendable, Equatable {
    package var pushed = 0
    package var pulled = 0
    package var applied = 0
    /// Whether the server's log had changed under the store (it pushed everything again).
    package var restarted = false
    /// How far this device's clock is ahead of the server's, in milliseconds (negative when
    /// behind), as last measured; nil when the server does not say its time.
    package var clockOffset: Int64?

    package init() {}
}
