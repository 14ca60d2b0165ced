import Foundation
import GRDB
import SuiteStorage
import SuiteSyncProtocol

/// How many people favourite a quote across a sync server's accounts (those who publish
/// their favourites), as this store last heard.
public struct CommunityFavoriteCount: Codable, Sendable, Hashable {
    /// The quote's community key (``QuoteStore/communityKey(of:)``).
    public var key: String
    /// Its words.
    public var text: String
    /// Its source, when it has one.
    public var source: String?
    /// How many accounts favourite it.
    public var count: Int

    public init(key: String, text: String, source: String?, count: Int) {
        self.key = key
        self.text = text
        self.source = source
        self.count = count
    }
}

/// A favourite that may be published: a collected quote's key, words and source.
public struct PublishableFavorite: Sendable, Hashable {
    public var key: String
    public var text: String
    public var source: String?
}

/// The community counts this store keeps (not synced: they come from the server's feed and are
/// the same on every device that reads it).
extension QuoteStore {
    /// The key a quote has in the community: the same for everyone who collected it. Nil for the
    /// user's own quotes, which are never published.
    public static func communityKey(of quote: Quote) -> String? {
        quote.isPersonal ? nil : CommunityKey.quote(text: quote.text, source: quote.source?.name)
    }

    /// A user's favourites that may be published: collected quotes only, never personal ones,
    /// never notes.
    public func publishableFavorites(user: String) throws(QuoteError) -> [PublishableFavorite] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT q.text, s.name FROM favorite f JOIN quote q ON q.id = f.quote_id LEFT JOIN source s ON s.id = q.source_id
                WHERE f.user = ? AND q.personal = 0 ORDER BY q.id
                """, arguments: [user]).map { row in
                let text: String = row[0]
                let source: String? = row[1]
                return PublishableFavorite(key: CommunityKey.quote(text: text, source: source), text: text, source: source)
            }
        }
    }

    /// Where this store is in the server's feed of counts.
    public func communityCursor() throws(QuoteError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT seq FROM community_cursor WHERE id = 1") ?? 0 }
    }

    /// Takes in a page of the server's feed: counts (a zero count removes the entry) and the
    /// position after them; `reset` drops everything kept first.
    public func applyCommunityCounts(_ counts: [CommunityFavoriteCount], cursor: Int64, reset: Bool) throws(QuoteError) {
        try write { db in
            if reset { try db.execute(sql: "DELETE FROM community_count") }
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO community_count (key, text, source, count) VALUES (?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET text = excluded.text, source = excluded.source, count = excluded.count
                """)
            let delete = try db.cachedStatement(sql: "DELETE FROM community_count WHERE key = ?")
            for count in counts {
                if count.count > 0 {
                    try upsert.execute(arguments: [count.key, count.text, count.source, count.count])
                } else {
                    try delete.execute(arguments: [count.key])
                }
            }
            try db.execute(sql: "INSERT INTO community_cursor (id, seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq", arguments: [cursor])
        }
    }

    /// The most favourited quotes in the community, as last synced, most first.
    public func communityTop(limit: Int = 10) throws(QuoteError) -> [CommunityFavoriteCount] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT key, text, source, count FROM community_count ORDER BY count DESC, key LIMIT ?", arguments: [limit]).map { row in
                CommunityFavoriteCount(key: row["key"], text: row["text"], source: row["source"], count: row["count"])
            }
        }
    }

    /// The store's quote with this community key, if it has one (the first by id).
    public func quote(communityKey key: String) throws(QuoteError) -> Quote? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT text, source FROM community_count WHERE key = ?", arguments: [key]) else { return nil }
            let text: String = row["text"]
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM quote WHERE text = ? AND personal = 0 ORDER BY id", arguments: [text])
            return try Self.loadQuotes(ids, db: db).first { Self.communityKey(of: $0) == key }
        }
    }

    static func migrateToCommunity(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE community_count (
                key TEXT PRIMARY KEY NOT NULL,
                text TEXT NOT NULL,
                source TEXT,
                count INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX community_count_top ON community_count(count DESC, key);
            CREATE TABLE community_cursor (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
            """)
    }

    /// The community counts of some quotes, by quote id (collected quotes the community knows).
    static func communityCounts(of quotes: [(id: Int64, text: String, source: String?, personal: Bool)], on connection: DirectConnection) throws -> [Int64: Int] {
        guard try connection.prepare("SELECT 1 FROM community_count LIMIT 1").step() else { return [:] }
        let statement = try connection.prepare("SELECT count FROM community_count WHERE key = ?")
        var result: [Int64: Int] = [:]
        for quote in quotes where !quote.personal {
            statement.reset().bind(CommunityKey.quote(text: quote.text, source: quote.source), at: 1)
            if try statement.step(), !statement.columns.isNull(0) {
                result[quote.id] = Int(statement.columns.int64(0))
            }
        }
        return result
    }
}
