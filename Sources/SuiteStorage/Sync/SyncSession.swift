import Foundation
import SuiteSyncProtocol

/// How a device reaches a server: one log per store (by the store's name), pushes idempotent
/// by operation id, pulls after a cursor. A live HTTP client and an in-memory server for tests
/// implement it.
package protocol SyncTransport: Sendable {
    func push(log: String, operations: [SyncEnvelope]) async throws -> SyncPushReply
    func pull(log: String, after cursor: Int64, limit: Int) async throws -> SyncPullReply
    /// One page of a compaction of the log (`POST /v1/logs/{log}/compact`).
    func compact(log: String, request: SyncCompactRequest) async throws -> SyncCompactReply
}

/// Turns changes into envelopes and back. The plain codec encodes them as JSON; an encrypting
/// one seals the payload, binds it to its log, and hides the slot.
package protocol SyncCodec: Sendable {
    /// The envelope of `change` for the log `log`.
    func seal(_ change: SyncChange, log: String) throws -> SyncEnvelope
    /// The change in `envelope`, pulled from the log `log`.
    ///
    /// - Throws: ``SyncOperationFailure`` (or any error) when the envelope cannot be opened: the
    ///   session sets that one operation aside and goes on with the others.
    func open(_ envelope: SyncEnvelope, log: String) throws -> SyncChange
}

/// JSON payloads, readable by the server: for tests and local relays. Nothing binds a payload to
/// its log; the ledger sets aside an operation whose entity the store does not have.
package struct PlainSyncCodec: SyncCodec {
    package init() {}

    package func seal(_ change: SyncChange, log: String) throws -> SyncEnvelope {
        SyncEnvelope(id: change.id, slot: "\(change.entity)|\(change.key)|\(change.field)", payload: try SyncChange.encoder.encode(change))
    }

    package func open(_ envelope: SyncEnvelope, log: String) throws -> SyncChange {
        let change: SyncChange
        do {
            change = try SyncChange.decode(envelope.payload)
        } catch {
            throw SyncOperationFailure.unreadable
        }
        guard change.id == envelope.id else { throw SyncOperationFailure.mismatched }
        return change
    }
}

/// Why one operation pulled from the server was set aside instead of applied (see
/// ``SyncLedger/setAside(_:log:envelope:reason:now:)``). None of these stops a sync: the
/// operation is kept, counted and retried, and everything else goes on.
package enum SyncOperationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The payload does not open with the account's key: damaged on the server, moved there
    /// from another log, operation or slot, or sealed with another key.
    case doesNotOpen
    /// A payload format this version does not know (a newer Suite's).
    case unknownFormat(UInt8)
    /// The payload opens but is not a change this version can read.
    case unreadable
    /// The payload is another operation's or another field's than the envelope says.
    case mismatched
    /// The change names an entity this store does not have: moved from another log (an
    /// operation sealed before payloads named their log), or written by a newer Suite.
    case unknownEntity(String)
    /// The store could not apply the change.
    case notApplied(String)

    package var description: String {
        switch self {
        case .doesNotOpen: return "does not open with the account's key (damaged on the server, moved there from another log, or sealed with another key)"
        case .unknownFormat(let version): return "sealed in a format this version does not know (version \(version); from a newer Suite?)"
        case .unreadable: return "opens, but is not a change this version can read"
        case .mismatched: return "its payload belongs to another operation or field (moved on the server)"
        case .unknownEntity(let entity): return "names '\(entity)', which this store does not have (moved from another log, or from a newer Suite)"
        case .notApplied(let reason): return "could not be applied: \(reason)"
        }
    }

    /// The reason recorded for an operation that failed with `error`.
    package static func reason(_ error: any Error) -> String {
        let text = (error as? SyncOperationFailure)?.description ?? "does not open: \(error)"
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }
}

/// A server answer that breaks the protocol.
package enum SyncProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A pull that did not move forward although the server says it has more.
    case stalledPull(cursor: Int64)

    package var description: String {
        switch self {
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
/// An operation that cannot be used — it does not open, it is not a change this version reads,
/// it names an entity this store does not have, or the store cannot apply it — is set aside
/// (kept in the ledger with its log, id and why: ``Store/syncSetAside(limit:)``) and the cursor
/// moves past it: one bad operation never stops a sync. Up to ``retryLimit`` set-aside operations
/// are tried again at the start of each run (after an upgrade, say), least recently tried first.
/// When the server says its time, the device's clock is checked against it before every push:
/// more than ``SyncClock/maximumLead`` ahead, the store still receives but sends nothing and the
/// run throws ``SyncClockError/aheadOfServer(by:pending:)``; its changes wait.
///
/// When the server asks for a compaction and the store has read the whole log with nothing
/// left to push, the run ends by naming the operations that still matter to it (``compact()``);
/// the server removes the others. A store whose cursor points at a removed operation goes on
/// from there (every removed operation lost to one it still receives or already has); once the
/// server has forgotten that operation too, the store reads the log again from the start and
/// sends what it has again, as for a server that lost data.
package struct SyncSession<Failure: StoreFailureRepresentable & Sendable>: Sendable {
    package let store: Store<Failure>
    package let log: String
    package let transport: any SyncTransport
    package let codec: any SyncCodec
    /// The most operations one push sends and one pull asks for (the server may answer with fewer).
    package var batchSize = SyncProtocol.maximumBatch
    /// How many pages a pull sends for and opens ahead of the one the store applies.
    package var pagesAhead = 2
    /// How many set-aside operations one run tries again.
    package var retryLimit = 50
    /// Whether the run compacts the log when the server asks (``compact()``).
    package var compactsWhenAsked = true
    /// Whether the run compacts the log at its end even when the server did not ask.
    package var compactsAlways = false

    package init(store: Store<Failure>, log: String, transport: any SyncTransport, codec: any SyncCodec = PlainSyncCodec()) {
        self.store = store
        self.log = log
        self.transport = transport
        self.codec = codec
    }

    package typealias Outcome = SyncOutcome

    package func run() async throws -> Outcome {
        var outcome = try await onStoreQueue { session in
            var outcome = Outcome()
            try session.retrySetAside(&outcome)
            return outcome
        }
        // At most one restart a run: a server that keeps changing its epoch is reported by the
        // next run, not looped on.
        // Pull first: a server restored from an older copy shows a head behind the cursor only
        // until this store's own push raises it again.
        // The last pull picks up what others pushed meanwhile, and is needed only after a push.
        for _ in 0..<2 {
            let pushed = outcome.pushed
            guard try await pullAll(&outcome) else { outcome.restarted = true; continue }
            try await onStoreQueue { [outcome] session in try session.checkClock(outcome) }
            guard try await pushAll(&outcome) else { outcome.restarted = true; continue }
            let settled = outcome.pushed == pushed ? true : try await pullAll(&outcome)
            if settled {
                try await compactIfAsked(&outcome)
                return outcome
            }
            outcome.restarted = true
        }
        return outcome
    }

    /// Compacts the log when the last pull asked for it. A compaction that fails (the log moved
    /// meanwhile, the server is gone) is tried again when the server asks again: the sync
    /// itself succeeded. With ``compactsAlways`` (asked for by name) the failure is thrown.
    private func compactIfAsked(_ outcome: inout Outcome) async throws {
        guard compactsAlways || (compactsWhenAsked && outcome.compactionWanted) else { return }
        do {
            if let reply = try await compact() { outcome.compactedAway += Int(reply.removed) }
        } catch {
            // Asked for by name (`suite sync --compact`): say it failed.
            if compactsAlways { throw error }
        }
    }

    /// Names to the server, in pages, the operations up to this store's position that still
    /// matter to it (``SyncLedger/compaction(_:log:)``); the server then removes the others.
    ///
    /// - Returns: What the server kept and removed, or nil when the store has changes waiting
    ///   to be pushed or has never pulled (nothing is sent).
    /// - Throws: The transport's error (a log that moved is refused with a conflict).
    @discardableResult
    package func compact() async throws -> SyncCompactReply? {
        guard let compaction = try await onStoreQueue({ session in try session.store.syncCompaction(log: session.log) }) else { return nil }
        let page = SyncProtocol.maximumKeepPage
        var start = 0
        while true {
            let end = min(start + page, compaction.keep.count)
            let done = end == compaction.keep.count
            let reply = try await transport.compact(log: log, request: SyncCompactRequest(
                through: compaction.position, anchor: compaction.anchor, keep: Array(compaction.keep[start..<end]), done: done))
            if done { return reply }
            start = end
        }
    }

    /// Pushes every pending change; false when the server's log changed (the store restarts).
    private func pushAll(_ outcome: inout Outcome) async throws -> Bool {
        while true {
            let (pending, sealed) = try await onStoreQueue { session in
                let pending = try session.store.syncPending(limit: session.batchSize)
                // As many as fit the server's byte limit for a push (at least one).
                var sealed: [SyncEnvelope] = [], bytes = 0
                for operation in pending {
                    let envelope = try session.codec.seal(operation, log: session.log)
                    let size = SyncProtocol.size(of: envelope)
                    if !sealed.isEmpty && bytes + size > SyncProtocol.maximumPushBytes { break }
                    sealed.append(envelope)
                    bytes += size
                }
                return (pending, sealed)
            }
            if pending.isEmpty { return true }
            let reply = try await transport.push(log: log, operations: sealed)
            let moved = try await onStoreQueue { session in
                if try session.restartIfMoved(epoch: reply.epoch, head: reply.head) { return true }
                try session.store.syncAcknowledge(pending.prefix(sealed.count).map(\.id))
                return false
            }
            if moved { return false }
            outcome.pushed += sealed.count
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

    /// A pull's answer, with this device's clock when the pull was sent and when the answer
    /// came (milliseconds).
    private struct Answer: Sendable {
        /// The position it was pulled after.
        var after: Int64
        var reply: SyncPullReply
        var sent: Int64
        var received: Int64
    }

    /// A page pulled from the server, its operations opened.
    private struct Page: Sendable {
        var answer: Answer
        var opened: [SyncPulled]
        var refused: [SyncRefused]
    }

    /// Pulls the page after `cursor`.
    private func pull(after cursor: Int64) async throws -> Answer {
        let sent = Millis(store.clock()).value
        let reply = try await transport.pull(log: log, after: cursor, limit: batchSize)
        return Answer(after: cursor, reply: reply, sent: sent, received: Millis(store.clock()).value)
    }

    /// Pages pulled and opened ahead of the one the store applies, in order, at most
    /// ``pagesAhead`` of them: each pull is sent as soon as the answer before it came (it starts
    /// where that answer ends), and each answer is opened as soon as it came. A pull that fails
    /// fails the pages after it too, when their turn comes.
    private struct Prefetch {
        let session: SyncSession
        private var queue: [(answer: Task<Answer?, any Error>, page: Task<Page?, any Error>)] = []
        /// The position the first page in the queue was (or will be) pulled after.
        private var first: Int64?

        init(_ session: SyncSession) {
            self.session = session
        }

        /// The page after `cursor`: the first one pulled ahead when it starts there; otherwise
        /// (something else moved the store meanwhile) those pulled ahead are dropped and pages
        /// are pulled from `cursor`.
        mutating func page(after cursor: Int64) async throws -> Page {
            while true {
                if queue.isEmpty || first != cursor { restart(after: cursor) }
                let next = queue.removeFirst()
                // Nothing: the answer before it said the log ended (not reached when it did).
                guard let page = try await next.page.value else {
                    cancel()
                    queue = []
                    continue
                }
                first = page.answer.reply.next
                fill()
                return page
            }
        }

        /// Drops what was pulled ahead.
        func cancel() {
            for entry in queue {
                entry.answer.cancel()
                entry.page.cancel()
            }
        }

        private mutating func restart(after cursor: Int64) {
            cancel()
            let session = self.session
            let answer = Task<Answer?, any Error> { try await session.pull(after: cursor) }
            queue = [(answer, Self.opening(answer, session))]
            first = cursor
            fill()
        }

        /// Pulls ahead up to ``SyncSession/pagesAhead`` pages, each after the one before.
        private mutating func fill() {
            let session = self.session
            while queue.count < max(session.pagesAhead, 1), let last = queue.last?.answer {
                let answer = Task<Answer?, any Error> {
                    guard let previous = try await last.value, previous.reply.hasMore, previous.reply.next > previous.after else { return nil }
                    try Task.checkCancellation()
                    return try await session.pull(after: previous.reply.next)
                }
                queue.append((answer, Self.opening(answer, session)))
            }
        }

        private static func opening(_ answer: Task<Answer?, any Error>, _ session: SyncSession) -> Task<Page?, any Error> {
            Task {
                guard let answer = try await answer.value else { return nil }
                // Decrypting a page is up to a second of CPU on a slow machine: on a thread of its
                // own, neither on Swift's cooperative threads (an app's other tasks need them
                // meanwhile) nor on the stores' queue (as wide as the machine has cores).
                let (opened, refused) = await Background.run(on: SyncOpening.queue) { session.open(answer.reply.operations) }
                return Page(answer: answer, opened: opened, refused: refused)
            }
        }
    }

    /// Pulls until the store has the server's head; false when the server's log changed.
    ///
    /// Pages are pulled and opened (decrypted) ahead of the one applied (``Prefetch``), so the
    /// network, the server and the decryption overlap with the store's writes. A page pulled
    /// ahead is used only if the store is still where the page before left it (nothing else
    /// moved its position meanwhile); everything its answer says is checked when its turn
    /// comes, as for any page.
    private func pullAll(_ outcome: inout Outcome) async throws -> Bool {
        var ahead = Prefetch(self)
        defer { ahead.cancel() }
        while true {
            // A cancelled sync stops between pages (what was pulled ahead is dropped).
            try Task.checkCancellation()
            let position = try await onStoreQueue { session in try session.store.syncServerPosition() }
            let page = try await ahead.page(after: position.cursor)
            let reply = page.answer.reply
            let serverTime = SyncClock.plausible(serverTime: reply.serverTime)
            if let serverTime {
                // The server read its clock about halfway through the exchange.
                outcome.clockOffset = (page.answer.sent + page.answer.received) / 2 - serverTime
            }
            let step = try await onStoreQueue { session -> PageStep in
                if try session.restartIfMoved(epoch: reply.epoch, head: reply.head) { return .restarted }
                if position.epoch != nil, position.cursor > 0, reply.anchor != position.anchor {
                    // Where a compaction's grace period is over, the operation at the cursor is
                    // gone although the log is the one the store read: reading it again is all it
                    // needs, but the same restart is also right for a log restored from an older copy.
                    try session.store.syncRestart(epoch: reply.epoch)
                    return .restartedAtAnchor
                }
                return .applied(try session.store.syncApply(page.opened, settingAside: page.refused, log: session.log, at: SyncPosition(
                    epoch: reply.epoch, cursor: reply.next, anchor: reply.operations.last?.id ?? position.anchor), serverTime: serverTime))
            }
            let applied: SyncLedger.ApplyOutcome
            switch step {
            case .restarted: return false
            case .restartedAtAnchor:
                if let compacted = reply.compacted, position.cursor <= compacted, reply.anchor == nil { outcome.pastCompaction = true }
                return false
            case .applied(let outcome): applied = outcome
            }
            outcome.pulled += reply.operations.count
            outcome.applied += applied.applied
            outcome.setAside += applied.setAside
            outcome.recovered += applied.recovered
            outcome.compactionWanted = reply.compactionWanted ?? false
            if !reply.hasMore { return true }
            if reply.next <= position.cursor { throw SyncProtocolError.stalledPull(cursor: position.cursor) }
        }
    }

    /// What the store did with a pulled page.
    private enum PageStep: Sendable {
        /// The server's log moved (another epoch, or a head behind the cursor).
        case restarted
        /// Another operation (or none) at the store's cursor.
        case restartedAtAnchor
        case applied(SyncLedger.ApplyOutcome)
    }

    /// Runs store work (SQLite, `fsync`, waiting for the store's lock, sealing) on the store's
    /// queue, never on Swift's cooperative threads (see ``Background``).
    private func onStoreQueue<T: Sendable>(_ body: @escaping @Sendable (SyncSession) throws -> T) async throws -> T {
        try await Background.run { [self] () throws -> T in try body(self) }
    }

    /// Opens each envelope; those that do not open, with why.
    private func open(_ envelopes: [SyncEnvelope]) -> (opened: [SyncPulled], refused: [SyncRefused]) {
        var opened: [SyncPulled] = [], refused: [SyncRefused] = []
        for envelope in envelopes {
            do {
                opened.append(SyncPulled(envelope: envelope, change: try codec.open(envelope, log: log)))
            } catch {
                refused.append(SyncRefused(envelope: envelope, reason: SyncOperationFailure.reason(error)))
            }
        }
        return (opened, refused)
    }

    /// Tries the least recently tried set-aside operations of this log again: those that open and
    /// apply now leave the set-aside list; the others stay, with the reason of this try.
    private func retrySetAside(_ outcome: inout Outcome) throws {
        let kept = try store.syncSetAsideForRetry(log: log, limit: retryLimit)
        guard !kept.isEmpty else { return }
        let (opened, refused) = open(kept)
        let applied = try store.syncRetrySetAside(opened, stillRefused: refused, log: log)
        outcome.applied += applied.applied
        outcome.recovered += applied.recovered
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

/// Where pulled pages are opened (decrypted): one serial queue for every session.
enum SyncOpening {
    static let queue = DispatchQueue(label: "suite.sync.open")
}

/// What one sync of a store did.
package struct SyncOutcome: Sendable, Equatable {
    package var pushed = 0
    package var pulled = 0
    package var applied = 0
    /// Whether the server's log had changed under the store (it pushed everything again).
    package var restarted = false
    /// Operations pulled in this run that could not be used and were set aside (not counting
    /// those set aside before).
    package var setAside = 0
    /// Operations set aside before that opened and were applied now.
    package var recovered = 0
    /// How far this device's clock is ahead of the server's, in milliseconds (negative when
    /// behind), as last measured; nil when the server does not say its time.
    package var clockOffset: Int64?
    /// Whether the server asked for a compaction in its last answer.
    package var compactionWanted = false
    /// Operations the server removed from the log in a compaction this run made.
    package var compactedAway = 0
    /// Whether the restart was because a compaction removed, and the server then forgot, the
    /// operation at the store's cursor (not because the server lost data).
    package var pastCompaction = false

    package init() {}
}

/// An operation pulled from the server and opened.
package struct SyncPulled: Sendable, Hashable {
    package var envelope: SyncEnvelope
    package var change: SyncChange

    package init(envelope: SyncEnvelope, change: SyncChange) {
        self.envelope = envelope
        self.change = change
    }
}

/// An operation pulled from the server that cannot be used, and why.
package struct SyncRefused: Sendable, Hashable {
    package var envelope: SyncEnvelope
    package var reason: String

    package init(envelope: SyncEnvelope, reason: String) {
        self.envelope = envelope
        self.reason = reason
    }
}
