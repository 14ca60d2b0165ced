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
        let envelope = try codec.seal(change, log: "bundle", nonce: nonce)
        #expect(envelope.slot == EncryptionTests.vectorSlot)
        #expect(envelope.payload.prefix(13).hex == "02010101010101010101010101")
        #expect(SHA256.hash(data: envelope.payload).hex == EncryptionTests.vectorPayloadSHA256)
        #expect(try codec.open(envelope, log: "bundle") == change)
    }
    // Computed independently with Python's `cryptography` (HKDF-SHA256 without salt, HMAC-SHA256,
    // ChaCha20Poly1305) from the same key, nonce, sorted-key JSON and additional data
    // ("suite-sync/2", account, log, operation id, slot, separated by NUL).
    static let vectorSlot = "11ce03269bb0ff67cd2538878118b4fd0398d49fcf129dd2ae40956acb3f54e6"
    static let vectorPayloadSHA256 = "b2fe501cb215033423755a2a6f479e1db857a43f267b871c32d006e0aeec443c"

    /// A payload of format 1 (sealed before payloads named their log), as servers hold it: the
    /// same change, key and nonce, additional data without the log. Made with Python's
    /// `cryptography`; its SHA-256 is the vector format 1 was checked against.
    static let formatOnePayload = """
        AQEBAQEBAQEBAQEBASfFhSb/O8OZ522el3j1FFjPmT3n4Uip1isyni53egmAGAWyDQt5NEoWNiU9XQ1kdfqIkB2NhN6o1z+EMm9E/h051Ef0CTn25krgUasmuFUbRExTzJf+\
        TLg4k7IjPYnIxPqJJkuO6ttAPEV6T0gQOxbf0DDTJBQXbXhhbYAUaGJD6L5uaLwp/oSR7qUxANXfeiEopAtFqUamNb7FJm46xzmi/WIWf0KOtlQopDcAWUWYDp0MIX8P\
        rQ2bblTttFaUWt0F9jjHTdWwZjYGyfe24nNPFNW5eLoxGGcHb7XGQuzp0c0=
        """

    /// Format 1 still opens, from whichever log (its seal does not say; the ledger guards it by
    /// entity); format 2 opens only from the log it was sealed for.
    @Test func aFormatOnePayloadStillOpensAndAFormatTwoOneOnlyInItsLog() throws {
        let codec = EncryptedSyncCodec(dataKey: SymmetricKey(data: Data(repeating: 7, count: 32)), account: "ada")
        let old = SyncEnvelope(id: change.id, slot: EncryptionTests.vectorSlot, payload: try #require(Data(base64Encoded: EncryptionTests.formatOnePayload)))
        #expect(SHA256.hash(data: old.payload).hex == "f72bcce63605bf02cb3d01f654090e273cd6b6f028221f0ca02704753ba8ecfb")
        #expect(try codec.open(old, log: "bundle") == change)
        #expect(try codec.open(old, log: "places") == change)
        let new = try codec.seal(change, log: "bundle")
        #expect(new.payload.first == 2)
        #expect(throws: SyncOperationFailure.doesNotOpen) { try codec.open(new, log: "places") }
    }

    @Test func theServerSeesNeitherTheTextNorWhatItIsAbout() throws {
        let codec = EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "ada")
        let envelope = try codec.seal(change, log: "bundle")
        let stored = String(decoding: try JSONEncoder().encode(envelope), as: UTF8.self)
        for secret in ["dentist", "crown", "todo", change.key, "text"] {
            #expect(!stored.contains(secret), "\(secret) visible")
        }
        // Two seals of one change differ (random nonces); the slot is stable.
        let again = try codec.seal(change, log: "bundle")
        #expect(again.payload != envelope.payload && again.slot == envelope.slot)
    }

    /// Whatever does not open says what happened to the operation, never that a password or key
    /// is wrong: the session sets that one aside.
    @Test func aTamperedOrMovedPayloadDoesNotOpen() throws {
        let codec = EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "ada")
        let envelope = try codec.seal(change, log: "bundle")
        var flipped = envelope
        flipped.payload[flipped.payload.count - 20] ^= 0x01
        #expect(throws: SyncOperationFailure.doesNotOpen) { try codec.open(flipped, log: "bundle") }
        var moved = envelope
        moved.id = "4f1c2a9e-0000-4000-8000-000000000002"
        #expect(throws: SyncOperationFailure.doesNotOpen) { try codec.open(moved, log: "bundle") }
        var otherSlot = envelope
        otherSlot.slot = codec.slot(entity: "todo", key: change.key, field: "notes")
        #expect(throws: SyncOperationFailure.doesNotOpen) { try codec.open(otherSlot, log: "bundle") }
        #expect(throws: SyncOperationFailure.doesNotOpen) { try codec.open(envelope, log: "quotes") }
        let otherAccount = EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "bob")
        #expect(throws: SyncOperationFailure.doesNotOpen) { try otherAccount.open(envelope, log: "bundle") }
        var future = envelope
        future.payload[0] = 9
        #expect(throws: SyncOperationFailure.unknownFormat(9)) { try codec.open(future, log: "bundle") }
        #expect(throws: SyncOperationFailure.doesNotOpen) { try codec.open(SyncEnvelope(id: change.id, slot: envelope.slot, payload: Data()), log: "bundle") }
        for failure in [SyncOperationFailure.doesNotOpen, .unknownFormat(9), .unreadable, .mismatched] {
            #expect(!failure.description.contains("password"), "\(failure)")
        }
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
        // What proves the recovery key is stable, is not the key, and opens nothing.
        let proof = AccountKeys.recoverySecret(recovery: recovery)
        #expect(try proof.count == 32 && proof == AccountKeys.recoverySecret(recovery: AccountKeys.recoveryKey(text)))
        #expect(proof != recovery.withUnsafeBytes { Data($0) } && proof != AccountKeys.recoverySecret(recovery: AccountKeys.newKey()))
        #expect(throws: AccountKeys.Failure.wrongKey) { try AccountKeys.unwrap(wrappedForRecovery, with: SymmetricKey(data: proof)) }
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
        // A device with another data key cannot read them: it sets them aside and applies nothing.
        let stranger = try NoteStore.make()
        let outcome = try await SyncSession(store: stranger, log: "notes", transport: server,
                                            codec: EncryptedSyncCodec(dataKey: AccountKeys.newKey(), account: "ada")).run()
        #expect(outcome.setAside == 4 && outcome.applied == 0)
        #expect(try texts(stranger).isEmpty)
        #expect(try stranger.syncSetAside().allSatisfy { $0.reason == SyncOperationFailure.doesNotOpen.description })
        // Kept, they are tried again: with the right key they open and apply.
        let retried = try await SyncSession(store: stranger, log: "notes", transport: server, codec: codec).run()
        #expect(retried.recovered == 4 && retried.setAside == 0)
        #expect(try texts(stranger) == texts(a))
        #expect(try stranger.syncSetAsideCount() == 0)
    }
}

extension EncryptionTests {
    /// A server moves operations to another log: one sealed now (format 2) does not open there,
    /// one sealed before payloads named their log (format 1) opens but names an entity the store
    /// does not have. Both are set aside, never applied; the log's own operations apply.
    @Test func anOperationMovedToAnotherLogIsSetAsideNotApplied() async throws {
        let server = InMemorySyncServer()
        let codec = EncryptedSyncCodec(dataKey: SymmetricKey(data: Data(repeating: 7, count: 32)), account: "ada")
        let a = try NoteStore.make()
        try a.write { db in try db.execute(sql: "INSERT INTO note (uuid, text) VALUES ('n1', 'Mine')") }
        _ = try await SyncSession(store: a, log: "notes", transport: server, codec: codec).run()
        let elsewhere = try codec.seal(SyncChange(id: "4f1c2a9e-0000-4000-8000-000000000009", entity: "note", key: "n9", field: "text",
                                                  value: .text("Sealed for another log"), time: HybridTime(millis: 1_800_000_000_000), device: "b"),
                                       log: "quotes")
        _ = try await server.push(log: "quotes", operations: [elsewhere])
        await server.copy(id: elsewhere.id, from: "quotes", to: "notes")
        let formatOne = SyncEnvelope(id: change.id, slot: EncryptionTests.vectorSlot, payload: try #require(Data(base64Encoded: EncryptionTests.formatOnePayload)))
        await server.append(log: "notes", formatOne)

        let b = try NoteStore.make()
        let outcome = try await SyncSession(store: b, log: "notes", transport: server, codec: codec).run()
        #expect(outcome.setAside == 2)
        let kept = try b.syncSetAside()
        #expect(kept.first { $0.id == elsewhere.id }?.reason == SyncOperationFailure.doesNotOpen.description)
        #expect(kept.first { $0.id == change.id }?.reason == SyncOperationFailure.unknownEntity("todo").description)
        #expect(kept.allSatisfy { $0.log == "notes" } && kept.count == 2)
        #expect(try b.read { db in try String.fetchAll(db, sql: "SELECT text FROM note ORDER BY uuid") } == ["Mine"])
        #expect(try b.syncWinners().allSatisfy { $0.entity == "note" && $0.key == "n1" })
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
            try SyncLedger.addSetAsideLog(db)
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
