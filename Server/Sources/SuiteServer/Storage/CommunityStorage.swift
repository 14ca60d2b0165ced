import Foundation
import SuiteSyncProtocol

/// One account's vote on one item: a favourite (the quote's words and source ride along, so a
/// top list can show them) or a rating (its scales as JSON in `payload`).
package struct CommunityVote: Sendable, Hashable {
    package var key: String
    package var text: String?
    package var source: String?
    /// What the vote says beyond "yes" (a rating's JSON); empty for a favourite.
    package var payload: String

    package init(key: String, text: String? = nil, source: String? = nil, payload: String = "") {
        self.key = key
        self.text = text
        self.source = source
        self.payload = payload
    }
}

/// An item as the community sees it: how many accounts vote for it, and its place in the feed.
/// No row anywhere says which accounts.
package struct CommunityItem: Sendable, Hashable {
    package var key: String
    package var text: String?
    package var source: String?
    package var votes: Int
    package var seq: Int64

    package init(key: String, text: String?, source: String?, votes: Int, seq: Int64) {
        self.key = key
        self.text = text
        self.source = source
        self.votes = votes
        self.seq = seq
    }
}

/// A published list as stored.
package struct StoredSharedList: Sendable, Hashable {
    package var id: String
    package var title: String
    package var body: Data
    package var count: Int
    package var createdAt: Date

    package init(id: String, title: String, body: Data, count: Int, createdAt: Date) {
        self.id = id
        self.title = title
        self.body = body
        self.count = count
        self.createdAt = createdAt
    }
}

/// How an account's new set of votes differs from the stored one.
package struct CommunityDiff: Sendable {
    /// Keys voted for now and not before.
    package var added: [CommunityVote] = []
    /// Keys voted for before and not now.
    package var removed: [String] = []
    /// Keys voted for both times, with a different payload.
    package var changed: [CommunityVote] = []

    /// Compares the stored votes (key → payload) with the new set (a key given twice counts once:
    /// the first).
    package init(stored: [String: String], new votes: [CommunityVote]) {
        var seen = Set<String>()
        for vote in votes where seen.insert(vote.key).inserted {
            if let old = stored[vote.key] {
                if old != vote.payload { changed.append(vote) }
            } else {
                added.append(vote)
            }
        }
        removed = stored.keys.filter { !seen.contains($0) }.sorted()
        added.sort { $0.key < $1.key }
        changed.sort { $0.key < $1.key }
    }

    /// Whether nothing changes.
    package var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

    /// Keys whose item changes (and so takes a new feed position), in order.
    package var touchedKeys: [String] { (added.map(\.key) + removed + changed.map(\.key)).sorted() }
}

/// The community part of a ``ServerStorage``. Every write for an account and a kind is one
/// transaction; feed positions are handed out in commit order, so a reader that saw position N
/// never later finds a change below N.
package protocol CommunityStorage: Sendable {
    /// What the account publishes (all off for an account that never said).
    func communitySettings(accountID: String) async throws -> CommunitySettings

    /// Stores what the account publishes; a kind turned off loses the account's votes of that
    /// kind in the same transaction, and with rating notes off, `redact` rewrites the payloads of
    /// the account's ratings (dropping their notes) in it too.
    func setCommunitySettings(_ settings: CommunitySettings, accountID: String, now: Date, redact: @escaping @Sendable (String) -> String) async throws

    /// Replaces the account's votes of a kind by a new set. The settings are read in the same
    /// transaction (under the account's settings row lock): when they say ratings go without
    /// notes, each rating's payload passes through `redact` first.
    ///
    /// - Returns: `false`, changing nothing, when the account does not publish that kind.
    func replaceVotes(_ kind: CommunityKind, accountID: String, votes: [CommunityVote], now: Date, redact: @escaping @Sendable (String) -> String) async throws -> Bool

    /// The items with the most votes, most first (ties by key).
    func topItems(_ kind: CommunityKind, limit: Int) async throws -> [CommunityItem]

    /// The items with these keys that have votes.
    func items(_ kind: CommunityKind, keys: [String]) async throws -> [CommunityItem]

    /// Items whose votes changed after a feed position, in order (zero-vote items included, until
    /// purged), read in one snapshot; `reset` (and the items from the start) when a removal the
    /// reader has not seen was purged since `after`, unless the reader is `fresh` (reading
    /// from the start, it kept nothing that could be stale).
    func feed(_ kind: CommunityKind, after: Int64, limit: Int, fresh: Bool) async throws -> (items: [CommunityItem], reset: Bool)

    /// The votes' payloads for these keys, newest first per key (no account named).
    func votePayloads(_ kind: CommunityKind, keys: [String]) async throws -> [String: [String]]

    /// Forgets items whose last vote went away before a time (the hash of what nobody publishes).
    ///
    /// - Returns: How many were forgotten.
    func purgeCommunity(before: Date) async throws -> Int

    /// Stores a shared list.
    func createSharedList(_ list: StoredSharedList, accountID: String, quota: Int64?) async throws

    /// A shared list by its id.
    func sharedList(id: String) async throws -> StoredSharedList?

    /// The account's shared lists, newest first.
    func sharedLists(accountID: String) async throws -> [StoredSharedList]

    /// Deletes one of the account's shared lists.
    ///
    /// - Returns: Whether it existed.
    func deleteSharedList(id: String, accountID: String) async throws -> Bool
}
