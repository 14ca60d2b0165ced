import Crypto
import Foundation
import SuiteStorage
import SuiteSyncProtocol

/// Seals each operation for the server: the payload is ChaCha20-Poly1305 ciphertext of the
/// encoded change, bound by its additional data to the account, the operation id and the slot
/// (so the server cannot move a payload to another operation or slot); the slot is a keyed hash
/// (HMAC-SHA256) of entity, key and field, so the server can tell which operations supersede
/// which without learning what they are about. A version byte leads every payload.
package struct EncryptedSyncCodec: SyncCodec {
    private let sealingKey: SymmetricKey
    private let slotKey: SymmetricKey
    private let account: String
    private static let version: UInt8 = 1

    /// - Parameters:
    ///   - dataKey: the account's data key (``AccountKeys``).
    ///   - account: the account name, bound into every payload.
    package init(dataKey: SymmetricKey, account: String) {
        sealingKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: dataKey, info: Data("suite-sync payload v1".utf8), outputByteCount: 32)
        slotKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: dataKey, info: Data("suite-sync slot v1".utf8), outputByteCount: 32)
        self.account = account
    }

    /// The codec for a data key kept as bytes.
    package init(dataKeyBytes: Data, account: String) {
        self.init(dataKey: SymmetricKey(data: dataKeyBytes), account: account)
    }

    package func seal(_ change: SyncChange) throws -> SyncEnvelope {
        try seal(change, nonce: ChaChaPoly.Nonce())
    }

    /// ``seal(_:)`` with a chosen nonce: for test vectors only (a nonce must never repeat).
    package func seal(_ change: SyncChange, nonce: ChaChaPoly.Nonce) throws -> SyncEnvelope {
        let slot = slot(entity: change.entity, key: change.key, field: change.field)
        let plaintext = try SyncChange.encoder.encode(change)
        let box = try ChaChaPoly.seal(plaintext, using: sealingKey, nonce: nonce, authenticating: additionalData(id: change.id, slot: slot))
        return SyncEnvelope(id: change.id, slot: slot, payload: Data([Self.version]) + box.combined)
    }

    package func open(_ envelope: SyncEnvelope) throws -> SyncChange {
        guard let version = envelope.payload.first else { throw AccountKeys.Failure.wrongKey }
        guard version == Self.version else { throw AccountKeys.Failure.unknownFormat(version) }
        let plaintext: Data
        do {
            let box = try ChaChaPoly.SealedBox(combined: envelope.payload.dropFirst())
            plaintext = try ChaChaPoly.open(box, using: sealingKey, authenticating: additionalData(id: envelope.id, slot: envelope.slot))
        } catch {
            throw AccountKeys.Failure.wrongKey
        }
        let change = try JSONDecoder().decode(SyncChange.self, from: plaintext)
        guard change.id == envelope.id, slot(entity: change.entity, key: change.key, field: change.field) == envelope.slot else {
            throw SyncProtocolError.mismatchedOperation(envelope.id)
        }
        return change
    }

    /// The keyed hash naming a field of a row, in hexadecimal.
    package func slot(entity: String, key: String, field: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(entity)\u{0}\(key)\u{0}\(field)".utf8), using: slotKey)
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    private func additionalData(id: String, slot: String) -> Data {
        Data("suite-sync/1\u{0}\(account)\u{0}\(id)\u{0}\(slot)".utf8)
    }
}
