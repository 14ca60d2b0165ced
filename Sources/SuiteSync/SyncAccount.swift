import Foundation
import SuiteSyncProtocol
#if canImport(Glibc)
import Glibc
#endif

/// This device's membership of a sync account, kept in the store folder as `sync.json` (mode
/// 0600): the server, the account, the device's id and bearer token, and the account's data key.
/// The token and the key are never printed and never part of an error.
package struct SyncAccount: Codable, Equatable, Sendable {
    package var server: URL
    package var account: String
    package var deviceID: String
    package var token: String
    /// The data key that seals every operation (base64 in the file).
    package var dataKey: Data
    package var lastSuccess: Date?
    package var lastError: String?
    /// What the account publishes, as the server last said (`suite sync publish`).
    package var community: CommunitySettings?
    /// Whose favourites this device publishes (the quotes store's user).
    package var publishUser: String?
    /// A digest of the favourites and the ratings last published from here, and when: a sync
    /// sends them again only when they changed (or a day later).
    package var publishedFavourites: String?
    package var publishedRatings: String?
    package var publishedAt: Date?
    /// How far this device's clock was ahead of the server's (milliseconds; negative when
    /// behind) at the last sync that measured it, and when (`suite sync status`).
    package var clockOffset: Int64?
    package var clockMeasuredAt: Date?
    /// What the account stored on the server and its quota (bytes), at the last sync.
    package var serverUsage: Int64?
    package var serverQuota: Int64?

    package init(server: URL, account: String, deviceID: String, token: String, dataKey: Data) {
        self.server = server
        self.account = account
        self.deviceID = deviceID
        self.token = token
        self.dataKey = dataKey
    }

    package static let fileName = "sync.json"

    package static func url(in folder: URL) -> URL { folder.appendingPathComponent(fileName) }

    /// The account this store folder syncs with, or nil when it does not.
    package static func load(from folder: URL) throws -> SyncAccount? {
        let url = url(in: folder)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(SyncAccount.self, from: Data(contentsOf: url))
        } catch {
            throw SyncError(.settings, "cannot read the sync settings at \(url.path); log in again (suite sync login) after moving it away")
        }
    }

    /// Writes the file atomically with mode 0600 (a new file renamed over the old one). The new
    /// file's name is this write's own, so that two `suite sync` at once (a `--watch` beside a
    /// manual one) never write or rename each other's: the last rename wins, whole.
    package func save(in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = Self.url(in: folder)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        let temporary = url.path + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SyncError(.settings, "cannot write the sync settings at \(url.path): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw SyncError(.settings, "cannot write the sync settings at \(url.path)")
        }
    }

    package static func remove(from folder: URL) {
        unlink(url(in: folder).path)
    }
}

extension SyncAccount {
    /// Changes some fields of the settings as they are on disk now, not as a caller read them
    /// earlier (another process may have written since: a publish, a watch's pass). Does
    /// nothing when the file is gone or belongs to another session (logged out, or out and in
    /// again), so a sync that ends after a logout never brings the token back.
    ///
    /// - Returns: Whether the settings were written.
    @discardableResult
    package static func update(in folder: URL, session: SyncAccount, _ change: (inout SyncAccount) -> Void) throws -> Bool {
        guard var current = try load(from: folder), current.token == session.token, current.deviceID == session.deviceID else { return false }
        change(&current)
        try current.save(in: folder)
        return true
    }

    /// Keeps a measured clock offset, for the status.
    package mutating func noteClock(_ offset: Int64) {
        clockOffset = offset
        clockMeasuredAt = Date()
    }
}
