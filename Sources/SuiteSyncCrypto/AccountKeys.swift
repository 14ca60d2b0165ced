import Crypto
import _CryptoExtras
import Foundation

/// The keys of a sync account, all made on the device: the server sees only an
/// authentication secret (which it hashes again), the data key wrapped, and ciphertext.
///
/// - The **master key** comes from the account password by PBKDF2-HMAC-SHA256 (600,000 rounds,
///   a random salt per account).
/// - The **authentication secret** is HKDF of the master key with its own label: what signing
///   in sends. Knowing it does not give the master key.
/// - The **data key** is random; it seals every operation. It is stored on the server wrapped
///   (ChaCha20-Poly1305) by the master key, and a second time by the recovery key, shown once.
/// - The **recovery secret** is HKDF of the recovery key: what proves the recovery key when a
///   forgotten password is replaced.
package enum AccountKeys {
    /// PBKDF2 rounds for the master key (OWASP's figure for PBKDF2-HMAC-SHA256).
    package static let rounds = 600_000

    /// What can go wrong with keys.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// A wrapped key that this password (or recovery key) does not open.
        case wrongKey
        /// Text that is not a recovery key.
        case malformedRecoveryKey
        /// A wrapped key or sealed operation in a format this version does not know.
        case unknownFormat(UInt8)

        package var description: String {
            switch self {
            case .wrongKey: return "the password or recovery key does not open this account's data key"
            case .malformedRecoveryKey: return "not a recovery key (64 hexadecimal digits in groups)"
            case .unknownFormat(let version): return "sealed data of an unknown format (version \(version))"
            }
        }
    }

    /// The master key from the password and the account's salt.
    package static func masterKey(password: String, salt: Data, rounds: Int = rounds) throws -> SymmetricKey {
        try KDF.Insecure.PBKDF2.deriveKey(from: Data(password.utf8), salt: salt, using: .sha256, outputByteCount: 32,
                                          unsafeUncheckedRounds: rounds)
    }

    /// The secret a device sends to sign in (the server stores only its bcrypt hash).
    package static func authenticationSecret(master: SymmetricKey) -> Data {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Data("suite-sync authentication v1".utf8), outputByteCount: 32)
            .withUnsafeBytes { Data($0) }
    }

    /// What proves the recovery key to the server (which stores only its bcrypt hash): HKDF of
    /// the recovery key with its own label. Knowing it does not give the recovery key, nor
    /// open the data key.
    package static func recoverySecret(recovery: SymmetricKey) -> Data {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: recovery, info: Data("suite-sync recovery v1".utf8), outputByteCount: 32)
            .withUnsafeBytes { Data($0) }
    }

    /// A new random key (the data key, or a recovery key).
    package static func newKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    private static let wrapVersion: UInt8 = 1
    private static let wrapLabel = Data("suite-sync data key v1".utf8)

    /// `key` sealed by `wrappingKey`: a version byte, then nonce, ciphertext and tag.
    package static func wrap(_ key: SymmetricKey, with wrappingKey: SymmetricKey) throws -> Data {
        let sealed = try ChaChaPoly.seal(key.withUnsafeBytes { Data($0) }, using: wrappingKey, authenticating: wrapLabel)
        return Data([wrapVersion]) + sealed.combined
    }

    /// The key sealed by ``wrap(_:with:)``; ``Failure/wrongKey`` when `wrappingKey` is not the one.
    package static func unwrap(_ wrapped: Data, with wrappingKey: SymmetricKey) throws -> SymmetricKey {
        guard let version = wrapped.first else { throw Failure.wrongKey }
        guard version == wrapVersion else { throw Failure.unknownFormat(version) }
        do {
            let box = try ChaChaPoly.SealedBox(combined: wrapped.dropFirst())
            return SymmetricKey(data: try ChaChaPoly.open(box, using: wrappingKey, authenticating: wrapLabel))
        } catch {
            throw Failure.wrongKey
        }
    }

    /// A recovery key as people copy it: 64 hexadecimal digits in groups of eight.
    package static func recoveryText(_ key: SymmetricKey) -> String {
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        return stride(from: 0, to: hex.count, by: 8).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return String(hex[start..<hex.index(start, offsetBy: 8)])
        }.joined(separator: "-")
    }

    /// The key from its text (groups, spaces and case do not matter).
    package static func recoveryKey(_ text: String) throws -> SymmetricKey {
        let digits = text.lowercased().filter { !$0.isWhitespace && $0 != "-" }
        guard digits.count == 64, digits.allSatisfy(\.isHexDigit) else { throw Failure.malformedRecoveryKey }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { throw Failure.malformedRecoveryKey }
            bytes.append(byte)
            index = next
        }
        return SymmetricKey(data: bytes)
    }
}
