import Crypto
import Foundation
import GRDB
import SuiteStorage

/// The store folder's push subscriptions and VAPID key, in `push.sqlite` (a store like the
/// cores': WAL, `synchronous=FULL`, 0600, migrated under a lock, a damaged or foreign file refused
/// and left as it is). The web app adds and removes subscriptions; whichever process delivers a
/// quote or a reminder (`suite quotes tick`, `suite bundle remind`, the web app) reads them and
/// drops those the push service says are gone. The key is made once, by the first process that
/// needs it, and every process signs with that one.
public final class PushStore: Sendable {
    public static let fileName = "push.sqlite"
    /// A person's browsers, with room to spare; more is refused.
    public static let limit = 20
    static let applicationID: Int32 = 0x5350_5348  // "SPSH"

    /// A kept subscription.
    public struct Entry: Sendable, Equatable {
        /// Its number in this store.
        public let id: Int64
        public let subscription: PushSubscription
        /// What the browser said it is (its user agent, shortened), for the settings page.
        public let label: String
        public let added: Date
    }

    let store: Store<PushError>

    /// Opens (creating when missing) the push store of the store folder `folder`.
    public init(folder: URL) throws(PushError) {
        store = try Store.open(at: folder.appendingPathComponent(Self.fileName), migrator: Self.migrator,
                               configuration: StoreConfiguration(applicationID: Self.applicationID))
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerStoreMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE subscription (
                    id INTEGER PRIMARY KEY,
                    endpoint TEXT NOT NULL UNIQUE,
                    p256dh BLOB NOT NULL,
                    auth BLOB NOT NULL,
                    label TEXT NOT NULL,
                    added_ms INTEGER NOT NULL
                );
                CREATE TABLE vapid_key (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    pem TEXT NOT NULL
                );
                """)
        }
        return migrator
    }

    /// The sender's VAPID key: made and kept by the first caller, the same for every process after.
    public func key() throws(PushError) -> VAPIDKey {
        let kept = try store.read { db in try String.fetchOne(db, sql: "SELECT pem FROM vapid_key WHERE id = 1") }
        if let kept, let key = try? P256.Signing.PrivateKey(pemRepresentation: kept) { return VAPIDKey(key) }
        let made = VAPIDKey().privateKey.pemRepresentation
        let pem = try store.write { db -> String in
            try db.execute(sql: "INSERT OR IGNORE INTO vapid_key (id, pem) VALUES (1, ?)", arguments: [made])
            return try String.fetchOne(db, sql: "SELECT pem FROM vapid_key WHERE id = 1") ?? made
        }
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw .store("the VAPID key in \(Self.fileName) is damaged")
        }
        return VAPIDKey(key)
    }

    /// Keeps `subscription` (the same endpoint again replaces its keys and label).
    ///
    /// - Throws: ``PushError/full(_:)`` when ``limit`` subscriptions are kept already.
    @discardableResult
    public func add(_ subscription: PushSubscription, label: String, now: Date = Date()) throws(PushError) -> Int64 {
        let label = String(label.filter { !$0.isNewline && !($0.unicodeScalars.first?.properties.generalCategory == .control) }.prefix(120))
        return try store.write { db -> Int64 in
            let endpoint = subscription.endpoint.absoluteString
            let known = try Int64.fetchOne(db, sql: "SELECT id FROM subscription WHERE endpoint = ?", arguments: [endpoint])
            if known == nil, try Int.fetchOne(db, sql: "SELECT count(*) FROM subscription") ?? 0 >= Self.limit {
                throw PushError.full(Self.limit)
            }
            try db.execute(sql: """
                INSERT INTO subscription (endpoint, p256dh, auth, label, added_ms) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, label = excluded.label
                """, arguments: [endpoint, subscription.p256dh, subscription.auth, label, Int64(now.timeIntervalSince1970 * 1000)])
            return try Int64.fetchOne(db, sql: "SELECT id FROM subscription WHERE endpoint = ?", arguments: [endpoint]) ?? 0
        }
    }

    /// The kept subscriptions, oldest first.
    public func entries() throws(PushError) -> [Entry] {
        let rows = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT id, endpoint, p256dh, auth, label, added_ms FROM subscription ORDER BY id")
        }
        return rows.compactMap { row -> Entry? in
            let p256dh: Data = row["p256dh"], auth: Data = row["auth"]
            guard let subscription = try? PushSubscription(
                endpoint: row["endpoint"], p256dh: Base64URL.encode(p256dh), auth: Base64URL.encode(auth), allowLoopback: true)
            else { return nil }
            return Entry(id: row["id"], subscription: subscription, label: row["label"],
                         added: Date(timeIntervalSince1970: Double(row["added_ms"] as Int64) / 1000))
        }
    }

    /// Removes the subscription numbered `id`; false when there is none.
    @discardableResult
    public func remove(id: Int64) throws(PushError) -> Bool {
        try store.write { db in
            try db.execute(sql: "DELETE FROM subscription WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Removes the subscription of `endpoint` (its push service said it is gone).
    public func remove(endpoint: URL) throws(PushError) {
        try store.write { db in
            try db.execute(sql: "DELETE FROM subscription WHERE endpoint = ?", arguments: [endpoint.absoluteString])
        }
    }
}
