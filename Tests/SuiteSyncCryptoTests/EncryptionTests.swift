import Crypto
import _CryptoExtras
import Foundation
import GRDB
import SuiteStorage
import SuiteSyncProtocol
import SuiteTestSupport
import Testing
@testable import SuiteSyncCrypto

@Suite struct EncryptionTests {
    let change = SyncChange(id: "4f1c2a9e-0000-4000-8000-000000000001", entity: "todo", key: "7d1e0b0c-aaaa-4bbb-8ccc-0123456789ab",
                            field: "text", value: .text("Call the dentist about the crown"), time: HybridTime(millis: 1_800_000_000_000), device: "a1b2c3d4")

    /// PBKDF2-HMAC-SHA256 against the published vector (RFC 7914, section 11).
    @Test func theKeyDerivationMatchesThePublishedVector() throws {
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Data("passwd".utf8), salt: Data("salt".utf8), using: .sha256,
                                                    outputByteCount: 64, unsafeUncheckedRounds: 1)
        #expect(key.withUnsafeBytes { Data($0) }.hex == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
        // Our master key is that derivation with our parameters.
        let master = try AccountKeys.masterKey(password: "passwd", salt: Data("salt".utf8), rounds: 1)
        #expect(master.withUnsafeBytes { Data($0) }.hex == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
    }

    /// A sealed operation with a fixed key and nonce, checked in: a change of format or of the
    /// additional data shows here (and old payloads would no longer open).
    @Test func aSealedOperationMatchesItsCheckedInVector() throws {
        let codec = EncryptedSyncCodec(dataKey: SymmetricKey(data: Data(repeating: 7, count: 32)), account: "ada")
        let nonce = try ChaChaPoly.Nonce(data: Data(repeating: 1, count: 12))
        let envelope = try codec.seal(change, nonce: nonce)
        #expect(envelope.slot == EncryptionTests.vectorSlot)
        #expect(envelope.payload.prefix(13).hex == "01010101010101010101010101")
        #expect(SHA256.hash(data: envelope.payload).hex == EncryptionTests.vectorPayloadSHA256)
        #expect(try codec.open(envelope) == change)
    }
    // Computed independently with Python's `cryptography` (HKDF-SHA256 without salt, HMAC-SHA256,
    // ChaCha20Poly1305) from the same key, nonce, sorted-key JSON and additional data.
    static let vectorSlot = "11ce03269bb0ff67cd2538878118b4fd0398d49fcf129dd2ae40956acb3f54e6"
    static let vectorPayloadSHA256 = "f72bcce63605bf02cb3d01f654090e273cd6b6f028221f0ca02704753ba8ecfb"

    @Test func theServerSeesNeitherTheTextNorWhatItIsAbout() throws {
        let codec = EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "ada")
        let envelope = try codec.seal(change)
        let stored = String(decoding: try JSONEncoder().encode(envelope), as: UTF8.self)
        for secret in ["dentist", "crown", "todo", change.key, "text"] {
            #expect(!stored.contains(secret), "\(secret) visible")
        }
        // Two seals of one change differ (random nonces); the slot is stable.
        let again = try codec.seal(change)
        #expect(again.payload != envelope.payload && again.slot == envelope.slot)
    }

    @Test func aTamperedOrMovedPayloadDoesNotOpen() throws {
        let codec = EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "ada")
        let envelope = try codec.seal(change)
        var flipped = envelope
        flipped.payload[flipped.payload.count - 20] ^= 0x01
        #expect(throws: AccountKeys.Failure.wrongKey) { try codec.open(flipped) }
        var moved = envelope
        moved.id = "4f1c2a9e-0000-4000-8000-000000000002"
        #expect(throws: AccountKeys.Failure.wrongKey) { try codec.open(moved) }
        var otherSlot = envelope
        otherSlot.slot = codec.slot(entity: "todo", key: change.key, field: "notes")
        #expect(throws: AccountKeys.Failure.wrongKey) { try codec.open(otherSlot) }
        let otherAccount = EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "bob")
        #expect(throws: AccountKeys.Failure.wrongKey) { try otherAccount.open(envelope) }
        var future = envelope
        future.payload[0] = 9
        #expect(throws: AccountKeys.Failure.unknownFormat(9)) { try codec.open(future) }
    }

    /// A new device gets the data key from the password; the recovery key opens it too; a
    /// wrong password fails clearly.
    @Test func theDataKeyOpensWithThePasswordOrTheRecoveryKeyOnly() throws {
        let salt = Data((0..<16).map { UInt8($0) })
        let dataKey = AccountKeys.newKey()
        let master = try AccountKeys.masterKey(password: "correct horse", salt: salt, rounds: 1_000)
        let wrapped = try AccountKeys.wrap(dataKey, with: master)
        let recovery = AccountKeys.newKey()
        let wrappedForRecovery = try AccountKeys.wrap(dataKey, with: recovery)

        let again = try AccountKeys.masterKey(password: "correct horse", salt: salt, rounds: 1_000)
        #expect(try AccountKeys.unwrap(wrapped, with: again) == dataKey)
        let wrong = try AccountKeys.masterKey(password: "correct horse!", salt: salt, rounds: 1_000)
        #expect(throws: AccountKeys.Failure.wrongKey) { try AccountKeys.unwrap(wrapped, with: wrong) }

        let text = AccountKeys.recoveryText(recovery)
        #expect(text.count == 71 && text.split(separator: "-").count == 8)
        #expect(try AccountKeys.unwrap(wrappedForRecovery, with: AccountKeys.recoveryKey(text.uppercased().replacingOccurrences(of: "-", with: " "))) == dataKey)
        #expect(throws: AccountKeys.Failure.malformedRecoveryKey) { try AccountKeys.recoveryKey("not-a-key") }
        // What signing in sends is neither the master key nor the data key.
        let secret = AccountKeys.authenticationSecret(master: master)
        #expect(secret != master.withUnsafeBytes { Data($0) } && secret != dataKey.withUnsafeBytes { Data($0) })
        #expect(secret == AccountKeys.authenticationSecret(master: again))
    }

    /// The encrypting codec carries a whole sync: two devices converge through a server that
    /// only ever holds ciphertext, and a planted private text never reaches it.
    @Test func devicesSyncThroughAServerThatHoldsOnlyCiphertext() async throws {
        let server = InMemorySyncServer()
        let codec = EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "ada")
        let a = try NoteStore.make(), b = try NoteStore.make()
        try a.write { db in try db.execute(sql: "INSERT INTO note (uuid, text) VALUES ('n1', 'PLANTED-SECRET-4711')") }
        try b.write { db in try db.execute(sql: "INSERT INTO note (uuid, text) VALUES ('n2', 'another private line')") }
        for store in [a, b, a] { _ = try await SyncSession(store: store, log: "notes", transport: server, codec: codec).run() }
        let texts = { (store: Store<NoteStore.Failure>) in try store.read { db in try String.fetchAll(db, sql: "SELECT text FROM note ORDER BY uuid") } }
        #expect(try texts(a) == ["PLANTED-SECRET-4711", "another private line"])
        #expect(try texts(b) == texts(a))
        let stored = String(decoding: try JSONEncoder().encode(await server.state.logs["notes"] ?? []), as: UTF8.self)
        #expect(!stored.contains("PLANTED") && !stored.contains("private") && !stored.contains("note"))
        #expect(await server.operationIDs(log: "notes").count == 2 * 2)
        // A device with another data key cannot read them.
        let stranger = try NoteStore.make()
        await #expect(throws: AccountKeys.Failure.wrongKey) {
            try await SyncSession(store: stranger, log: "notes", transport: server,
                                  codec: EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "ada")).run()
        }
        #expect(try texts(stranger).isEmpty)
    }
}

/// A one-table store that syncs, for the codec's end-to-end test.
enum NoteStore {
    struct Failure: StoreFailureRepresentable, Sendable {
        var failure: StoreFailure
        init(storeFailure: StoreFailure) { failure = storeFailure }
    }

    static let schema = SyncSchema(entities: [SyncEntity(name: "note", table: "note", keyColumn: "uuid", fields: [SyncField("text")])])

    static func make() throws -> Store<Failure> {
        var migrator = DatabaseMigrator()
        migrator.registerStoreMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, text TEXT NOT NULL)")
            try SyncLedger.install(db, schema: schema)
        }
        let store = try Store<Failure>.inMemory(migrator: migrator, configuration: StoreConfiguration(applicationID: 0x4e4f_5445, sync: schema))
        try store.syncEnable()
        return store
    }
}

extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

extension Sequence where Element == UInt8 {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
