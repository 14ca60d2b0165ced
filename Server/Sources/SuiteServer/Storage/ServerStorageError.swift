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

    package var description: String {
        switch self {
        case .accountExists: "the account exists"
        case .unknownAccount: "no such account"
        case .unavailable(let reason): "the database is unavailable: \(reason)"
        case .dataDirectory(let path, let reason): "cannot use the data folder \(path): \(reason)"
        case .migrationFailed(let reason): "cannot update the database schema: \(reason)"
        case .corrupt(let reason): "the stored data is inconsistent: \(reason)"
        case .logMoved(let reason): "the log is not as the device read it: \(reason)"
        }
    }
}
