/// Why the service refused a request; the HTTP layer turns each into a status.
package enum SyncServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request is malformed or breaks a rule (400).
    case badRequest(String)
    /// No valid token, or a wrong account or secret (401).
    case unauthorized(String)
    /// A valid token, but a proof that failed: a wrong current password; or an account the
    /// server's operator disabled (403).
    case forbidden(String)
    /// Not found, or not the account's (404).
    case notFound(String)
    /// Signup with a taken name (409).
    case conflict(String)
    /// Too many failed sign-ins (429).
    case tooManyAttempts(String)
    /// A write past the account's storage quota (507).
    case quotaExceeded(String)

    /// The refusal of every request of a disabled account's devices, and of its right password
    /// (a wrong one gets the usual 401, so a stranger learns nothing).
    package static let accountDisabled = SyncServiceError.forbidden("this account is disabled by the server's operator")

    package var description: String {
        switch self {
        case .badRequest(let message), .unauthorized(let message), .forbidden(let message), .notFound(let message), .conflict(let message), .tooManyAttempts(let message), .quotaExceeded(let message):
            message
        }
    }
}
