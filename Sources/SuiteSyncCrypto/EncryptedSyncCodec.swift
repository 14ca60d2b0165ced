import Crypto
import Foundation
import SuiteStorage
import SuiteSyncProtocol

/// Seals each operation for the server: the payload is ChaCha20-Poly1305 ciphertext of the
/// encoded change, bound by its additional data to the account, the log, the operation id and the
/// slot (so the server cannot move a payload to another log, operation or slot); the slot is a
/// keyed hash (HMAC-SHA256) of entity, key and field, so the server can tell which operations
/// supersede which without learning what they are about. A version byte leads every payload.
///
/// Formats: **2** (what ``seal(_:log:)`` writes) binds the log; **1**, written before, binds
/// account, id and slot only. Payloads of format 1 already on servers still open: nothing in
/// their seal stops a server from moving one to another log, so the ledger guards them instead —
/// an operation naming an entity its store does not have is set aside, never applied, and entity
/// names are unique across Suite's stores (a moved format-1 operation always names a foreign one).
/// Whatever does not open throws ``SyncOperationFailure`` (never a password or key error: the
/// session sets that operation aside and goes on).
package struct EncryptedSyncCodec: SyncCodec {
    private let sealingKey: SymmetricKey
    /// HMAC-SHA256 keyed with the slot key, nothing authenticated yet: each slot starts from a
    /// copy (keying it again for every operation cost as much as the rest of the hash).
    private let slotMAC: HMAC<SHA256>
    private let account: String
    /// The format ``seal(_:log:)`` writes.
    package static let version: UInt8 = 2

    /// - Parameters:
    ///   - dataKey: the account's data key (``AccountKeys``).
    ///   - account: the account name, bound into every payload.
    package init(dataKey: SymmetricKey, account: String) {
        sealingKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: dataKey, info: Data("suite-sync payload v1".utf8), outputByteCount: 32)
        slotMAC = HMAC(key: HKDF<SHA256>.deriveKey(inputKeyMaterial: dataKey, info: Data("suite-sync slot v1".utf8), outputByteCount: 32))
        self.account = account
    }

    /// The codec for a data key kept as bytes.
    package init(dataKeyBytes: Data, account: String) {
        self.init(dataKey: SymmetricKey(data: dataKeyBytes), account: account)
    }

    package func seal(_ change: SyncChange, log: String) throws -> SyncEnvelope {
        try seal(change, log: log, nonce: ChaChaPoly.Nonce())
    }

    /// ``seal(_:log:)`` with a chosen nonce: for test vectors only (a nonce must never repeat).
    package func seal(_ change: SyncChange, log: String, nonce: ChaChaPoly.Nonce) throws -> SyncEnvelope {
        let slot = slot(entity: change.entity, key: change.key, field: change.field)
        let plaintext = try SyncChange.encoder.encode(change)
        let box = try ChaChaPoly.seal(plaintext, using: sealingKey, nonce: nonce,
                                      authenticating: additionalData(version: Self.version, log: log, id: change.id, slot: slot))
        return SyncEnvelope(id: change.id, slot: slot, payload: Data([Self.version]) + box.combined)
    }

    package func open(_ envelope: SyncEnvelope, log: String) throws -> SyncChange {
        guard let version = envelope.payload.first else { throw SyncOperationFailure.doesNotOpen }
        guard version == 1 || version == 2 else { throw SyncOperationFailure.unknownFormat(version) }
        let plaintext: Data
        do {
            let box = try ChaChaPoly.SealedBox(combined: envelope.payload.dropFirst())
            plaintext = try ChaChaPoly.open(box, using: sealingKey,
                                            authenticating: additionalData(version: version, log: log, id: envelope.id, slot: envelope.slot))
        } catch {
            throw SyncOperationFailure.doesNotOpen
        }
        let change: SyncChange
        do {
            change = try SyncChange.decode(plaintext)
        } catch {
            throw SyncOperationFailure.unreadable
        }
        guard change.id == envelope.id, slot(entity: change.entity, key: change.key, field: change.field) == envelope.slot else {
            throw SyncOperationFailure.mismatched
        }
        return change
    }

    /// The keyed hash naming a field of a row, in hexadecimal.
    package func slot(entity: String, key: String, field: String) -> String {
        var mac = slotMAC
        mac.update(data: Data("\(entity)\u{0}\(key)\u{0}\(field)".utf8))
        return mac.finalize().withUnsafeBytes(Self.hex)
    }

    /// Bytes as lower-case hexadecimal. Every operation pulled is checked against its slot, so
    /// this runs once per operation: formatting byte by byte (`String(format:)`) cost more than
    /// opening the operation.
    private static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0x0f)]
            }
            return bytes.count * 2
        }
    }

    /// What a payload of format `version` is bound to: format 1 without the log.
    private func additionalData(version: UInt8, log: String, id: String, slot: String) -> Data {
        version == 1
            ? Data("suite-sync/1\u{0}\(account)\u{0}\(id)\u{0}\(slot)".utf8)
            : Data("suite-sync/2\u{0}\(account)\u{0}\(log)\u{0}\(id)\u{0}\(slot)".utf8)
    }
}
