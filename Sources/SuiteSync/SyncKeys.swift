import Crypto
import Foundation
import SuiteSyncCrypto
import SuiteSyncProtocol

/// Passwords and the key material made from them, on the device.
package enum SyncKeys {
    /// The shortest password an account takes.
    package static let minimumPasswordLength = 8

    /// A password checked as signup and every new password is.
    ///
    /// - Throws: ``SyncError/Code/badInput`` when it is shorter than 8 characters.
    package static func check(password: String, what: String = "the password") throws {
        guard password.count >= minimumPasswordLength else {
            throw SyncError(.badInput, "\(what) is shorter than \(minimumPasswordLength) characters")
        }
    }

    /// What signs in with this password now (the account's salt and rounds from the server).
    package static func authenticationSecret(password: String, account: String, client: SyncServerClient) async throws -> (secret: Data, master: SymmetricKey) {
        let prelogin = try await client.prelogin(account: account)
        // A server that asks for fewer rounds than signup uses would make the password cheap to guess.
        guard (AccountKeys.rounds...10_000_000).contains(prelogin.rounds) else {
            throw SyncError(.refused, "the server asked for a weaker key derivation than suite uses (\(prelogin.rounds) rounds); nothing sent")
        }
        let master = try AccountKeys.masterKey(password: password, salt: prelogin.salt, rounds: prelogin.rounds)
        return (AccountKeys.authenticationSecret(master: master), master)
    }
}

/// A new password's material: a fresh salt, the master key's authentication secret, and the
/// data key wrapped by it.
package struct NewPassword {
    package var salt: Data
    package var authenticationSecret: Data
    package var wrappedKey: Data

    package init(_ password: String, dataKey: SymmetricKey) throws {
        salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let master = try AccountKeys.masterKey(password: password, salt: salt)
        authenticationSecret = AccountKeys.authenticationSecret(master: master)
        wrappedKey = try AccountKeys.wrap(dataKey, with: master)
    }
}
