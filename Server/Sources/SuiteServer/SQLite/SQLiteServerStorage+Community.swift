import Foundation
import GRDB
import SuiteSyncProtocol

extension SQLiteServerStorage {
    package func communitySettings(accountID: String) async throws -> CommunitySettings {
        try await pool.read { db in try Self.settings(accountID: accountID, db: db) }
    }

    package func setCommunitySettings(_ settings: CommunitySettings, accountID: String, now: Date, redact: @escaping @Sendable (String) -> String) async throws {
        let removed = try await pool.write { db -> Bool in
            var removed = false
            for kind in CommunityKind.allCases where !settings.publishes(kind) {
                removed = try Self.replace(kind, accountID: accountID, votes: [], now: now, db: db) || removed
            }
            if settings.ratings && !settings.ratingNotes {
                let stored = try Row.fetchAll(db, sql: "SELECT key, payload FROM community_votes WHERE kind = 'ratings' AND account_id = ?", arguments: [accountID])
                let votes = stored.map { row in CommunityVote(key: row["key"], payload: redact(row["payload"])) }
                removed = try Self.replace(.ratings, accountID: accountID, votes: votes, now: now, db: db) || removed
            }
            try db.execute(sql: """
                INSERT INTO community_settings (account_id, favourites, ratings, rating_notes) VALUES (?, ?, ?, ?)
                ON CONFLICT (account_id) DO UPDATE SET favourites = excluded.favourites, ratings = excluded.ratings, rating_notes = excluded.rating_notes
                """, arguments: [accountID, settings.favourites, settings.ratings, settings.ratingNotes])
            return removed
        }
        if removed { await forgetDeleted() }
    }

    package func replaceVotes(_ kind: CommunityKind, accountID: String, votes: [CommunityVote], now: Date, redact: @escaping @Sendable (String) -> String) async throws -> Bool {
        let (published, removed) = try await pool.write { db -> (Bool, Bool) in
            let settings = try Self.settings(accountID: accountID, db: db)
            guard settings.publishes(kind) else { return (false, false) }
            let votes = kind == .ratings && !settings.ratingNotes ? votes.map { CommunityVote(key: $0.key, text: $0.text, source: $0.source, payload: redact($0.payload)) } : votes
            return (true, try Self.replace(kind, accountID: accountID, votes: votes, now: now, db: db))
        }
        if removed { await forgetDeleted() }
        return published
    }

    package func topItems(_ kind: CommunityKind, limit: Int) async throws -> [CommunityItem] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT key, text, source, votes, seq FROM community_items
                WHERE kind = ? AND votes > 0 ORDER BY votes DESC, key LIMIT ?
                """, arguments: [kind.rawValue, limit]).map(Self.item)
        }
    }

    package func items(_ kind: CommunityKind, keys: [String]) async throws -> [CommunityItem] {
        try await pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT key, text, source, votes, seq FROM community_items WHERE kind = ? AND key = ? AND votes > 0")
            return try keys.compactMap { key in try Row.fetchOne(statement, arguments: [kind.rawValue, key]).map(Self.item) }
        }
    }

    package func feed(_ kind: CommunityKind, after: Int64, limit: Int, fresh: Bool) async throws -> (items: [CommunityItem], reset: Bool) {
        try await pool.read { db in
            let purged = try Int64.fetchOne(db, sql: "SELECT purged FROM community_counters WHERE kind = ?", arguments: [kind.rawValue]) ?? 0
            let reset = !fresh && after > 0 && after < purged
            let items = try Row.fetchAll(db, sql: """
                SELECT key, text, source, votes, seq FROM community_items WHERE kind = ? AND seq > ? ORDER BY seq LIMIT ?
                """, arguments: [kind.rawValue, reset ? 0 : after, limit]).map(Self.item)
            return (items, reset)
        }
    }

    package func votePayloads(_ kind: CommunityKind, keys: [String]) async throws -> [String: [String]] {
        try await pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT payload FROM community_votes WHERE kind = ? AND key = ? ORDER BY updated_at DESC")
            var result: [String: [String]] = [:]
            for key in Set(keys) {
                let payloads = try String.fetchAll(statement, arguments: [kind.rawValue, key])
                if !payloads.isEmpty { result[key] = payloads }
            }
            return result
        }
    }

    package func purgeCommunity(before: Date) async throws -> Int {
        try await pool.write { db in
            var total = 0
            for kind in CommunityKind.allCases {
                let cutoff = Int64(before.timeIntervalSince1970 * 1000)
                guard let highest = try Int64.fetchOne(db, sql: """
                    SELECT max(seq) FROM community_items WHERE kind = ? AND votes = 0 AND zeroed_at < ?
                    """, arguments: [kind.rawValue, cutoff]) else { continue }
                try db.execute(sql: "DELETE FROM community_items WHERE kind = ? AND votes = 0 AND zeroed_at < ?", arguments: [kind.rawValue, cutoff])
                total += db.changesCount
                try db.execute(sql: "UPDATE community_counters SET purged = max(purged, ?) WHERE kind = ?", arguments: [highest, kind.rawValue])
            }
            return total
        }
    }

    package func createSharedList(_ list: StoredSharedList, accountID: String, quota: Int64?) async throws {
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE id = ?", arguments: [accountID]) != nil else {
                throw ServerStorageError.unknownAccount
            }
            try Self.addUsage(Int64(list.title.utf8.count + list.body.count), accountID: accountID, quota: quota, db: db)
            try db.execute(sql: "INSERT INTO shared_lists (id, account_id, title, body, count, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [list.id, accountID, list.title, list.body, list.count, list.createdAt])
        }
    }

    package func sharedList(id: String) async throws -> StoredSharedList? {
        try await pool.read { db in
            // Not while its account is disabled by the operator.
            try Row.fetchOne(db, sql: """
                SELECT s.* FROM shared_lists s JOIN accounts a ON a.id = s.account_id WHERE s.id = ? AND a.disabled_at IS NULL
                """, arguments: [id]).map(Self.sharedList)
        }
    }

    package func sharedLists(accountID: String) async throws -> [StoredSharedList] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM shared_lists WHERE account_id = ? ORDER BY created_at DESC, id", arguments: [accountID]).map(Self.sharedList)
        }
    }

    package func deleteSharedList(id: String, accountID: String) async throws -> Bool {
        let deleted = try await pool.write { db in
            let size = try Int64.fetchOne(db, sql: """
                SELECT length(CAST(title AS BLOB)) + length(body) FROM shared_lists WHERE id = ? AND account_id = ?
                """, arguments: [id, accountID])
            try db.execute(sql: "DELETE FROM shared_lists WHERE id = ? AND account_id = ?", arguments: [id, accountID])
            guard db.changesCount > 0 else { return false }
            try Self.addUsage(-(size ?? 0), accountID: accountID, quota: nil, db: db)
            return true
        }
        if deleted { await forgetDeleted() }
        return deleted
    }

    // MARK: - Parts

    /// Moves the write-ahead log into the file and empties it, so that the old copies of deleted
    /// rows leave the log too (the file's own pages are overwritten by `secure_delete`). Best
    /// effort: with readers in the way the next checkpoint does it.
    private func forgetDeleted() async {
        try? await pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    private static func settings(accountID: String, db: Database) throws -> CommunitySettings {
        guard let row = try Row.fetchOne(db, sql: "SELECT favourites, ratings, rating_notes FROM community_settings WHERE account_id = ?", arguments: [accountID]) else {
            return CommunitySettings()
        }
        return CommunitySettings(favourites: row["favourites"], ratings: row["ratings"], ratingNotes: row["rating_notes"])
    }

    /// Replaces the account's votes of a kind; returns whether a vote was removed or changed
    /// (something that was published is gone).
    @discardableResult
    private static func replace(_ kind: CommunityKind, accountID: String, votes: [CommunityVote], now: Date, db: Database) throws -> Bool {
        var stored: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, payload FROM community_votes WHERE kind = ? AND account_id = ?", arguments: [kind.rawValue, accountID]) {
            stored[row["key"]] = row["payload"]
        }
        let diff = CommunityDiff(stored: stored, new: votes)
        guard !diff.isEmpty else { return false }
        let touched = diff.touchedKeys
        guard let last = try Int64.fetchOne(db, sql: "UPDATE community_counters SET seq = seq + ? WHERE kind = ? RETURNING seq",
                                            arguments: [touched.count, kind.rawValue]) else {
            throw ServerStorageError.corrupt("the community counter for \(kind.rawValue) is missing")
        }
        var seqs: [String: Int64] = [:]
        for (index, key) in touched.enumerated() { seqs[key] = last - Int64(touched.count) + 1 + Int64(index) }
        let millis = Int64(now.timeIntervalSince1970 * 1000)
        let insertVote = try db.cachedStatement(sql: "INSERT INTO community_votes (kind, account_id, key, payload, updated_at) VALUES (?, ?, ?, ?, ?)")
        let addItem = try db.cachedStatement(sql: """
            INSERT INTO community_items (kind, key, text, source, votes, seq) VALUES (?, ?, ?, ?, 1, ?)
            ON CONFLICT (kind, key) DO UPDATE SET
                votes = votes + 1, seq = excluded.seq, zeroed_at = NULL,
                source = CASE WHEN text IS NULL THEN excluded.source ELSE source END,
                text = coalesce(text, excluded.text)
            """)
        for vote in diff.added {
            try insertVote.execute(arguments: [kind.rawValue, accountID, vote.key, vote.payload, millis])
            try addItem.execute(arguments: [kind.rawValue, vote.key, vote.text, vote.source, seqs[vote.key]])
        }
        let deleteVote = try db.cachedStatement(sql: "DELETE FROM community_votes WHERE kind = ? AND account_id = ? AND key = ?")
        let removeItem = try db.cachedStatement(sql: """
            UPDATE community_items SET
                votes = votes - 1, seq = ?,
                text = CASE WHEN votes = 1 THEN NULL ELSE text END,
                source = CASE WHEN votes = 1 THEN NULL ELSE source END,
                zeroed_at = CASE WHEN votes = 1 THEN ? ELSE NULL END
            WHERE kind = ? AND key = ?
            """)
        for key in diff.removed {
            try deleteVote.execute(arguments: [kind.rawValue, accountID, key])
            try removeItem.execute(arguments: [seqs[key], millis, kind.rawValue, key])
        }
        let updateVote = try db.cachedStatement(sql: "UPDATE community_votes SET payload = ?, updated_at = ? WHERE kind = ? AND account_id = ? AND key = ?")
        let touchItem = try db.cachedStatement(sql: "UPDATE community_items SET seq = ? WHERE kind = ? AND key = ?")
        for vote in diff.changed {
            try updateVote.execute(arguments: [vote.payload, millis, kind.rawValue, accountID, vote.key])
            try touchItem.execute(arguments: [seqs[vote.key], kind.rawValue, vote.key])
        }
        return !diff.removed.isEmpty || !diff.changed.isEmpty
    }

    private static func item(_ row: Row) -> CommunityItem {
        CommunityItem(key: row["key"], text: row["text"], source: row["source"], votes: row["votes"], seq: row["seq"])
    }

    private static func sharedList(_ row: Row) -> StoredSharedList {
        StoredSharedList(id: row["id"], title: row["title"], body: row["body"], count: row["count"], createdAt: row["created_at"])
    }
}
