import Foundation
import GRDB
import SuiteStorage
import SuiteSyncProtocol

/// What the people who publish their ratings on a sync server say of a place, as this store
/// last heard: how many, the median of each scale, the median wifi speed, the most named menu and
/// the notes some chose to publish.
public struct CommunityRatingSummary: Codable, Sendable, Hashable {
    /// How many accounts rate it.
    public var count: Int
    /// The median of each scale rated, by scale name ("wifi", "noise", …).
    public var medians: [String: Double]
    /// The median measured wifi speed.
    public var wifiMbps: Double?
    /// The menu most of them name.
    public var menu: String?
    /// Published notes, newest first.
    public var notes: [String]

    public init(count: Int, medians: [String: Double], wifiMbps: Double? = nil, menu: String? = nil, notes: [String] = []) {
        self.count = count
        self.medians = medians
        self.wifiMbps = wifiMbps
        self.menu = menu
        self.notes = notes
    }

    /// The quality for working, 0…5, from the medians as ``Rating/quality`` reads values (noise and
    /// cost the other way round); nil when no scale is rated.
    public var quality: Double? {
        let values = medians.compactMap { name, value in RatingDimension(rawValue: name).map { ($0, value) } }
        guard !values.isEmpty else { return nil }
        return values.reduce(0.0) { $0 + ($1.0.higherIsBetter ? $1.1 : 5 - $1.1) } / Double(values.count)
    }
}

/// A rating that may be published: a provider place's key and the user's values (the notes and
/// menu go only when the user publishes them too).
public struct PublishableRating: Sendable, Hashable {
    public var key: String
    public var values: [String: Int]
    public var wifiMbps: Double?
    public var menu: String?
    public var notes: String
}

/// The community ratings this store keeps (not synced: they come from the server's feed).
extension PlaceStore {
    /// The key a place has in the community: the same for everyone who fetched it from the same
    /// provider. Nil for places the user entered or imported, which are never published.
    public static func communityKey(of place: Place) -> String? {
        communityKey(origin: place.origin, providerID: place.providerID)
    }

    static func communityKey(origin: PlaceOrigin, providerID: String?) -> String? {
        guard origin == .openStreetMap || origin == .yelp, let providerID, !providerID.isEmpty else { return nil }
        return CommunityKey.place(provider: origin.rawValue, id: providerID)
    }

    /// The user's ratings of provider places that may be published.
    public func publishableRatings() throws(WorkplaceError) -> [PublishableRating] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.origin, p.provider_id, r.noise, r.outlets, r.wifi, r.cost, r.seating, r.wifi_mbps, r.menu, r.notes
                FROM rating r JOIN place p ON p.id = r.place_id WHERE p.origin IN ('osm', 'yelp') ORDER BY p.id
                """).compactMap { row -> PublishableRating? in
                guard let origin = PlaceOrigin(rawValue: row["origin"]), let key = Self.communityKey(origin: origin, providerID: row["provider_id"]) else { return nil }
                var values: [String: Int] = [:]
                for dimension in RatingDimension.allCases {
                    if let value = row[dimension.rawValue] as Int? { values[dimension.rawValue] = value }
                }
                let rating = PublishableRating(key: key, values: values, wifiMbps: row["wifi_mbps"], menu: row["menu"], notes: row["notes"] ?? "")
                return values.isEmpty && rating.wifiMbps == nil && rating.menu == nil && rating.notes.isEmpty ? nil : rating
            }
        }
    }

    /// Where this store is in the server's feed of ratings.
    public func communityCursor() throws(WorkplaceError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT seq FROM community_cursor WHERE id = 1") ?? 0 }
    }

    /// Takes in a page of the server's feed (a summary of count 0 removes the entry) and the
    /// position after it; `reset` drops everything kept first. Provider places learn their keys
    /// here, so that ``near(_:)`` can rank by the community without hashing every place.
    public func applyCommunitySummaries(_ summaries: [(key: String, summary: CommunityRatingSummary)], cursor: Int64, reset: Bool) throws(WorkplaceError) {
        try write { db in
            if reset { try db.execute(sql: "DELETE FROM community_rating") }
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO community_rating (key, count, summary) VALUES (?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET count = excluded.count, summary = excluded.summary
                """)
            let delete = try db.cachedStatement(sql: "DELETE FROM community_rating WHERE key = ?")
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            for (key, summary) in summaries {
                if summary.count > 0 {
                    try upsert.execute(arguments: [key, summary.count, String(decoding: try encoder.encode(summary), as: UTF8.self)])
                } else {
                    try delete.execute(arguments: [key])
                }
            }
            try db.execute(sql: "INSERT INTO community_cursor (id, seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq", arguments: [cursor])
            try Self.linkCommunityKeys(db)
        }
    }

    /// Gives every provider place that has none its community key.
    static func linkCommunityKeys(_ db: Database) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO place_community_key (place_id, key) VALUES (?, ?)")
        let rows = try Row.fetchCursor(db, sql: """
            SELECT p.id, p.origin, p.provider_id FROM place p
            WHERE p.origin IN ('osm', 'yelp') AND NOT EXISTS (SELECT 1 FROM place_community_key k WHERE k.place_id = p.id)
            """)
        var pending: [(Int64, String)] = []
        while let row = try rows.next() {
            guard let origin = PlaceOrigin(rawValue: row[1]), let key = communityKey(origin: origin, providerID: row[2]) else { continue }
            pending.append((row[0], key))
        }
        for (id, key) in pending { try insert.execute(arguments: [id, key]) }
    }

    /// The community summaries of places that have one, by place id (from the keys linked at
    /// the last sync).
    static func communityQualities(_ db: Database) throws -> [Int64: CommunityRatingSummary] {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM community_rating LIMIT 1") != nil else { return [:] }
        var result: [Int64: CommunityRatingSummary] = [:]
        let decoder = JSONDecoder()
        for row in try Row.fetchAll(db, sql: "SELECT k.place_id, c.summary FROM community_rating c JOIN place_community_key k ON k.key = c.key") {
            if let summary = try? decoder.decode(CommunityRatingSummary.self, from: Data((row[1] as String).utf8)) { result[row[0]] = summary }
        }
        return result
    }

    /// Fills in the community summaries of some places.
    static func attachCommunity(_ places: inout [Place], db: Database) throws {
        guard !places.isEmpty, try Bool.fetchOne(db, sql: "SELECT 1 FROM community_rating LIMIT 1") != nil else { return }
        let statement = try db.cachedStatement(sql: "SELECT summary FROM community_rating WHERE key = ?")
        let decoder = JSONDecoder()
        for index in places.indices {
            guard let key = communityKey(of: places[index]), let text = try String.fetchOne(statement, arguments: [key]) else { continue }
            places[index].community = try? decoder.decode(CommunityRatingSummary.self, from: Data(text.utf8))
        }
    }

    static func migrateToCommunity(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE community_rating (key TEXT PRIMARY KEY NOT NULL, count INTEGER NOT NULL, summary TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE community_cursor (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
            CREATE TABLE place_community_key (
                place_id INTEGER PRIMARY KEY REFERENCES place(id) ON DELETE CASCADE,
                key TEXT NOT NULL
            );
            CREATE INDEX place_community_key_key ON place_community_key(key);
            """)
    }
}
