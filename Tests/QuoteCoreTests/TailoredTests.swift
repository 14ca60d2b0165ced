import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import QuoteCore

/// Tailored picks on a fixed corpus: four categories of fifty quotes, each category with words
/// and authors of its own.
@Suite struct TailoredPickTests {
    static let kinds = ["sea", "mountain", "city", "forest"]
    static let words = ["sea": "tide harbour sailor", "mountain": "summit glacier climber", "city": "subway traffic crowd", "forest": "moss fern woodland"]

    func corpus() throws -> QuoteStore {
        let store = try freshStore()
        var lines: [String] = []
        for kind in Self.kinds {
            let vocabulary = Self.words[kind]!.split(separator: " ")
            for n in 0..<50 {
                lines.append("\"Every day the \(vocabulary[n % 3]) teaches patience, lesson \(kind) \(n).\",\(kind.capitalized) writer \(n % 5),\(kind)")
            }
        }
        let summary = try store.importData(Data(lines.joined(separator: "\n").utf8), name: "corpus.csv", format: .csv)
        #expect(summary.imported == 200)
        return store
    }

    func quotes(_ store: QuoteStore, _ kind: String) throws -> [Quote] {
        try store.allQuotes().filter { $0.categories == [kind] }
    }

    @Test func tailoredPicksFollowFavouritesAndNotesAndLeaveSkippedOnesOut() throws {
        let store = try corpus()
        let sea = try quotes(store, "sea"), city = try quotes(store, "city")
        for quote in sea.prefix(3) { try store.favorite(quote.id, user: "ada") }
        _ = try store.addNote("Calm.", on: sea[10].id, user: "ada")
        for quote in city.prefix(2) { try store.skip(quote.id, user: "ada") }
        #expect(try store.skipped(user: "ada").count == 2)
        let liked = Set(sea.prefix(3).map(\.id) + [sea[10].id]), skipped = Set(city.prefix(2).map(\.id))

        // Uniform picks (the shuffle bag): one round of 200 is every quote once, a quarter sea.
        var uniform: [String: Int] = [:]
        for _ in 0..<200 { uniform[try store.random(user: "ada").categories[0], default: 0] += 1 }
        #expect(uniform["sea"] == 50)

        var tailored: [String: Int] = [:]
        var seen: [Quote.ID] = []
        for _ in 0..<200 {
            let pick = try store.tailoredRandom(user: "ada")
            tailored[pick.categories[0], default: 0] += 1
            seen.append(pick.id)
            #expect(!liked.contains(pick.id), "a favourite or noted quote is not offered")
            #expect(!skipped.contains(pick.id), "a skipped quote is never offered")
        }
        // Measurably different from uniform: most picks are sea quotes (uniform: 50 of 200).
        #expect((tailored["sea"] ?? 0) >= 150, "\(tailored)")
        // Skipping weighs the skipped quotes' category down: city comes last.
        #expect((tailored["city"] ?? 0) <= (tailored["mountain"] ?? 0) + (tailored["forest"] ?? 0), "\(tailored)")
        // Not the same few quotes over and over: the last picks are remembered.
        #expect(Set(seen.suffix(20)).count == 20)

        // A category filter holds for tailored picks too.
        for _ in 0..<20 { #expect(try store.tailoredRandom(QuoteFilter(category: "forest"), user: "ada").categories == ["forest"]) }
        // Unskipping gives a quote back.
        #expect(try store.unskip(city[0].id, user: "ada"))
        #expect(try store.skipped(user: "ada").map(\.id) == [city[1].id])
    }

    @Test func withoutFavouritesOrNotesATailoredPickIsTheShuffleBags() throws {
        let store = try corpus()
        var ids: Set<Quote.ID> = []
        for _ in 0..<200 { ids.insert(try store.tailoredRandom(user: "bo").id) }
        #expect(ids.count == 200)
    }

    @Test func aTailoredScheduleDeliversTailoredPicksAndOldDefinitionsAreNotTailored() throws {
        let store = try corpus()
        let sea = try quotes(store, "sea")
        for quote in sea.prefix(4) { try store.favorite(quote.id, user: "ada") }
        let schedule = try Schedule(times: .fixed([LocalTime(minutes: 9 * 60)]), timeZoneIdentifier: "UTC", tailored: true)
        try store.setSchedule(schedule, user: "ada")
        #expect(try store.schedule(user: "ada")?.tailored == true)
        var seaCount = 0
        for day in 1...30 {
            let now = try #require(ISO8601DateFormatter().date(from: String(format: "2026-11-%02dT09:05:00Z", day)))
            let delivery = try #require(try store.deliverDue(now: now, user: "ada", channel: "test"))
            if delivery.quote.categories == ["sea"] { seaCount += 1 }
        }
        #expect(seaCount >= 20, "\(seaCount) of 30")
        // A definition stored before tailored picks existed reads as not tailored.
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(schedule)) as! [String: Any]
        json.removeValue(forKey: "tailored")
        let old = try JSONDecoder().decode(Schedule.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.tailored == false)
        #expect(old.times == schedule.times)
    }

    @Test func skippedQuotesFollowTheUserToOtherDevices() async throws {
        let server = InMemorySyncServer()
        let laptop = try QuoteStore.inMemory(), phone = try QuoteStore.inMemory()
        try laptop.store.syncEnable()
        try phone.store.syncEnable()
        #expect(try await laptop.run({ try $0.addStarterCollectionIfEmpty() }) > 0)
        let first = try #require(try await laptop.run({ try $0.allQuotes() }).first)
        #expect(try await laptop.run({ try $0.skip(first.id, user: "ada") }))
        for store in [laptop, phone] { _ = try await SyncSession(store: store.store, log: "quotes", transport: server).run() }
        #expect(try await phone.run({ try $0.skipped(user: "ada") }).map(\.text) == [first.text])
        let onPhone = try #require(try await phone.run({ try $0.skipped(user: "ada") }).first)
        #expect(try await phone.run({ try $0.unskip(onPhone.id, user: "ada") }))
        for store in [phone, laptop] { _ = try await SyncSession(store: store.store, log: "quotes", transport: server).run() }
        #expect(try await laptop.run({ try $0.skipped(user: "ada") }).isEmpty)
    }
}
