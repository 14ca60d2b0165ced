import Foundation
import SuiteSyncProtocol
import Testing
import WorkplaceCore

/// The community ratings a place store keeps: what may be published, the summaries a sync
/// brings, and ranking by them.
@Suite struct PlaceCommunityTests {
    let berlin = try! Coordinate(latitude: 52.5200, longitude: 13.4050)

    func store() throws -> (PlaceStore, cafe: Place, library: Place, mine: Place) {
        let store = try PlaceStore.inMemory()
        try store.upsert(try nearbyRecords())
        let mine = try store.add(PlaceRecord(name: "My desk", type: .other, coordinate: berlin, origin: .user))
        let places = try store.near(PlaceQuery(center: berlin, limit: 10)).map(\.place)
        return (store, try #require(places.first { $0.providerID == "node/1" }), try #require(places.first { $0.providerID == "node/2" }), mine)
    }

    @Test func onlyRatingsOfProviderPlacesMayBePublished() throws {
        let (store, cafe, _, mine) = try store()
        _ = try store.rate(cafe.id, RatingChange(values: [.wifi: 4, .noise: 2], menu: .lunch, notes: "Quiet upstairs"))
        _ = try store.rate(mine.id, RatingChange(values: [.wifi: 5]))
        let published = try store.publishableRatings()
        #expect(published.count == 1)
        #expect(published.first?.key == CommunityKey.place(provider: "osm", id: "node/1"))
        #expect(published.first?.values == ["wifi": 4, "noise": 2])
        #expect(published.first?.menu == "lunch" && published.first?.notes == "Quiet upstairs")
        #expect(PlaceStore.communityKey(of: mine) == nil)
    }

    @Test func summariesAttachToPlacesAndRankPlacesYouNeverRated() throws {
        let (store, cafe, library, _) = try store()
        let query = PlaceQuery(center: berlin, limit: 10, sort: .score)
        // Unrated both: the nearer first.
        let before = try store.near(query).map(\.place.id)
        let cafeFirst = before.firstIndex(of: cafe.id)! < before.firstIndex(of: library.id)!
        let (better, worse) = cafeFirst ? (library, cafe) : (cafe, library)
        try store.applyCommunitySummaries([
            (try #require(PlaceStore.communityKey(of: better)), CommunityRatingSummary(count: 4, medians: ["wifi": 5, "outlets": 4.5], notes: ["Great"])),
            (try #require(PlaceStore.communityKey(of: worse)), CommunityRatingSummary(count: 4, medians: ["wifi": 1])),
        ], cursor: 5, reset: false)
        #expect(try store.communityCursor() == 5)
        #expect(try store.place(better.id).community?.count == 4)
        #expect(try store.place(better.id).community?.notes == ["Great"])
        let ranked = try store.near(query)
        #expect(ranked.map(\.place.id).firstIndex(of: better.id)! < ranked.map(\.place.id).firstIndex(of: worse.id)!)
        #expect(abs(ranked.first { $0.place.id == better.id }!.smoothedQuality - (4.0 / 6 * 4.75 + 2.0 / 6 * 2.5)) < 1e-9)
        // Your own rating wins over the community's.
        _ = try store.rate(better.id, RatingChange(values: [.wifi: 0, .outlets: 0, .seating: 0]))
        let mine = try store.near(query)
        #expect(mine.map(\.place.id).firstIndex(of: worse.id)! < mine.map(\.place.id).firstIndex(of: better.id)!)
        // A zero count removes the summary; a reset drops them all.
        try store.applyCommunitySummaries([(try #require(PlaceStore.communityKey(of: worse)), CommunityRatingSummary(count: 0, medians: [:]))], cursor: 6, reset: false)
        #expect(try store.place(worse.id).community == nil)
        try store.applyCommunitySummaries([], cursor: 0, reset: true)
        #expect(try store.place(better.id).community == nil)
    }
}
