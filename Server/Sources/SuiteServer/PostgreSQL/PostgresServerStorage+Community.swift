import Foundation
import PostgresNIO
import SuiteSyncProtocol

extension PostgresServerStorage {
    package func communitySettings(accountID: String) async throws -> CommunitySettings {
        return try await withWatchedConnection { [logger] connection in
            let rows = try await connection.query("SELECT favourites, ratings, rating_notes FROM community_settings WHERE account_id = \(accountID)", logger: logger)
            for try await (favourites, ratings, notes) in rows.decode((Bool, Bool, Bool).self) {
                return CommunitySettings(favourites: favourites, ratings: ratings, ratingNotes: notes)
            }
            return CommunitySettings()
        }
    }

    package func setCommunitySettings(_ settings: CommunitySettings, accountID: String, now: Date, redact: @escaping @Sendable (String) -> String) async throws {
        let logger = self.logger
        try await withTransaction { [logger] connection in
            // The row lock orders this against the account's uploads.
            try await connection.query("INSERT INTO community_settings (account_id) VALUES (\(accountID)) ON CONFLICT DO NOTHING", logger: logger)
            try await connection.query("SELECT 1 FROM community_settings WHERE account_id = \(accountID) FOR UPDATE", logger: logger)
            for kind in CommunityKind.allCases where !settings.publishes(kind) {
                try await Self.replace(kind, accountID: accountID, votes: [], now: now, connection: connection, logger: logger)
            }
            if settings.ratings && !settings.ratingNotes {
                var votes: [CommunityVote] = []
                for try await (key, payload) in try await connection.query(
                    "SELECT key, payload FROM community_votes WHERE kind = 'ratings' AND account_id = \(accountID)", logger: logger
                ).decode((String, String).self) {
                    votes.append(CommunityVote(key: key, payload: redact(payload)))
                }
                try await Self.replace(.ratings, accountID: accountID, votes: votes, now: now, connection: connection, logger: logger)
            }
            try await connection.query("""
                UPDATE community_settings SET favourites = \(settings.favourites), ratings = \(settings.ratings), rating_notes = \(settings.ratingNotes)
                WHERE account_id = \(accountID)
                """, logger: logger)
        }
    }

    package func replaceVotes(_ kind: CommunityKind, accountID: String, votes: [CommunityVote], now: Date, redact: @escaping @Sendable (String) -> String) async throws -> Bool {
        let logger = self.logger
        return try await withTransaction { [logger] connection in
            var settings = CommunitySettings()
            for try await (favourites, ratings, notes) in try await connection.query(
                "SELECT favourites, ratings, rating_notes FROM community_settings WHERE account_id = \(accountID) FOR UPDATE", logger: logger
            ).decode((Bool, Bool, Bool).self) {
                settings = CommunitySettings(favourites: favourites, ratings: ratings, ratingNotes: notes)
            }
            guard settings.publishes(kind) else { return false }
            let votes = kind == .ratings && !settings.ratingNotes
                ? votes.map { CommunityVote(key: $0.key, text: $0.text, source: $0.source, payload: redact($0.payload)) } : votes
            try await Self.replace(kind, accountID: accountID, votes: votes, now: now, connection: connection, logger: logger)
            return true
        }
    }

    package func topItems(_ kind: CommunityKind, limit: Int) async throws -> [CommunityItem] {
        return try await withWatchedConnection { [logger] connection in
            try await Self.items(try await connection.query("""
                SELECT key, text, source, votes, seq FROM community_items
                WHERE kind = \(kind.rawValue) AND votes > 0 ORDER BY votes DESC, key LIMIT \(Int64(limit))
                """, logger: logger))
        }
    }

    package func items(_ kind: CommunityKind, keys: [String]) async throws -> [CommunityItem] {
        return try await withWatchedConnection { [logger] connection in
            try await Self.items(try await connection.query("""
                SELECT key, text, source, votes, seq FROM community_items
                WHERE kind = \(kind.rawValue) AND key = ANY(\(keys)) AND votes > 0
                """, logger: logger))
        }
    }

    package func feed(_ kind: CommunityKind, after: Int64, limit: Int, fresh: Bool) async throws -> (items: [CommunityItem], reset: Bool) {
        return try await withWatchedConnection { [logger] connection in
            // One statement, so one snapshot: the purge mark and the items agree.
            let rows = try await connection.query("""
                WITH mark AS (
                    SELECT NOT \(fresh) AND \(after) > 0 AND \(after) < purged AS reset FROM community_counters WHERE kind = \(kind.rawValue)
                )
                SELECT mark.reset, i.key, i.text, i.source, i.votes, i.seq FROM mark LEFT JOIN LATERAL (
                    SELECT key, text, source, votes, seq FROM community_items
                    WHERE kind = \(kind.rawValue) AND seq > (CASE WHEN mark.reset THEN 0 ELSE \(after) END) ORDER BY seq LIMIT \(Int64(limit))
                ) i ON true
                """, logger: logger)
            var reset = false
            var items: [CommunityItem] = []
            for try await (wasReset, key, text, source, votes, seq) in rows.decode((Bool, String?, String?, String?, Int?, Int64?).self) {
                reset = wasReset
                if let key, let votes, let seq { items.append(CommunityItem(key: key, text: text, source: source, votes: votes, seq: seq)) }
            }
            return (items, reset)
        }
    }

    package func votePayloads(_ kind: CommunityKind, keys: [String]) async throws -> [String: [String]] {
        return try await withWatchedConnection { [logger] connection in
            var result: [String: [String]] = [:]
            let rows = try await connection.query("""
                SELECT key, payload FROM community_votes WHERE kind = \(kind.rawValue) AND key = ANY(\(Array(Set(keys))))
                ORDER BY key, updated_at DESC
                """, logger: logger)
            for try await (key, payload) in rows.decode((String, String).self) {
                result[key, default: []].append(payload)
            }
            return result
        }
    }

    package func purgeCommunity(before: Date) async throws -> Int {
        let logger = self.logger
        let cutoff = Int64(before.timeIntervalSince1970 * 1000)
        return try await withTransaction { [logger] connection in
            var total = 0
            for kind in CommunityKind.allCases {
                // The counter's lock keeps writers out while the purge mark moves.
                try await connection.query("SELECT 1 FROM community_counters WHERE kind = \(kind.rawValue) FOR UPDATE", logger: logger)
                var highest: Int64?
                var count = 0
                for try await (value, deleted) in try await connection.query("""
                    WITH gone AS (
                        DELETE FROM community_items WHERE kind = \(kind.rawValue) AND votes = 0 AND zeroed_at < \(cutoff) RETURNING seq
                    )
                    SELECT max(seq), count(*) FROM gone
                    """, logger: logger).decode((Int64?, Int).self) {
                    highest = value
                    count = deleted
                }
                guard let highest else { continue }
                total += count
                try await connection.query("UPDATE community_counters SET purged = greatest(purged, \(highest)) WHERE kind = \(kind.rawValue)", logger: logger)
            }
            return total
        }
    }

    package func createSharedList(_ list: StoredSharedList, accountID: String, quota: Int64?) async throws {
        try await withTransaction { [logger] connection in
            do {
                try await Self.addUsage(Int64(list.title.utf8.count + list.body.count), accountID: accountID, quota: quota, connection: connection, logger: logger)
                try await connection.query("""
                    INSERT INTO shared_lists (id, account_id, title, body, count, created_at)
                    VALUES (\(list.id), \(accountID), \(list.title), \(ByteBuffer(bytes: list.body)), \(list.count), \(list.createdAt))
                    """, logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23503" {
                throw ServerStorageError.unknownAccount
            }
        }
    }

    package func sharedList(id: String) async throws -> StoredSharedList? {
        return try await withWatchedConnection { [logger] connection in
            // Not while its account is disabled by the operator.
            try await Self.lists(try await connection.query("""
                SELECT s.id, s.title, s.body, s.count, s.created_at FROM shared_lists s JOIN accounts a ON a.id = s.account_id
                WHERE s.id = \(id) AND a.disabled_at IS NULL
                """, logger: logger)).first
        }
    }

    package func sharedLists(accountID: String) async throws -> [StoredSharedList] {
        return try await withWatchedConnection { [logger] connection in
            try await Self.lists(try await connection.query("""
                SELECT id, title, body, count, created_at FROM shared_lists WHERE account_id = \(accountID) ORDER BY created_at DESC, id
                """, logger: logger))
        }
    }

    package func deleteSharedList(id: String, accountID: String) async throws -> Bool {
        return try await withTransaction { [logger] connection in
            var size: Int64?
            for try await value in try await connection.query("""
                DELETE FROM shared_lists WHERE id = \(id) AND account_id = \(accountID) RETURNING (octet_length(title) + octet_length(body))::bigint
                """, logger: logger).decode(Int64.self) {
                size = value
            }
            guard let size else { return false }
            try await Self.addUsage(-size, accountID: accountID, quota: nil, connection: connection, logger: logger)
            return true
        }
    }

    // MARK: - Parts

    private static func replace(
        _ kind: CommunityKind, accountID: String, votes: [CommunityVote], now: Date, connection: PostgresConnection, logger: Logger
    ) async throws {
        // The counter rows are always locked in the same order (favourites, then ratings), after
        // the account's settings row: no two transactions wait on each other in a circle.
        var stored: [String: String] = [:]
        for try await (key, payload) in try await connection.query(
            "SELECT key, payload FROM community_votes WHERE kind = \(kind.rawValue) AND account_id = \(accountID)", logger: logger
        ).decode((String, String).self) {
            stored[key] = payload
        }
        let diff = CommunityDiff(stored: stored, new: votes)
        guard !diff.isEmpty else { return }
        let touched = diff.touchedKeys
        // The counter's row lock, held to the commit, hands out positions in commit order.
        var last: Int64?
        for try await value in try await connection.query(
            "UPDATE community_counters SET seq = seq + \(Int64(touched.count)) WHERE kind = \(kind.rawValue) RETURNING seq", logger: logger
        ).decode(Int64.self) {
            last = value
        }
        guard let last else { throw ServerStorageError.corrupt("the community counter for \(kind.rawValue) is missing") }
        var seqs: [String: Int64] = [:]
        for (index, key) in touched.enumerated() { seqs[key] = last - Int64(touched.count) + 1 + Int64(index) }
        let millis = Int64(now.timeIntervalSince1970 * 1000)

        if !diff.added.isEmpty {
            let keys = diff.added.map(\.key)
            let texts = diff.added.map { $0.text ?? "" }
            let sources = diff.added.map { $0.source ?? "" }
            let payloads = diff.added.map(\.payload)
            let addedSeqs = keys.map { seqs[$0] ?? 0 }
            try await connection.query("""
                INSERT INTO community_votes (kind, account_id, key, payload, updated_at)
                SELECT \(kind.rawValue), \(accountID), t.key, t.payload, \(millis) FROM unnest(\(keys)::text[], \(payloads)::text[]) AS t(key, payload)
                """, logger: logger)
            try await connection.query("""
                INSERT INTO community_items AS c (kind, key, text, source, votes, seq)
                SELECT \(kind.rawValue), t.key, NULLIF(t.text, ''), NULLIF(t.source, ''), 1, t.seq
                FROM unnest(\(keys)::text[], \(texts)::text[], \(sources)::text[], \(addedSeqs)::bigint[]) AS t(key, text, source, seq)
                ON CONFLICT (kind, key) DO UPDATE SET
                    votes = c.votes + 1, seq = excluded.seq, zeroed_at = NULL,
                    source = CASE WHEN c.text IS NULL THEN excluded.source ELSE c.source END,
                    text = coalesce(c.text, excluded.text)
                """, logger: logger)
        }
        if !diff.removed.isEmpty {
            let keys = diff.removed
            let removedSeqs = keys.map { seqs[$0] ?? 0 }
            try await connection.query("""
                DELETE FROM community_votes WHERE kind = \(kind.rawValue) AND account_id = \(accountID) AND key = ANY(\(keys))
                """, logger: logger)
            try await connection.query("""
                UPDATE community_items AS c SET
                    votes = c.votes - 1, seq = t.seq,
                    text = CASE WHEN c.votes = 1 THEN NULL ELSE c.text END,
                    source = CASE WHEN c.votes = 1 THEN NULL ELSE c.source END,
                    zeroed_at = CASE WHEN c.votes = 1 THEN \(millis) ELSE NULL END
                FROM unnest(\(keys)::text[], \(removedSeqs)::bigint[]) AS t(key, seq)
                WHERE c.kind = \(kind.rawValue) AND c.key = t.key
                """, logger: logger)
        }
        if !diff.changed.isEmpty {
            let keys = diff.changed.map(\.key)
            let payloads = diff.changed.map(\.payload)
            let changedSeqs = keys.map { seqs[$0] ?? 0 }
            try await connection.query("""
                UPDATE community_votes AS v SET payload = t.payload, updated_at = \(millis)
                FROM unnest(\(keys)::text[], \(payloads)::text[]) AS t(key, payload)
                WHERE v.kind = \(kind.rawValue) AND v.account_id = \(accountID) AND v.key = t.key
                """, logger: logger)
            try await connection.query("""
                UPDATE community_items AS c SET seq = t.seq
                FROM unnest(\(keys)::text[], \(changedSeqs)::bigint[]) AS t(key, seq)
                WHERE c.kind = \(kind.rawValue) AND c.key = t.key
                """, logger: logger)
        }
    }

    private static func items(_ rows: PostgresRowSequence) async throws -> [CommunityItem] {
        var items: [CommunityItem] = []
        for try await (key, text, source, votes, seq) in rows.decode((String, String?, String?, Int, Int64).self) {
            items.append(CommunityItem(key: key, text: text, source: source, votes: votes, seq: seq))
        }
        return items
    }

    private static func lists(_ rows: PostgresRowSequence) async throws -> [StoredSharedList] {
        var lists: [StoredSharedList] = []
        for try await (id, title, body, count, createdAt) in rows.decode((String, String, Data, Int, Date).self) {
            lists.append(StoredSharedList(id: id, title: title, body: body, count: count, createdAt: createdAt))
        }
        return lists
    }
}
