import Foundation
import SuiteTestSupport
import Testing
@testable import QuoteCore

/// Values an observation gave, with when each came, for a test to wait on.
final class Collected<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [(value: Value, at: ContinuousClock.Instant)] = []
    private var done = false

    var values: [Value] { lock.withLock { storage.map(\.value) } }
    /// When the latest value came.
    var lastArrival: ContinuousClock.Instant? { lock.withLock { storage.last?.at } }
    var finished: Bool { lock.withLock { done } }
    func append(_ value: Value) { lock.withLock { storage.append((value, .now)) } }
    func finish() { lock.withLock { done = true } }

    /// Iterates `sequence` in a task of its own, collecting every value.
    static func observing<S: AsyncSequence & Sendable>(_ sequence: S) -> (Collected<Value>, Task<Void, any Error>) where S.Element == Value {
        let collected = Collected<Value>()
        let task = Task {
            defer { collected.finish() }
            for try await value in sequence { collected.append(value) }
        }
        return (collected, task)
    }
}

@Suite struct ObservationTests {
    @Test func theFirstValueComesAtOnceAndAnOwnWriteGivesTheNext() async throws {
        let store = try QuoteStore.inMemory()
        try await store.run { try $0.addStarterCollectionIfEmpty() }
        let (seen, task) = Collected<[Quote]>.observing(store.observeFavorites(user: "ada"))
        defer { task.cancel() }
        // No write is needed for the first value.
        #expect(await eventually { seen.values.count == 1 })
        #expect(seen.values.first == [])
        try await store.run { try $0.favorite(3, user: "ada") }
        #expect(await eventually { seen.values.count == 2 })
        #expect(seen.values.last?.map(\.id) == [3])
        // A write that leaves the value as it was gives no new value; the next change does.
        try await store.run { try $0.favorite(5, user: "bob") }
        try await store.run { try $0.unfavorite(3, user: "ada") }
        #expect(await eventually { seen.values.count >= 3 })
        #expect(seen.values.map { $0.map(\.id) } == [[], [3], []])
    }

    /// How fast it arrives is measured where nothing else competes for the cores: by
    /// `Scripts/check-watch-todos` (real processes, within 1 s), not by a timed unit test.
    @Test func aWriteThroughAnotherConnectionArrives() async throws {
        let url = freshStoreURL()
        let store = try QuoteStore(url: url)
        try await store.run { try $0.addStarterCollectionIfEmpty() }
        let (seen, task) = Collected<[Quote]>.observing(store.observeFavorites(user: "ada"))
        defer { task.cancel() }
        #expect(await eventually { seen.values.count == 1 })
        // Another store on the same file, as the CLI in another process would be; its commit
        // reaches this store only through the file.
        let other = try QuoteStore(url: url)
        let write = { () throws(QuoteError) in _ = try other.favorite(7, user: "ada") }
        try write()
        #expect(await eventually { seen.values.count == 2 })
        #expect(seen.values.last?.map(\.id) == [7])
    }

    @Test func todaysQuoteIsNilUntilTheStoreHasQuotesThenFollowsFavouritesAndNotes() async throws {
        let url = freshStoreURL()
        let store = try QuoteStore(url: url)
        let (seen, task) = Collected<TodaysQuote?>.observing(store.observeTodaysQuote(year: 2026, month: 11, day: 20, user: "ada"))
        defer { task.cancel() }
        #expect(await eventually { seen.values.count == 1 })
        #expect(seen.values.first == .some(nil))
        try await store.run { try $0.addStarterCollectionIfEmpty() }
        #expect(await eventually { seen.values.count == 2 })
        let today = try #require(seen.values.last ?? nil)
        #expect(today.quote == (try await store.run({ try $0.quoteOfTheDay(year: 2026, month: 11, day: 20) })))
        #expect(!today.isFavorite && today.notes.isEmpty)
        let other = try QuoteStore(url: url)
        try await other.run { try $0.favorite(today.quote.id, user: "ada") }
        try await other.run { try $0.addNote("For the fridge.", on: today.quote.id, user: "ada") }
        #expect(await eventually { (seen.values.last ?? nil)?.notes.count == 1 })
        let now = try #require(seen.values.last ?? nil)
        #expect(now.isFavorite && now.quote.favoriteCount == 1)
    }

    @Test func historyAndScheduleFollowDeliveriesMadeElsewhere() async throws {
        let url = freshStoreURL()
        let store = try QuoteStore(url: url)
        try await store.run { try $0.addStarterCollectionIfEmpty() }
        let (schedules, scheduleTask) = Collected<Schedule?>.observing(store.observeSchedule(user: "ada"))
        let (histories, historyTask) = Collected<[Delivery]>.observing(store.observeHistory(user: "ada"))
        defer { scheduleTask.cancel(); historyTask.cancel() }
        #expect(await eventually { schedules.values == [nil] && histories.values == [[]] })
        // A timer's tick in another process.
        let tick = try QuoteStore(url: url)
        let plan = try schedule("09:00")
        try await tick.run { try $0.setSchedule(plan, user: "ada") }
        let delivery = try #require(try await tick.run { try $0.deliverDue(now: date("2026-11-20T09:00:30Z"), user: "ada", channel: "stdout") })
        #expect(await eventually { schedules.values.last == plan })
        #expect(await eventually { histories.values.last == [delivery] })
    }

    @Test func cancellingTheIteratingTaskEndsTheObservation() async throws {
        let url = freshStoreURL()
        let store = try QuoteStore(url: url)
        let (seen, task) = Collected<[Quote]>.observing(store.observeFavorites(user: "ada"))
        #expect(await eventually { seen.values.count == 1 })
        #expect(store.store.changes.subscriberCount == 1)
        task.cancel()
        #expect(await eventually { seen.finished })
        #expect(await eventually { store.store.changes.subscriberCount == 0 })
        // Another observer sees the next writes; once it has, the cancelled one had its chance.
        let (marker, markerTask) = Collected<[Quote]>.observing(store.observeFavorites(user: "ada"))
        defer { markerTask.cancel() }
        #expect(await eventually { marker.values.count == 1 })
        try await store.run { try $0.addStarterCollectionIfEmpty() }
        try await store.run { try $0.favorite(1, user: "ada") }
        #expect(await eventually { marker.values.last?.map(\.id.rawValue) == [1] })
        #expect(seen.values.count == 1)
    }
}
