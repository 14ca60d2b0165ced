/// Why the storage refused or failed.
package enum ServerStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Signup with a name that is taken.
    case accountExists
    /// The account is gone (deleted while a request was in flight).
    case unknownAccount
    /// The database cannot be reached.
    case unavailable(String)
    /// The data folder or file cannot be created, opened or secured.
    case dataDirectory(path: String, reason: String)
    /// The schema cannot be brought up to date.
    case migrationFailed(String)
    /// The stored data contradicts itself.
    case corrupt(String)
    /// A compaction names a position past the log's head, or another operation there than the
    /// log has: the device did not read this log as it is.
    case logMoved(String)
    /// Sign-up with an invitation code that is unknown, used or expired.
    case inviteRefused
    /// A write that would take the account past its quota (nothing was written).
    case quotaExceeded(used: Int64, quota: Int64)

    package var description: String {
        switch self {
        case .accountExists: "the account exists"
        case .unknownAccount: "no such account"
        case .unavailable(let reason): "the database is unavailable: \(reason)"
        case .dataDirectory(let path, let reason): "cannot use the data folder \(path): \(reason)"
        case .migrationFailed(let reason): "cannot update the database schema: \(reason)"
        case .corrupt(let reason): "the stored data is inconsistent: \(reason)"
        case .logMoved(let reason): "the log is not as the device read it: \(reason)"
        case .inviteRefused: "the invitation code is unknown, used or expired"
        case .quotaExceeded(let used, let quota): "the account uses \(used) bytes of its \(quota)"
        }
    }
}
