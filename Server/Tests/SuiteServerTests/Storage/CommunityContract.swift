import Foundation
import Synchronization
import SuiteServer
import SuiteSyncProtocol
import Testing

/// The community channel on every backend: counts against an independent tally, what turning
/// publishing off leaves behind, refusals, ratings' medians, shared lists and rate limits.
struct CommunityContract: Sendable {
    let backend: TestBackend

    /// A service whose request limits never get in a test's way.
    static func service(_ storage: any ServerStorage, limiter: RequestRateLimiter = RequestRateLimiter(
        write: .init(capacity: 1_000_000, perMinute: 1_000_000), read: .init(capacity: 1_000_000, perMinute: 1_000_000)),
                        now: @escaping @Sendable () -> Date = { Date() }) -> SyncService {
        SyncService(storage: storage, policy: ServerPolicy(signupBurst: 1_000), bcryptCost: 4, requestLimiter: limiter, now: now)
    }

    static func session(_ service: SyncService) async throws -> DeviceSession {
        try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
    }

    /// Many accounts publish, unpublish, favourite and unfavourite at random; after every step
    /// the server's counts equal a tally kept here, and a reader following the feed holds the same.
    func countsEqualAnIndependentTally() async throws {
        try await backend.withStorage { storage in
            let service = Self.service(storage)
            let run = UUID().uuidString
            let quotes = (0..<24).map { CommunityQuote(text: "Quote \($0) of run \(run)", source: $0 % 3 == 0 ? nil : "Author \($0 % 5)") }
            let keys = quotes.map(\.key)
            var sessions: [DeviceSession] = []
            for _ in 0..<12 { sessions.append(try await Self.session(service)) }
            var publishing = Array(repeating: false, count: sessions.count)
            var favourites = Array(repeating: Set<Int>(), count: sessions.count)
            var published = Array(repeating: Set<Int>(), count: sessions.count)
            var generator = SeededGenerator(seed: 0x5eed_c0de)
            var reader: [String: Int] = [:]
            var cursor: Int64 = 0

            for step in 0..<400 {
                let who = Int.random(in: 0..<sessions.count, using: &generator)
                switch Int.random(in: 0..<10, using: &generator) {
                case 0:
                    publishing[who].toggle()
                    _ = try await service.setCommunitySettings(CommunitySettings(favourites: publishing[who]), session: sessions[who])
                    published[who] = []
                    if publishing[who] {
                        try await service.publishFavourites(CommunityFavouritesUpload(quotes: favourites[who].sorted().map { quotes[$0] }), session: sessions[who])
                        published[who] = favourites[who]
                    }
                default:
                    let quote = Int.random(in: 0..<quotes.count, using: &generator)
                    if favourites[who].contains(quote) { favourites[who].remove(quote) } else { favourites[who].insert(quote) }
                    if publishing[who] {
                        // Sometimes the same quote twice in one upload: it counts once.
                        var upload = favourites[who].sorted().map { quotes[$0] }
                        if let first = upload.first, step % 7 == 0 { upload.append(first) }
                        try await service.publishFavourites(CommunityFavouritesUpload(quotes: upload), session: sessions[who])
                        published[who] = favourites[who]
                    } else {
                        await #expect(throws: SyncServiceError.conflict("this account does not publish favourites")) {
                            try await service.publishFavourites(CommunityFavouritesUpload(quotes: [quotes[quote]]), session: sessions[who])
                        }
                    }
                }
                if step % 20 == 19 || step == 399 {
                    var tally: [String: Int] = [:]
                    for set in published { for index in set { tally[keys[index], default: 0] += 1 } }
                    let counts = try await service.lookupQuotes(CommunityLookupRequest(keys: keys), session: sessions[0])
                    #expect(Dictionary(uniqueKeysWithValues: counts.map { ($0.key, $0.count) }) == tally, "step \(step)")
                    for count in counts {
                        let quote = try #require(quotes.first { $0.key == count.key })
                        #expect(count.text == quote.text && count.source == quote.source)
                    }
                    // A reader that follows the feed in small pages ends with the same counts.
                    var fresh = false
                    while true {
                        let page = try await service.quoteFeed(after: cursor, limit: 5, fresh: fresh, session: sessions[1])
                        if page.reset { reader = [:]; fresh = true }
                        for item in page.items { reader[item.key] = item.count }
                        cursor = page.next
                        if !page.more { break }
                    }
                    #expect(reader.filter { keys.contains($0.key) && $0.value > 0 } == tally, "feed at step \(step)")
                    // The top list orders ours by count.
                    let top = try await service.topQuotes(limit: 1_000, session: sessions[2]).filter { keys.contains($0.key) }
                    #expect(top.map(\.count) == top.map(\.count).sorted(by: >))
                    #expect(top.allSatisfy { tally[$0.key] == $0.count })
                }
            }
        }
    }

    /// Turning favourites and ratings off leaves no vote of the account, no text only it had
    /// published, and, once purged, not even the key.
    func unpublishingRemovesEveryTrace() async throws {
        try await backend.withStorage { storage in
            let clock = TestClock()
            let service = Self.service(storage, now: { clock.now })
            let session = try await Self.session(service)
            let marker = "trace-\(UUID().uuidString)"
            let quote = CommunityQuote(text: "Only I favourite this \(marker)", source: "Source \(marker)")
            let place = CommunityKey.place(provider: "osm", id: "node/\(marker)")
            _ = try await service.setCommunitySettings(CommunitySettings(favourites: true, ratings: true, ratingNotes: true), session: session)
            try await service.publishFavourites(CommunityFavouritesUpload(quotes: [quote]), session: session)
            try await service.publishRatings(CommunityRatingsUpload(ratings: [
                CommunityRating(key: place, scales: ["wifi": 4], menu: "lunch", notes: "Notes \(marker)"),
            ]), session: session)
            let everything = { () async throws -> String in
                var all: [String] = []
                for table in ["community_items", "community_votes", "community_settings"] { all += try await storage.dumpRows(of: table) }
                return all.joined(separator: "\n")
            }
            let before = try await everything()
            #expect(before.contains(marker) && before.contains(session.accountID) && before.contains(place))

            _ = try await service.setCommunitySettings(CommunitySettings(), session: session)
            let after = try await everything()
            #expect(!after.contains(marker))
            #expect(!after.contains("Notes"))
            #expect(try await storage.dumpRows(of: "community_votes").allSatisfy { !$0.contains(session.accountID) })
            #expect(try await service.lookupQuotes(CommunityLookupRequest(keys: [quote.key]), session: session).isEmpty)
            // The zero counts stay for a week so that devices learn of them, then go.
            #expect(after.contains(quote.key) && after.contains(place))
            clock.advance(8 * 24 * 3600)
            _ = try await service.setCommunitySettings(CommunitySettings(), session: session)
            let purged = try await everything()
            #expect(!purged.contains(quote.key) && !purged.contains(place))
            // A reader from before the purge is told to start again.
            let page = try await service.quoteFeed(after: 1, limit: 10, session: session)
            #expect(page.reset)
        }
    }

    /// Uploads while off, bad quotes, forged keys, bad ratings and bad lookups change nothing.
    func badUploadsAreRefusedAndChangeNothing() async throws {
        try await backend.withStorage { storage in
            let service = Self.service(storage)
            let session = try await Self.session(service)
            let marker = UUID().uuidString
            let good = CommunityQuote(text: "Good \(marker)", source: nil)
            _ = try await service.setCommunitySettings(CommunitySettings(favourites: true, ratings: true), session: session)
            try await service.publishFavourites(CommunityFavouritesUpload(quotes: [good]), session: session)
            let forged = CommunityQuote(key: good.key, text: "Forged words \(marker)", source: nil)
            let bad: [CommunityQuote] = [
                forged,
                CommunityQuote(text: "   ", source: nil),
                CommunityQuote(text: "bell \u{7} \(marker)", source: nil),
                CommunityQuote(text: String(repeating: "x", count: CommunityRules.maximumText + 1), source: nil),
            ]
            for quote in bad {
                await #expect(throws: SyncServiceError.self) {
                    try await service.publishFavourites(CommunityFavouritesUpload(quotes: [quote]), session: session)
                }
            }
            let badRatings: [CommunityRating] = [
                CommunityRating(key: "not-a-key", scales: ["wifi": 3]),
                CommunityRating(key: CommunityKey.place(provider: "osm", id: marker), scales: ["wifi": 6]),
                CommunityRating(key: CommunityKey.place(provider: "osm", id: marker), scales: ["taste": 3]),
                CommunityRating(key: CommunityKey.place(provider: "osm", id: marker), scales: [:]),
                CommunityRating(key: CommunityKey.place(provider: "osm", id: marker), scales: ["wifi": 3], wifiMbps: .infinity),
            ]
            let goodRating = CommunityRating(key: CommunityKey.place(provider: "osm", id: "good-\(marker)"), scales: ["wifi": 2])
            for rating in badRatings {
                // A bad rating among good ones: nothing of the upload is stored.
                await #expect(throws: SyncServiceError.self) {
                    try await service.publishRatings(CommunityRatingsUpload(ratings: [goodRating, rating]), session: session)
                }
            }
            #expect(try await storage.dumpRows(of: "community_votes").allSatisfy { !$0.contains(session.accountID) || !$0.contains("ratings") })
            await #expect(throws: SyncServiceError.self) {
                try await service.lookupQuotes(CommunityLookupRequest(keys: ["'; DROP TABLE community_items; --"]), session: session)
            }
            let counts = try await service.lookupQuotes(CommunityLookupRequest(keys: [good.key]), session: session)
            #expect(counts.map(\.count) == [1])
            #expect(counts.first?.text == good.text)
            #expect(try await storage.dumpRows(of: "community_items").allSatisfy { !$0.contains("Forged") })
        }
    }

    /// Ratings: medians per scale over the accounts that publish; notes and menu only from the
    /// accounts that chose to publish them; changing a rating replaces the account's vote.
    func ratingsGiveMediansAndNotesOnlyWhenChosen() async throws {
        try await backend.withStorage { storage in
            let service = Self.service(storage)
            let key = CommunityKey.place(provider: "yelp", id: UUID().uuidString)
            let values = [1, 4, 5, 2]
            var sessions: [DeviceSession] = []
            for (index, value) in values.enumerated() {
                let session = try await Self.session(service)
                sessions.append(session)
                _ = try await service.setCommunitySettings(CommunitySettings(ratings: true, ratingNotes: index == 0), session: session)
                try await service.publishRatings(CommunityRatingsUpload(ratings: [
                    CommunityRating(key: key, scales: ["wifi": value, "noise": 3], wifiMbps: Double(value * 10), menu: "full", notes: "note \(index)"),
                ]), session: session)
            }
            var summary = try #require(try await service.lookupPlaces(CommunityLookupRequest(keys: [key]), session: sessions[0]).first)
            #expect(summary.count == 4)
            #expect(summary.medians == ["wifi": 3, "noise": 3])
            #expect(summary.wifiMbps == 30)
            #expect(summary.notes == ["note 0"])
            #expect(summary.menu == "full")
            // The same account again replaces its vote rather than adding one.
            try await service.publishRatings(CommunityRatingsUpload(ratings: [CommunityRating(key: key, scales: ["wifi": 5])]), session: sessions[3])
            summary = try #require(try await service.lookupPlaces(CommunityLookupRequest(keys: [key]), session: sessions[0]).first)
            #expect(summary.count == 4)
            #expect(summary.medians["wifi"] == 4.5)
            // The feed has it, with the same summary.
            var cursor: Int64 = 0
            var fed: CommunityPlaceSummary?
            while true {
                let page = try await service.placeFeed(after: cursor, limit: 1_000, fresh: cursor == 0, session: sessions[1])
                if let found = page.items.first(where: { $0.key == key }) { fed = found }
                cursor = page.next
                if !page.more { break }
            }
            #expect(fed?.count == 4 && fed?.medians["wifi"] == 4.5)

            // Turning notes off takes the published notes and menu back at once.
            _ = try await service.setCommunitySettings(CommunitySettings(ratings: true, ratingNotes: false), session: sessions[0])
            summary = try #require(try await service.lookupPlaces(CommunityLookupRequest(keys: [key]), session: sessions[1]).first)
            #expect(summary.notes.isEmpty && summary.menu == nil && summary.count == 4)
            #expect(try await storage.dumpRows(of: "community_votes").allSatisfy { !$0.contains("note 0") })
        }
    }

    /// A reader whose position predates a purge is told to start again, and then reads to the
    /// end in small pages (it is not told again on every page), ending with the live counts.
    func aReaderAfterAPurgeStartsAgainAndFinishes() async throws {
        try await backend.withStorage { storage in
            let clock = TestClock()
            let service = Self.service(storage, now: { clock.now })
            let session = try await Self.session(service)
            let run = UUID().uuidString
            let quotes = (0..<12).map { CommunityQuote(text: "Purge test \($0) \(run)", source: nil) }
            _ = try await service.setCommunitySettings(CommunitySettings(favourites: true), session: session)
            try await service.publishFavourites(CommunityFavouritesUpload(quotes: quotes), session: session)
            // A reader reads everything, then half goes away and is purged a week later.
            var cursor: Int64 = 0
            var reader: [String: Int] = [:]
            while true {
                let page = try await service.quoteFeed(after: cursor, limit: 1_000, fresh: cursor == 0, session: session)
                for item in page.items { reader[item.key] = item.count }
                cursor = page.next
                if !page.more { break }
            }
            try await service.publishFavourites(CommunityFavouritesUpload(quotes: Array(quotes.prefix(6))), session: session)
            clock.advance(8 * 24 * 3600)
            _ = try await service.setCommunitySettings(CommunitySettings(favourites: true), session: session)
            var fresh = false
            var pages = 0
            while true {
                let page = try await service.quoteFeed(after: cursor, limit: 2, fresh: fresh, session: session)
                pages += 1
                #expect(pages < 10_000, "the reader never finishes")
                if pages >= 10_000 { break }
                if page.reset { reader = [:]; fresh = true }
                for item in page.items { reader[item.key] = item.count }
                cursor = page.next
                if !page.more { break }
            }
            let ours = reader.filter { key, count in quotes.contains { $0.key == key } && count > 0 }
            #expect(Set(ours.keys) == Set(quotes.prefix(6).map(\.key)))
        }
    }

    /// A shared list: read by anyone with its id, deleted only by its account.
    func sharedListsAreReadByLinkAndDeletedByTheirAccount() async throws {
        try await backend.withStorage { storage in
            let service = Self.service(storage)
            let owner = try await Self.session(service)
            let other = try await Self.session(service)
            let info = try await service.shareList(SharedListRequest(title: "My <favourites>", quotes: [
                SharedQuote(text: "<script>alert(1)</script>", source: "A & B", citation: nil),
            ]), session: owner)
            #expect(info.id.count == 43)
            #expect(try await service.sharedList(id: info.id)?.quotes.first?.text == "<script>alert(1)</script>")
            #expect(try await service.sharedLists(owner).map(\.id) == [info.id])
            #expect(try await service.sharedLists(other).isEmpty)
            await #expect(throws: SyncServiceError.notFound("no shared list \(info.id) in this account")) {
                try await service.unshareList(id: info.id, session: other)
            }
            await #expect(throws: SyncServiceError.self) {
                try await service.shareList(SharedListRequest(title: "", quotes: [SharedQuote(text: "x", source: nil, citation: nil)]), session: owner)
            }
            try await service.unshareList(id: info.id, session: owner)
            #expect(try await service.sharedList(id: info.id) == nil)
            #expect(try await storage.dumpRows(of: "shared_lists").allSatisfy { !$0.contains(info.id) })
        }
    }

    /// An account that writes too fast is told to wait; another account is not.
    func communityWritesAreRateLimited() async throws {
        try await backend.withStorage { storage in
            let service = Self.service(storage, limiter: RequestRateLimiter(write: .init(capacity: 3, perMinute: 1)))
            let first = try await Self.session(service)
            let second = try await Self.session(service)
            for _ in 0..<3 { _ = try await service.setCommunitySettings(CommunitySettings(favourites: true), session: first) }
            await #expect(throws: SyncServiceError.tooManyAttempts("too many requests from this account; wait a minute")) {
                try await service.setCommunitySettings(CommunitySettings(favourites: true), session: first)
            }
            _ = try await service.setCommunitySettings(CommunitySettings(favourites: true), session: second)
        }
    }
}

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let seconds = Mutex<TimeInterval>(Date().timeIntervalSince1970)
    var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
    func advance(_ interval: TimeInterval) { seconds.withLock { $0 += interval } }
}

/// SplitMix64: the same sequence for the same seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Community on SQLite")
struct SQLiteCommunityTests {
    let contract = CommunityContract(backend: .sqlite)
    /// Every test of the contract (``CommunityContract/cases``), on this backend.
    @Test(arguments: CommunityContract.cases)
    func keepsTheContract(_ test: ContractCase<CommunityContract>) async throws { try await test.run(contract) }
}

@Suite("Community on PostgreSQL", .enabled(if: TestBackend.postgresRuns, "SUITE_TEST_POSTGRES_URL is not set (Server/Scripts/with-postgres sets it)"))
struct PostgresCommunityTests {
    let contract = CommunityContract(backend: .postgres)
    /// Every test of the contract (``CommunityContract/cases``), on this backend.
    @Test(arguments: CommunityContract.cases)
    func keepsTheContract(_ test: ContractCase<CommunityContract>) async throws { try await test.run(contract) }
}
