import Foundation
import ServiceLifecycle
import SuiteSyncProtocol

/// Where the server keeps accounts, devices and the operation logs.
///
/// Two implementations pass the same test suite: ``SQLiteServerStorage`` (one process, a file)
/// and ``PostgresServerStorage`` (any number of processes sharing a database). A storage is a
/// `Service`: ``run()`` keeps its background work going (PostgreSQL's connection pool and its
/// notification listener) until graceful shutdown.
///
/// The storage orders and relays operations; it never looks inside a payload.
package protocol ServerStorage: Service, CommunityStorage {
    /// Where this storage announces pushes that stored something, including, for a shared
    /// database, pushes served by other processes.
    var events: SyncEventHub { get }

    /// Returns once pushes made from now on reach ``events``.
    ///
    /// - Throws: ``ServerStorageError`` if the storage cannot get there.
    func waitUntilReady() async throws

    /// A random secret made when the storage was first created and kept in it (used to derive
    /// stable fake salts for accounts that do not exist).
    ///
    /// - Throws: ``ServerStorageError`` on a storage failure.
    func serverSecret() async throws -> Data

    /// Stores a new account with its first device, using up an invitation code when one is
    /// given (in the same transaction: a refused sign-up leaves the code unused).
    ///
    /// - Parameters:
    ///   - account: The account; its name must be new.
    ///   - device: The account's first device.
    ///   - invite: The code's hash and the time, or nil when sign-up needs none.
    /// - Throws: ``ServerStorageError/accountExists`` if the name is taken,
    ///   ``ServerStorageError/inviteRefused`` for a code unknown, used or expired at that time.
    func createAccount(_ account: StoredAccount, device: NewDevice, invite: InviteClaim?) async throws

    /// Stores a new invitation code (its hash).
    func createInvite(codeHash: String, createdAt: Date, expiresAt: Date) async throws

    /// Whether an invitation code (its hash) exists, unused and unexpired at a time.
    func inviteIsUsable(codeHash: String, at: Date) async throws -> Bool

    /// The bytes the account stores (see ``SyncProtocol/size(of:)``: operations count their id,
    /// slot and payload and 16 a row, a removed one its id and 16; shared lists their title and
    /// body).
    func usage(accountID: String) async throws -> Int64

    /// The account with this exact name, if any.
    ///
    /// - Parameter name: The account name.
    /// - Returns: The account, or `nil`.
    func account(named name: String) async throws -> StoredAccount?

    /// The account with this id, if any.
    ///
    /// - Parameter id: The account's id.
    /// - Returns: The account, or `nil`.
    func account(id: String) async throws -> StoredAccount?

    /// Replaces an account's password material, if its password hash is still the one the
    /// caller checked (two changes at once: one wins, the other changes nothing), and adds a
    /// device in the same transaction when one is given (recovery signs a device in).
    ///
    /// - Parameters:
    ///   - accountID: The account.
    ///   - expectedHash: The password hash the caller verified against.
    ///   - material: The new hash, salt, rounds and wrapped key.
    ///   - device: A device to add, or nil.
    /// - Returns: Whether the account existed with that hash (and so was changed).
    func replacePassword(accountID: String, expectedHash: String, with material: PasswordMaterial, addingDevice device: NewDevice?) async throws -> Bool

    /// Deletes an account and everything of it: devices (and so their tokens), logs and
    /// their operations, its settings, its shared lists. The caller withdraws its community
    /// votes first, so that counts drop; an account that still has votes (published again
    /// meanwhile) is left as it is.
    ///
    /// - Parameter id: The account.
    /// - Returns: Whether it was deleted (false when it has votes, or is gone).
    func deleteAccount(id: String) async throws -> Bool

    /// What the operator may know of accounts: usage and last activity, by name.
    ///
    /// - Parameter name: One account's exact name, or nil for every account.
    /// - Returns: The accounts, ordered by name (none for an unknown name).
    func accountSummaries(named name: String?) async throws -> [AccountSummary]

    /// Disables an account (its tokens and password are refused, nothing is deleted) or
    /// enables it again.
    ///
    /// - Parameters:
    ///   - id: The account.
    ///   - date: When it is disabled, or nil to enable it. An account already disabled keeps
    ///     its first date.
    /// - Returns: Whether the account exists.
    func setAccountDisabled(id: String, at date: Date?) async throws -> Bool

    /// Adds a device (with its token hash) to an existing account.
    ///
    /// - Parameter device: The new device.
    /// - Throws: ``ServerStorageError/unknownAccount`` if the account is gone.
    func addDevice(_ device: NewDevice) async throws

    /// The device whose token has this hash, noting that it was seen.
    ///
    /// - Parameters:
    ///   - tokenHash: The SHA-256 of the bearer token, as lower-case hex.
    ///   - seenAt: The time of the request (stored at most about once a minute).
    /// - Returns: The device and its account (and whether the account is disabled), or `nil`
    ///   for an unknown or revoked token.
    func session(tokenHash: String, seenAt: Date) async throws -> DeviceSession?

    /// The account's devices, oldest first.
    ///
    /// - Parameter accountID: The account.
    /// - Returns: Its devices.
    func devices(accountID: String) async throws -> [StoredDevice]

    /// Deletes a device of an account, and so its token.
    ///
    /// - Parameters:
    ///   - id: The device.
    ///   - accountID: The account it must belong to.
    /// - Returns: Whether such a device existed.
    func removeDevice(id: String, accountID: String) async throws -> Bool

    /// Appends the operations whose ids the log does not hold yet, in the given order, at the
    /// positions after the log's head, and announces the log on ``events`` if it stored any.
    /// ``PushPlan`` makes these decisions for every storage; a storage holds the log, reads what
    /// the plan needs and writes it.
    ///
    /// - Parameters:
    ///   - accountID: The account.
    ///   - log: The log's name (already validated).
    ///   - operations: The operations; ids already stored (or repeated in the batch) are skipped.
    ///   - quota: The most bytes the account may store, or nil.
    /// - Returns: The account's epoch, the log's new head and how many operations were stored.
    /// - Throws: ``ServerStorageError/quotaExceeded(used:quota:)`` if what it stores would take
    ///   the account past its quota (then it stores nothing).
    func push(accountID: String, log: String, operations: [SyncEnvelope], quota: Int64?) async throws -> PushOutcome

    /// The operations of a log after a position.
    ///
    /// - Parameters:
    ///   - accountID: The account.
    ///   - log: The log's name.
    ///   - after: Operations at positions greater than this one are returned.
    ///   - limit: The most operations to return (at least 1).
    ///   - maximumBytes: The page ends before the operation that would take it past this many
    ///     bytes (``SyncProtocol/size(of:)``), unless it is the first.
    /// - Returns: The page, with the epoch, the head, `next` and the anchor at `after`.
    func pull(accountID: String, log: String, after: Int64, limit: Int, maximumBytes: Int) async throws -> SyncPullReply

    /// One page of a compaction (``SyncCompactRequest``): marks the named operations at
    /// positions up to `through` as kept by it; on the last page (`done`) also keeps the one at
    /// `through` and removes the others up to there that no compaction through there or later
    /// kept. A removed operation leaves its id and position (so pushing it again stores nothing,
    /// and a device whose cursor is there still finds its anchor) until
    /// ``forgetRemovedOperations(removedBefore:)``; pulls skip it.
    ///
    /// - Parameters:
    ///   - accountID: The account.
    ///   - log: The log's name (already validated).
    ///   - request: The page (ids already validated).
    ///   - now: The time recorded on removed operations.
    /// - Returns: Zeros before the last page; then how many operations up to `through` are left
    ///   and how many this compaction removed.
    /// - Throws: ``ServerStorageError/logMoved(_:)`` if `through` is past the head or the log
    ///   has another operation there than `anchor`.
    func compact(accountID: String, log: String, request: SyncCompactRequest, now: Date) async throws -> SyncCompactReply

    /// Forgets the ids and positions of operations removed by compactions before a time: a
    /// device whose cursor pointed at one then reads the log again from the start (and sends
    /// what it has again; what the server holds already is stored once).
    ///
    /// - Parameter removedBefore: Operations removed before this time are forgotten.
    /// - Returns: How many were forgotten, per account and log (only those with some).
    func forgetRemovedOperations(removedBefore: Date) async throws -> [ForgottenOperations]

    /// What each log of every account holds, for `suite-server compact` and benchmarks.
    ///
    /// - Returns: One entry per log, by account name and log name.
    func logSizes() async throws -> [LogSize]
}

/// An invitation code being used up at sign-up.
package struct InviteClaim: Sendable, Hashable {
    /// The code's SHA-256, as lower-case hex.
    package var codeHash: String
    /// The time of the sign-up.
    package var at: Date

    package init(codeHash: String, at: Date) {
        self.codeHash = codeHash
        self.at = at
    }
}

/// Operations whose ids a compaction's grace period let go (see
/// ``ServerStorage/forgetRemovedOperations(removedBefore:)``).
package struct ForgottenOperations: Sendable, Hashable {
    package var account: String
    package var log: String
    package var count: Int

    package init(account: String, log: String, count: Int) {
        self.account = account
        self.log = log
        self.count = count
    }
}

/// What one log holds.
package struct LogSize: Sendable, Hashable {
    package var account: String
    package var log: String
    /// The log's head (positions never go back).
    package var head: Int64
    /// Operations a pull returns.
    package var operations: Int64
    /// Removed operations whose ids and positions are still kept.
    package var removed: Int64
    /// The bytes of ids, slots and payloads held, plus 16 a row for its position and marks.
    package var bytes: Int64
    /// The position through which the log was compacted (0: never).
    package var compacted: Int64

    package init(account: String, log: String, head: Int64, operations: Int64, removed: Int64, bytes: Int64, compacted: Int64) {
        self.account = account
        self.log = log
        self.head = head
        self.operations = operations
        self.removed = removed
        self.bytes = bytes
        self.compacted = compacted
    }
}

/// When the server asks devices for a compaction (``SyncPullReply/compactionWanted``).
package enum CompactionPolicy {
    /// The fewest operations after the last compaction that make one wanted.
    package static let minimumTail: Int64 = 1000
    /// Wanted once the operations after the last compaction exceed this share of those it kept
    /// (so that a new device receives at most about 1.1 times what is alive, plus the minimum).
    package static let tailShare: Double = 0.1
    /// How long the ids of removed operations are kept by default.
    package static let defaultGrace: Duration = .seconds(30 * 24 * 3600)

    /// Whether a log whose head is `head`, last compacted through `through` keeping `kept`
    /// operations, wants a compaction.
    package static func wanted(head: Int64, through: Int64, kept: Int64) -> Bool {
        let tail = head - through
        return tail >= minimumTail && Double(tail) > tailShare * Double(kept)
    }
}

extension ServerStorage {
    /// Stores nothing in the background: ready at once.
    package func waitUntilReady() async throws {}
}
