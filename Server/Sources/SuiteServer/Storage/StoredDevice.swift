import Foundation

/// A device as listed to its account.
package struct StoredDevice: Sendable, Hashable {
    /// Its id.
    package var id: String
    /// The name it gave itself.
    package var name: String
    /// When it signed in.
    package var createdAt: Date
    /// When it last made a request (to the minute), if ever after signing in.
    package var lastSeenAt: Date?

    /// Creates a device listing.
    package init(id: String, name: String, createdAt: Date, lastSeenAt: Date?) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}
