import Foundation
import SuiteSync
import QuoteCore
import SuiteSyncProtocol
import WorkplaceCore

/// The community part of a sync: publishes what the account chose to publish (only when it
/// changed), and brings the community's counts and ratings into the local stores so that they
/// work offline.
enum CommunitySync {
    /// What a community sync did.
    struct Outcome: Encodable {
        /// Favourites published now (nil when nothing had to be sent).
        var publishedFavourites: Int?
        /// Ratings published now (nil when nothing had to be sent).
        var publishedRatings: Int?
        /// Quote counts and place summaries received.
        var quoteCounts = 0
        var placeSummaries = 0
    }

    /// The most feed pages one sync reads (a server that never ends its feed cannot keep it busy).
    static let maximumPages = 100_000

    static func run(folder: URL, account: inout SyncAccount, force: Bool = false) async throws -> Outcome {
        let client = HTTPSyncClient(server: account.server, token: account.token)
        let settings = try await client.communitySettings()
        account.community = settings
        var outcome = Outcome()
        let stale = force || account.publishedAt.map { Date().timeIntervalSince($0) > 24 * 3600 } ?? true
        let quotesURL = folder.appendingPathComponent(QuoteStore.fileName)
        let placesURL = folder.appendingPathComponent(PlaceStore.fileName)
        let hasQuotes = FileManager.default.fileExists(atPath: quotesURL.path)
        let hasPlaces = FileManager.default.fileExists(atPath: placesURL.path)

        // Favourites are published by the device where publishing was turned on (it knows whose
        // favourites): after its log sync, so the favourites made on the others count too.
        if settings.favourites, let user = account.publishUser {
            let favourites = hasQuotes ? try QuoteStore(url: quotesURL).publishableFavorites(user: user) : []
            let quotes = favourites.map { CommunityQuote(key: $0.key, text: $0.text, source: $0.source) }
                .filter { CommunityRules.problem($0) == nil }
            let digest = Self.digest(quotes.map(\.key).sorted())
            if stale || digest != account.publishedFavourites {
                try await client.publishFavourites(quotes)
                account.publishedFavourites = digest
                account.publishedAt = Date()
                outcome.publishedFavourites = quotes.count
            }
        } else if !settings.favourites {
            account.publishedFavourites = nil
            account.publishUser = nil
        }
        if settings.ratings {
            let ratings = (hasPlaces ? try PlaceStore(url: placesURL).publishableRatings() : []).map { rating in
                CommunityRating(key: rating.key, scales: rating.values, wifiMbps: rating.wifiMbps,
                                menu: settings.ratingNotes ? rating.menu : nil,
                                notes: settings.ratingNotes && !rating.notes.isEmpty ? rating.notes : nil)
            }.filter { CommunityRules.problem($0) == nil }
            let digest = Self.digest(ratings.map { rating in
                [rating.key, rating.scales.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
                 rating.wifiMbps.map { String($0) } ?? "", rating.menu ?? "", rating.notes ?? ""].joined(separator: "\u{0}")
            }.sorted())
            if stale || digest != account.publishedRatings {
                try await client.publishRatings(ratings)
                account.publishedRatings = digest
                account.publishedAt = Date()
                outcome.publishedRatings = ratings.count
            }
        } else {
            account.publishedRatings = nil
        }

        if hasQuotes {
            let store = try QuoteStore(url: quotesURL)
            var cursor = try store.communityCursor()
            var fresh = cursor == 0
            for _ in 0..<maximumPages {
                let page = try await client.quoteFeed(after: cursor, fresh: fresh)
                // What the server says is checked like anything else that comes in.
                let counts = page.items.filter { item in
                    CommunityKey.isWellFormed(item.key) && item.count >= 0
                        && (item.count == 0 || CommunityRules.problem(CommunityQuote(key: item.key, text: item.text, source: item.source)) == nil)
                }.map { CommunityFavoriteCount(key: $0.key, text: $0.text, source: $0.source, count: $0.count) }
                guard page.next >= 0, page.reset || page.next >= cursor else { throw SyncError(.serverBroken, "the sync server's community feed went backwards") }
                try store.applyCommunityCounts(counts, cursor: page.next, reset: page.reset)
                outcome.quoteCounts += counts.count
                // After a reset the rest of the pass reads from the start with nothing kept.
                if page.reset { fresh = true }
                if !page.more || (page.next <= cursor && !page.reset) { break }
                cursor = page.next
            }
        }
        if hasPlaces {
            let store = try PlaceStore(url: placesURL)
            var cursor = try store.communityCursor()
            var fresh = cursor == 0
            for _ in 0..<maximumPages {
                let page = try await client.placeFeed(after: cursor, fresh: fresh)
                let summaries = page.items.compactMap { item -> (key: String, summary: CommunityRatingSummary)? in
                    guard CommunityKey.isWellFormed(item.key), item.count >= 0,
                          item.medians.allSatisfy({ CommunityRules.scales.contains($0.key) && (0...5).contains($0.value) }),
                          item.wifiMbps.map({ $0.isFinite && $0 >= 0 }) ?? true, item.menu.map(CommunityRules.menus.contains) ?? true
                    else { return nil }
                    let notes = item.notes.filter { CommunityRules.problem($0, name: "a note", limit: CommunityRules.maximumNotes) == nil }.prefix(10)
                    return (item.key, CommunityRatingSummary(count: item.count, medians: item.medians, wifiMbps: item.wifiMbps, menu: item.menu, notes: Array(notes)))
                }
                guard page.next >= 0, page.reset || page.next >= cursor else { throw SyncError(.serverBroken, "the sync server's community feed went backwards") }
                try store.applyCommunitySummaries(summaries, cursor: page.next, reset: page.reset)
                outcome.placeSummaries += summaries.count
                if page.reset { fresh = true }
                if !page.more || (page.next <= cursor && !page.reset) { break }
                cursor = page.next
            }
        }
        return outcome
    }

    /// Runs a community sync after a log sync: a failure here is a warning (on stderr, and the
    /// settings' last error), not a failed sync; nil when it failed.
    static func runAfterLogs(folder: URL, account: inout SyncAccount) async -> Outcome? {
        do {
            return try await run(folder: folder, account: &account)
        } catch {
            let message = ErrorReport.classify(error)?.1 ?? "\(error)"
            Terminal.printError("suite: warning: the community part of the sync failed: \(message); your data synced")
            account.lastError = "community: \(message)"
            return nil
        }
    }

    /// Runs the community part after a log sync on the settings as they are now, and writes
    /// back only the fields it changed (a publish or a logout meanwhile is not undone).
    static func runAfterLogsAndSave(folder: URL) async -> Outcome? {
        guard let before = try? SyncAccount.load(from: folder) else { return nil }
        var after = before
        let outcome = await runAfterLogs(folder: folder, account: &after)
        do {
            try SyncAccount.update(in: folder, session: before) { current in
                if after.community != before.community { current.community = after.community }
                if after.publishUser != before.publishUser { current.publishUser = after.publishUser }
                if after.publishedFavourites != before.publishedFavourites { current.publishedFavourites = after.publishedFavourites }
                if after.publishedRatings != before.publishedRatings { current.publishedRatings = after.publishedRatings }
                if after.publishedAt != before.publishedAt { current.publishedAt = after.publishedAt }
                if after.lastError != before.lastError { current.lastError = after.lastError }
            }
        } catch {
            Terminal.printError("suite: warning: \(ErrorReport.classify(error)?.1 ?? "\(error)")")
        }
        return outcome
    }

    /// One line for what a community sync did, or nil when it did nothing worth saying.
    static func summary(_ outcome: Outcome) -> String? {
        var parts: [String] = []
        if let count = outcome.publishedFavourites { parts.append("published \(count) favourite\(count == 1 ? "" : "s")") }
        if let count = outcome.publishedRatings { parts.append("published \(count) rating\(count == 1 ? "" : "s")") }
        if outcome.quoteCounts > 0 { parts.append("received \(outcome.quoteCounts) favourite count\(outcome.quoteCounts == 1 ? "" : "s")") }
        if outcome.placeSummaries > 0 { parts.append("received \(outcome.placeSummaries) place rating\(outcome.placeSummaries == 1 ? "" : "s")") }
        return parts.isEmpty ? nil : "community: " + parts.joined(separator: ", ")
    }

    private static func digest(_ parts: [String]) -> String {
        CommunityKey.quote(text: parts.joined(separator: "\n"), source: "digest")
    }
}
