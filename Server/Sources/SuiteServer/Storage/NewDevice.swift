import Foundation

/// A device being added to an account, with the hash of its new token.
package struct NewDevice: Sendable, Hashable {
    /// A random id.
    package var id: String
    /// The account it belongs to.
    package var accountID: String
    /// The name the device gave itself.
    package var name: String
    /// SHA-256 of its bearer token, lower-case hex (the token itself is never stored).
    package var tokenHash: String
    /// When it signed in.
    package var createdAt: Date

    /// Creates a device record.
    package init(id: String, accountID: String, name: String, tokenHash: String, createdAt: Date) {
        self.id = id
        self.accountID = accountID
        self.name = name
        self.tokenHash = tokenHash
        self.createdAt = createdAt
    }
}
