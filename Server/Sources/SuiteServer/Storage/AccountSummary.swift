import Foundation

/// What the server's operator may know of an account (`suite-server accounts list`): its
/// usage and last activity, never its data or secrets.
package struct AccountSummary: Sendable, Hashable {
    /// The account's id (for the commands that act on it; not printed).
    package var id: String
    /// The name the account signs in with.
    package var name: String
    /// When the account was made.
    package var createdAt: Date
    /// The latest of its creation, its devices' sign-ins and their last requests (kept to
    /// about a minute, ``LastSeen/resolution``).
    package var lastActivityAt: Date
    /// Its devices (signed in, not revoked).
    package var devices: Int64
    /// Its logs.
    package var logs: Int64
    /// The operations its logs hold (those a pull returns; not the ids compactions removed).
    package var operations: Int64
    /// The bytes it stores, as its quota counts them (``ServerStorage/usage(accountID:)``).
    package var bytes: Int64
    /// When the operator disabled it, or nil.
    package var disabledAt: Date?

    package init(id: String, name: String, createdAt: Date, lastActivityAt: Date, devices: Int64, logs: Int64, operations: Int64, bytes: Int64,
                 disabledAt: Date?) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.lastActivityAt = lastActivityAt
        self.devices = devices
        self.logs = logs
        self.operations = operations
        self.bytes = bytes
        self.disabledAt = disabledAt
    }
}
