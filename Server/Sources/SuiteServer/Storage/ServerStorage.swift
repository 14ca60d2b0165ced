import Foundation
import ServiceLifecycle
import SuiteSyncProtocol

/// Where the server keeps accounts, devices and the operation logs.
///
/// Two implementations pass the same test suite: ``SQLiteServerStorage`` (one process, a file)
/// and ``PostgresServerStorage`` (any number of processes sharing a database). A storage is a
/// `Service`: ``run()`` keeps its background work going (PostgreSQL's connection pool and its
/// notification listener) until graceful shutdown.
///
/// The storage orders and relays operations; it never looks inside a payload.
package protocol ServerStorage: Service, CommunityStorage {
    /// Where this storage announces pushes that stored something, including, for a shared
    /// database, pushes served by other processes.
    var events: SyncEventHub { get }

    /// Returns once pushes made from now on reach ``events``.
    ///
    /// - Throws: ``ServerStorageError`` if the storage cannot get there.
    func waitUntilReady() async throws

    /// A random secret made when the storage was first created and kept in it (used to derive
    /// stable fake salts for accounts that do not exist).
    ///
    /// - Throws: ``ServerStorageError`` on a storage failure.
    func serverSecret() async throws -> Data

    /// Stores a new account with its first device.
    ///
    /// - Parameters:
    ///   - account: The account; its name must be new.
    ///   - device: The account's first device.
    /// - Throws: ``ServerStorageError/accountExists`` if the name is taken.
    func createAccount(_ account: StoredAccount, device: NewDevice) async throws

    /// The account with this exact name, if any.
    ///
    /// - Parameter name: The account name.
    /// - Returns: The account, or `nil`.
    func account(named name: String) async throws -> StoredAccount?

    /// The account with this id, if any.
    ///
    /// - Parameter id: The account's id.
    /// - Returns: The account, or `nil`.
    func account(id: String) async throws -> StoredAccount?

    /// Replaces an account's password material, if its password hash is still the one the
    /// caller checked (two changes at once: one wins, the other changes nothing), and adds a
    /// device in the same transaction when one is given (recovery signs a device in).
    ///
    /// - Parameters:
    ///   - accountID: The account.
    ///   - expectedHash: The password hash the caller verified against.
    ///   - material: The new hash, salt, rounds and wrapped key.
    ///   - device: A device to add, or nil.
    /// - Returns: Whether the account existed with that hash (and so was changed).
    func replacePassword(accountID: String, expectedHash: String, with material: PasswordMaterial, addingDevice device: NewDevice?) async throws -> Bool

    /// Deletes an account and everything of it: devices (and so their tokens), logs and
    /// their operations, what it published, its shared lists. The caller withdraws its
    /// community votes first, so that counts drop.
    ///
    /// - Parameter id: The account.
    /// - Returns: Whether it existed.
    func deleteAccount(id: String) async throws -> Bool

    /// Adds a device (with its token hash) to an existing account.
    ///
    /// - Parameter device: The new device.
    /// - Throws: ``ServerStorageError/unknownAccount`` if the account is gone.
    func addDevice(_ device: NewDevice) async throws

    /// The device whose token has this hash, noting that it was seen.
    ///
    /// - Parameters:
    ///   - tokenHash: The SHA-256 of the bearer token, as lower-case hex.
    ///   - seenAt: The time of the request (stored at most about once a minute).
    /// - Returns: The device and its account, or `nil` for an unknown or revoked token.
    func session(tokenHash: String, seenAt: Date) async throws -> DeviceSession?

    /// The account's devices, oldest first.
    ///
    /// - Parameter accountID: The account.
    /// - Returns: Its devices.
    func devices(accountID: String) async throws -> [StoredDevice]

    /// Deletes a device of an account, and so its token.
    ///
    /// - Parameters:
    ///   - id: The device.
    ///   - accountID: The account it must belong to.
    /// - Returns: Whether such a device existed.
    func removeDevice(id: String, accountID: String) async throws -> Bool

    /// Appends the operations whose ids the log does not hold yet, in the given order, at the
    /// positions after the log's head, and announces the log on ``events`` if it stored any.
    ///
    /// - Parameters:
    ///   - accountID: The account.
    ///   - log: The log's name (already validated).
    ///   - operations: The operations; ids already stored (or repeated in the batch) are skipped.
    /// - Returns: The account's epoch, the log's new head and how many operations were stored.
    func push(accountID: String, log: String, operations: [SyncEnvelope]) async throws -> PushOutcome

    /// The operations of a log after a position.
    ///
    /// - Parameters:
    ///   - accountID: The account.
    ///   - log: The log's name.
    ///   - after: Operations at positions greater than this one are returned.
    ///   - limit: The most operations to return (at least 1).
    /// - Returns: The page, with the epoch, the head, `next` and the anchor at `after`.
    func pull(accountID: String, log: String, after: Int64, limit: Int) async throws -> SyncPullReply
}

extension ServerStorage {
    /// Stores nothing in the background: ready at once.
    package func waitUntilReady() async throws {}
}
