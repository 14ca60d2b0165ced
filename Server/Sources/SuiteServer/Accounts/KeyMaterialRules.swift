import Foundation

/// The sizes and ranges the key material of an account may have (signup, password change,
/// recovery): what the client makes (32-byte secrets, 16-byte salts, 61-byte wrapped keys,
/// 600,000 rounds) fits with room, and nothing makes the server store or answer much more.
enum KeyMaterialRules {
    /// The longest authentication or recovery secret, in bytes: its base64 (64 characters)
    /// stays within the 72 bytes bcrypt reads.
    static let maximumSecret = 48
    /// The longest salt, in bytes.
    static let maximumSalt = 64
    /// The longest wrapped key, in bytes.
    static let maximumWrappedKey = 256
    /// The most key-derivation rounds an account may announce (a client refuses fewer than its own).
    static let maximumRounds = 10_000_000

    /// Checks a new password's material.
    ///
    /// - Throws: ``SyncServiceError/badRequest(_:)`` naming the first field out of bounds.
    static func check(secret: Data, salt: Data, rounds: Int, wrappedKey: Data) throws {
        try check(secret: secret, named: "authentication secret")
        guard (1...maximumSalt).contains(salt.count) else { throw SyncServiceError.badRequest("the salt must be 1 to \(maximumSalt) bytes") }
        guard (1...maximumRounds).contains(rounds) else { throw SyncServiceError.badRequest("the rounds must be 1 to \(maximumRounds)") }
        try check(wrappedKey: wrappedKey, named: "wrapped key")
    }

    static func check(secret: Data, named name: String) throws {
        guard (1...maximumSecret).contains(secret.count) else { throw SyncServiceError.badRequest("the \(name) must be 1 to \(maximumSecret) bytes") }
    }

    static func check(wrappedKey: Data, named name: String) throws {
        guard (1...maximumWrappedKey).contains(wrappedKey.count) else { throw SyncServiceError.badRequest("the \(name) must be 1 to \(maximumWrappedKey) bytes") }
    }
}
