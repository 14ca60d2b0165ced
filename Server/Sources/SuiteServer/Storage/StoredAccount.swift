import Foundation

/// An account as the storage keeps it: what signup sent (except the secret, kept as a bcrypt
/// hash) and the epoch made at signup.
package struct StoredAccount: Sendable, Hashable {
    /// A random id that never changes (the account name could, one day).
    package var id: String
    /// The name the account signs in with.
    package var name: String
    /// bcrypt of the base64 of the authentication secret.
    package var passwordHash: String
    /// The client's key-derivation salt, as sent.
    package var salt: Data
    /// The client's key-derivation rounds, as sent.
    package var rounds: Int
    /// The data key wrapped by the master key, as sent.
    package var wrappedKey: Data
    /// The data key wrapped by the recovery key, as sent.
    package var recoveryWrappedKey: Data
    /// A random id made at signup; a new one would tell devices the server lost its data.
    package var epoch: String
    /// When the account was made.
    package var createdAt: Date
    /// bcrypt of the base64 of the recovery secret; nil for accounts made by clients that did
    /// not send one (they cannot be recovered).
    package var recoveryHash: String?
    /// When the server's operator disabled the account (`suite-server accounts disable`); nil
    /// while it is in use.
    package var disabledAt: Date?

    /// Creates an account record.
    package init(id: String, name: String, passwordHash: String, salt: Data, rounds: Int, wrappedKey: Data, recoveryWrappedKey: Data, epoch: String, createdAt: Date,
                 recoveryHash: String? = nil, disabledAt: Date? = nil) {
        self.id = id
        self.name = name
        self.passwordHash = passwordHash
        self.salt = salt
        self.rounds = rounds
        self.wrappedKey = wrappedKey
        self.recoveryWrappedKey = recoveryWrappedKey
        self.epoch = epoch
        self.createdAt = createdAt
        self.recoveryHash = recoveryHash
        self.disabledAt = disabledAt
    }
}

/// What a new password (changed, or set with the recovery key) replaces in an account.
package struct PasswordMaterial: Sendable, Hashable {
    /// bcrypt of the base64 of the new authentication secret.
    package var passwordHash: String
    /// The new key-derivation salt.
    package var salt: Data
    /// The new key-derivation rounds.
    package var rounds: Int
    /// The data key wrapped by the new master key.
    package var wrappedKey: Data

    package init(passwordHash: String, salt: Data, rounds: Int, wrappedKey: Data) {
        self.passwordHash = passwordHash
        self.salt = salt
        self.rounds = rounds
        self.wrappedKey = wrappedKey
    }
}
