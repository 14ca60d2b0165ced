import Foundation
import NIOConcurrencyHelpers
import SuiteSyncProtocol

/// When the service last purged zero counts (shared by copies of the service).
package final class PurgeClock: Sendable {
    private let last = NIOLockedValueBox<Date?>(nil)

    /// Whether a purge is due at `now` (at most one an hour), marking it done if so.
    func isDue(_ now: Date) -> Bool {
        last.withLockedValue { last in
            if let previous = last, now.timeIntervalSince(previous) < 3600 { return false }
            last = now
            return true
        }
    }

    /// Makes the next call due again (after a purge that failed).
    func forget() {
        last.withLockedValue { $0 = nil }
    }
}

/// A published rating as its vote's payload: sorted keys, so that the same rating is the same text.
private struct RatingPayload: Codable {
    var s: [String: Int]
    var w: Double?
    var m: String?
    var n: String?

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension SyncService {
    /// The most a top list or a feed page holds.
    package static let maximumCommunityPage = 1_000

    // MARK: Settings and publishing

    /// What the account publishes.
    package func communitySettings(_ session: DeviceSession) async throws -> CommunitySettings {
        try await limit(.read, session)
        return try await storage.communitySettings(accountID: session.accountID)
    }

    /// Changes what the account publishes; a kind turned off is removed from the server at once.
    package func setCommunitySettings(_ settings: CommunitySettings, session: DeviceSession) async throws -> CommunitySettings {
        try await limit(.write, session)
        var settings = settings
        if !settings.ratings { settings.ratingNotes = false }
        try await storage.setCommunitySettings(settings, accountID: session.accountID, now: now(), redact: Self.withoutNotes)
        await purgeIfDue()
        return settings
    }

    /// Replaces the account's published favourites.
    ///
    /// - Throws: ``SyncServiceError/conflict(_:)`` when the account does not publish favourites,
    ///   ``SyncServiceError/badRequest(_:)`` for a bad quote or too many.
    package func publishFavourites(_ upload: CommunityFavouritesUpload, session: DeviceSession) async throws {
        try await limit(.write, session)
        guard upload.quotes.count <= CommunityRules.maximumItems else {
            throw SyncServiceError.badRequest("at most \(CommunityRules.maximumItems) favourites can be published")
        }
        for quote in upload.quotes {
            if let problem = CommunityRules.problem(quote) { throw SyncServiceError.badRequest(problem) }
        }
        let votes = upload.quotes.map { CommunityVote(key: $0.key, text: $0.text, source: $0.source.flatMap { $0.isEmpty ? nil : $0 }) }
        guard try await storage.replaceVotes(.favourites, accountID: session.accountID, votes: votes, now: now(), redact: Self.withoutNotes) else {
            throw SyncServiceError.conflict("this account does not publish favourites")
        }
        await purgeIfDue()
    }

    /// Replaces the account's published ratings (notes and menu are dropped unless the account
    /// publishes them).
    ///
    /// - Throws: ``SyncServiceError/conflict(_:)`` when the account does not publish ratings,
    ///   ``SyncServiceError/badRequest(_:)`` for a bad rating or too many.
    package func publishRatings(_ upload: CommunityRatingsUpload, session: DeviceSession) async throws {
        try await limit(.write, session)
        guard upload.ratings.count <= CommunityRules.maximumItems else {
            throw SyncServiceError.badRequest("at most \(CommunityRules.maximumItems) ratings can be published")
        }
        for rating in upload.ratings {
            if let problem = CommunityRules.problem(rating) { throw SyncServiceError.badRequest(problem) }
        }
        // Notes and menu ride along; the storage drops them (`withoutNotes`) in the transaction
        // that reads the settings, unless the account publishes them.
        let votes = try upload.ratings.map { rating in
            let payload = RatingPayload(s: rating.scales, w: rating.wifiMbps, m: rating.menu, n: rating.notes.flatMap { $0.isEmpty ? nil : $0 })
            return CommunityVote(key: rating.key, payload: String(decoding: try RatingPayload.encoder.encode(payload), as: UTF8.self))
        }
        guard try await storage.replaceVotes(.ratings, accountID: session.accountID, votes: votes, now: now(), redact: Self.withoutNotes) else {
            throw SyncServiceError.conflict("this account does not publish ratings")
        }
        await purgeIfDue()
    }

    // MARK: Reading

    /// The most favourited quotes across all accounts.
    package func topQuotes(limit: Int?, session: DeviceSession) async throws -> [CommunityQuoteCount] {
        try await self.limit(.read, session)
        let limit = try Self.pageSize(limit, default: 10)
        return try await storage.topItems(.favourites, limit: limit).map(Self.quoteCount)
    }

    /// The favourite counts of some quotes (those nobody favourites are left out).
    package func lookupQuotes(_ request: CommunityLookupRequest, session: DeviceSession) async throws -> [CommunityQuoteCount] {
        try await limit(.read, session)
        try Self.checkKeys(request.keys)
        return try await storage.items(.favourites, keys: request.keys).map(Self.quoteCount)
    }

    /// Quote counts that changed after a feed position (`fresh`: the reader reads from the start
    /// after a reset).
    package func quoteFeed(after: Int64, limit: Int?, fresh: Bool = false, session: DeviceSession) async throws -> CommunityFeed<CommunityQuoteCount> {
        try await self.limit(.read, session)
        guard after >= 0 else { throw SyncServiceError.badRequest("after must not be negative") }
        let limit = try Self.pageSize(limit, default: Self.maximumCommunityPage)
        let page = try await storage.feed(.favourites, after: after, limit: limit, fresh: fresh)
        return CommunityFeed(items: page.items.map(Self.quoteCount), next: page.items.last?.seq ?? (page.reset ? 0 : after),
                             reset: page.reset, more: page.items.count == limit)
    }

    /// What the community says of some places (those nobody rates are left out).
    package func lookupPlaces(_ request: CommunityLookupRequest, session: DeviceSession) async throws -> [CommunityPlaceSummary] {
        try await limit(.read, session)
        try Self.checkKeys(request.keys)
        return try await summaries(try await storage.items(.ratings, keys: request.keys))
    }

    /// Place summaries that changed after a feed position (`fresh` as for ``quoteFeed(after:limit:fresh:session:)``).
    package func placeFeed(after: Int64, limit: Int?, fresh: Bool = false, session: DeviceSession) async throws -> CommunityFeed<CommunityPlaceSummary> {
        try await self.limit(.read, session)
        guard after >= 0 else { throw SyncServiceError.badRequest("after must not be negative") }
        let limit = try Self.pageSize(limit, default: Self.maximumCommunityPage)
        let page = try await storage.feed(.ratings, after: after, limit: limit, fresh: fresh)
        return CommunityFeed(items: try await summaries(page.items), next: page.items.last?.seq ?? (page.reset ? 0 : after),
                             reset: page.reset, more: page.items.count == limit)
    }

    // MARK: Shared lists

    /// Publishes a read-only snapshot of a list under a new unguessable id.
    package func shareList(_ request: SharedListRequest, session: DeviceSession) async throws -> SharedListInfo {
        try await limit(.write, session)
        if let problem = CommunityRules.problem(request) { throw SyncServiceError.badRequest(problem) }
        let date = now()
        let body = try SyncProtocol.encoder.encode(SharedList(title: request.title, quotes: request.quotes, createdAt: date))
        // An id that starts with a letter or digit (one starting with '-' would read as an option).
        var id = SessionToken.generate()
        while id.first == "-" || id.first == "_" { id = SessionToken.generate() }
        let list = StoredSharedList(id: id, title: request.title, body: body, count: request.quotes.count, createdAt: date)
        do {
            try await storage.createSharedList(list, accountID: session.accountID, quota: policy.quotaBytes)
        } catch ServerStorageError.unknownAccount {
            throw SyncServiceError.unauthorized("the account is gone")
        } catch ServerStorageError.quotaExceeded(let used, let quota) {
            throw Self.quotaError(used: used, quota: quota)
        }
        return SharedListInfo(id: list.id, title: list.title, count: list.count, createdAt: list.createdAt)
    }

    /// The account's shared lists.
    package func sharedLists(_ session: DeviceSession) async throws -> [SharedListInfo] {
        try await limit(.read, session)
        return try await storage.sharedLists(accountID: session.accountID).map { SharedListInfo(id: $0.id, title: $0.title, count: $0.count, createdAt: $0.createdAt) }
    }

    /// Deletes one of the account's shared lists.
    package func unshareList(id: String, session: DeviceSession) async throws {
        try await limit(.write, session)
        guard try await storage.deleteSharedList(id: id, accountID: session.accountID) else {
            throw SyncServiceError.notFound("no shared list \(id) in this account")
        }
    }

    /// A shared list, for anyone with its link.
    package func sharedList(id: String) async throws -> SharedList? {
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }) else {
            return nil
        }
        guard let stored = try await storage.sharedList(id: id) else { return nil }
        return try SyncProtocol.decoder.decode(SharedList.self, from: stored.body)
    }

    // MARK: Parts

    private func limit(_ kind: RequestRateLimiter.Kind, _ session: DeviceSession) async throws {
        guard await requestLimiter.allows(kind, account: session.accountID, now: now()) else {
            throw SyncServiceError.tooManyAttempts("too many requests from this account; wait a minute")
        }
    }

    /// Purges old zero counts, at most once an hour; best effort (the write that called it has
    /// committed, and the next one tries again).
    private func purgeIfDue() async {
        let date = now()
        guard lastPurge.isDue(date) else { return }
        if (try? await storage.purgeCommunity(before: date.addingTimeInterval(-tombstoneRetention))) == nil {
            lastPurge.forget()
        }
    }

    /// A rating's payload without its notes and menu.
    static let withoutNotes: @Sendable (String) -> String = { payload in
        guard var rating = try? JSONDecoder().decode(RatingPayload.self, from: Data(payload.utf8)) else { return payload }
        rating.m = nil
        rating.n = nil
        return (try? RatingPayload.encoder.encode(rating)).map { String(decoding: $0, as: UTF8.self) } ?? payload
    }

    private static func pageSize(_ limit: Int?, default value: Int) throws -> Int {
        let limit = limit ?? value
        guard limit >= 1 else { throw SyncServiceError.badRequest("limit must be at least 1") }
        return min(limit, maximumCommunityPage)
    }

    private static func checkKeys(_ keys: [String]) throws {
        guard keys.count <= CommunityRules.maximumLookup else {
            throw SyncServiceError.badRequest("at most \(CommunityRules.maximumLookup) keys at once")
        }
        guard keys.allSatisfy(CommunityKey.isWellFormed) else { throw SyncServiceError.badRequest("a key is not a community key") }
    }

    private static func quoteCount(_ item: CommunityItem) -> CommunityQuoteCount {
        CommunityQuoteCount(key: item.key, text: item.text ?? "", source: item.source, count: item.votes, seq: item.seq)
    }

    private func summaries(_ items: [CommunityItem]) async throws -> [CommunityPlaceSummary] {
        let live = items.filter { $0.votes > 0 }.map(\.key)
        let payloads = live.isEmpty ? [:] : try await storage.votePayloads(.ratings, keys: live)
        let decoder = JSONDecoder()
        return items.map { item in
            let ratings = (payloads[item.key] ?? []).compactMap { try? decoder.decode(RatingPayload.self, from: Data($0.utf8)) }
            return Self.summary(of: item, ratings: ratings)
        }
    }

    private static func summary(of item: CommunityItem, ratings: [RatingPayload]) -> CommunityPlaceSummary {
        var medians: [String: Double] = [:]
        for scale in CommunityRules.scales {
            if let value = median(ratings.compactMap { $0.s[scale].map(Double.init) }) { medians[scale] = value }
        }
        var menus: [String: Int] = [:]
        for menu in ratings.compactMap(\.m) { menus[menu, default: 0] += 1 }
        let menu = menus.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        return CommunityPlaceSummary(
            key: item.key, count: item.votes, medians: medians, wifiMbps: median(ratings.compactMap(\.w)), menu: menu,
            notes: Array(ratings.compactMap(\.n).prefix(10)), seq: item.seq)
    }

    /// The median (the mean of the middle two for an even count), or nil for none.
    package static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
