import Foundation

/// Why a ``SyncClient`` call failed: a ``code`` to decide what to do, and one line to show.
///
/// A struct rather than an enum so that codes can be added without breaking an app's `switch`:
/// compare with the codes you handle (`error.code == .unreachable`) and show ``message`` for the
/// others. Codes are never removed or renamed. A store's own error (its file damaged, its
/// folder unwritable) is thrown as that core's error, not as this one.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        /// The server could not be reached (or answered 5xx); nothing was lost, changes stay queued.
        public static let unreachable = Code("unreachable")
        /// The server is busy or limiting this client (429, 503); try again later.
        public static let busy = Code("busy")
        /// The server refused the request: a wrong password or recovery key, a taken account name.
        public static let refused = Code("refused")
        /// The server no longer knows this device (revoked, logged out, account deleted).
        public static let signedOut = Code("signed-out")
        /// This folder does not sync: sign up, log in or recover first.
        public static let notSyncing = Code("not-syncing")
        /// Input that cannot be used (a short password, text that is not a recovery key); nothing was sent.
        public static let badInput = Code("bad-input")
        /// This device's clock is too far ahead of the server's; it sent nothing (see ``clockLead``).
        public static let clockAhead = Code("clock-ahead")
        /// The server broke the protocol (a log that does not move, an answer that is not the protocol).
        public static let serverBroken = Code("server-broken")
        /// The account's data key does not open with the key given (the account made again elsewhere?).
        public static let wrongKey = Code("wrong-key")
        /// The sync settings in the folder cannot be read or written.
        public static let settings = Code("settings")
        /// The account's storage quota on the server is full (507): nothing more is stored
        /// until it compacts or the operator allows more; changes stay queued.
        public static let quotaFull = Code("quota-full")
    }

    /// What kind of failure.
    public let code: Code
    /// One line for people; it never holds a token, a password or a key.
    public let message: String
    /// For ``Code/clockAhead``: how far this clock is ahead of the server's, in milliseconds.
    public let clockLead: Int64?
    /// For ``Code/clockAhead``: the changes waiting to be sent.
    public let pending: Int?

    package init(_ code: Code, _ message: String, clockLead: Int64? = nil, pending: Int? = nil) {
        self.code = code
        self.message = message
        self.clockLead = clockLead
        self.pending = pending
    }

    public var description: String { message }

    /// Whether trying again later may work without anybody doing anything (offline, busy).
    public var isTransient: Bool { code == .unreachable || code == .busy || code == .clockAhead }

    package static func unreachable(_ reason: String) -> SyncError {
        SyncError(.unreachable, "cannot reach the sync server (\(reason)); changes stay queued for the next sync")
    }

    package static func busy(_ reason: String) -> SyncError {
        SyncError(.busy, "the sync server is busy (\(reason)); try again later")
    }

    package static func refused(_ reason: String) -> SyncError { SyncError(.refused, reason) }

    package static let signedOut = SyncError(.signedOut, "the sync server no longer knows this device (revoked or logged out)")

    package static let notSyncing = SyncError(.notSyncing, "this store folder does not sync yet: suite sync signup … or suite sync login …")
}
