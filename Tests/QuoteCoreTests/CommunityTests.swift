import Foundation
import QuoteCore
import SuiteSyncProtocol
import Testing

/// The community counts a quote store keeps: what may be published, and the counts a sync brings.
@Suite struct QuoteCommunityTests {
    func store() throws -> QuoteStore {
        let store = try QuoteStore.inMemory()
        _ = try store.importData(Data("""
            text,author,category
            "Don’t  panic.",Douglas Adams,calm
            Well begun is half done.,Aristotle,work
            """.utf8), name: "collected.csv", format: .csv)
        return store
    }

    @Test func onlyCollectedFavouritesMayBePublishedWithTheSharedKey() throws {
        let store = try store()
        let all = try store.browse(QuoteFilter(), user: "ada")
        let panic = try #require(all.first { $0.text.contains("panic") })
        let mine = try store.add("My own words.", source: "Me")
        _ = try store.favorite(panic.id, user: "ada")
        _ = try store.favorite(mine.id, user: "ada")
        let published = try store.publishableFavorites(user: "ada")
        #expect(published.map(\.text) == [panic.text])
        // The key is the one anyone computes for the same words and source, typography aside.
        #expect(published.first?.key == CommunityKey.quote(text: "don't panic.", source: "DOUGLAS ADAMS"))
        #expect(QuoteStore.communityKey(of: mine) == nil)
        #expect(try store.publishableFavorites(user: "bob").isEmpty)
    }

    @Test func countsFromTheFeedAttachToQuotesAndAZeroOrAResetRemovesThem() throws {
        let store = try store()
        let all = try store.browse(QuoteFilter(), user: "ada")
        let panic = try #require(all.first { $0.text.contains("panic") })
        let begun = try #require(all.first { $0.text.contains("begun") })
        let panicKey = try #require(QuoteStore.communityKey(of: panic))
        let begunKey = try #require(QuoteStore.communityKey(of: begun))
        #expect(try store.quote(panic.id).communityFavoriteCount == nil)
        #expect(try store.communityCursor() == 0)

        try store.applyCommunityCounts([
            CommunityFavoriteCount(key: panicKey, text: panic.text, source: "Douglas Adams", count: 7),
            CommunityFavoriteCount(key: begunKey, text: begun.text, source: "Aristotle", count: 3),
            CommunityFavoriteCount(key: CommunityKey.quote(text: "Not here", source: nil), text: "Not here", source: nil, count: 9),
        ], cursor: 12, reset: false)
        #expect(try store.quote(panic.id).communityFavoriteCount == 7)
        #expect(try store.favorites(user: "ada").isEmpty)
        #expect(try store.communityCursor() == 12)
        #expect(try store.communityTop(limit: 2).map(\.count) == [9, 7])
        #expect(try store.quote(communityKey: panicKey)?.id == panic.id)
        #expect(try store.quote(communityKey: CommunityKey.quote(text: "Not here", source: nil)) == nil)
        // A personal quote with the same words is not the collected one.
        let mine = try store.add(panic.text)
        try store.applyCommunityCounts([
            CommunityFavoriteCount(key: CommunityKey.quote(text: panic.text, source: nil), text: panic.text, source: nil, count: 5),
        ], cursor: 12, reset: false)
        #expect(try store.quote(mine.id).communityFavoriteCount == nil)

        try store.applyCommunityCounts([CommunityFavoriteCount(key: panicKey, text: "", source: nil, count: 0)], cursor: 13, reset: false)
        #expect(try store.quote(panic.id).communityFavoriteCount == nil)
        #expect(try store.quote(begun.id).communityFavoriteCount == 3)

        try store.applyCommunityCounts([CommunityFavoriteCount(key: panicKey, text: panic.text, source: nil, count: 1)], cursor: 2, reset: true)
        #expect(try store.quote(begun.id).communityFavoriteCount == nil)
        #expect(try store.communityTop().map(\.count) == [1])
        #expect(try store.communityCursor() == 2)
    }
}
