import Foundation
import Testing
@testable import QuoteCore

/// Issue 14 §5: trying a schedule out touches no history, and a delivery recorded in the future
/// (a clock that jumped forward and back) never silences the deliveries due until then.
@Suite struct TryingOutTests {
    func store(clock: TestClock) throws -> QuoteStore {
        let store = try freshStore(now: { clock.now })
        try store.installStarterCollection()
        return store
    }

    @Test func previewShowsWhatWouldBeDeliveredAndRecordsNothing() throws {
        let clock = TestClock(date("2026-11-20T08:00:00Z"))
        let store = try store(clock: clock)
        try store.setSchedule(try schedule("09:00,13:30"), user: "ada")
        let future = date("2026-12-01T10:00:00Z")
        let preview = try #require(try store.previewDue(now: future, user: "ada", channel: "stdout"))
        #expect(preview.slot == date("2026-12-01T09:00:00Z"))
        #expect(try store.history(user: "ada").isEmpty)
        // Trying out again gives the same slot: nothing was recorded in between.
        #expect(try store.previewDue(now: future, user: "ada", channel: "stdout")?.slot == preview.slot)
        // And the real tick today still delivers today's slot.
        #expect(try store.deliverDue(now: date("2026-11-20T09:00:30Z"), user: "ada", channel: "stdout")?.slot == date("2026-11-20T09:00:00Z"))
        #expect(try store.previewDue(now: date("2026-11-20T09:00:40Z"), user: "ada", channel: "stdout") == nil)
    }

    @Test func previewDoesNotAdvanceTheShuffleBag() throws {
        let clock = TestClock(date("2026-11-20T08:00:00Z"))
        let store = try store(clock: clock)
        try store.setSchedule(try schedule("09:00,13:30"), user: "ada")
        // A bag in progress: the first real delivery starts it.
        _ = try store.deliverDue(now: date("2026-11-20T09:00:30Z"), user: "ada", channel: "stdout")
        let preview = try #require(try store.previewDue(now: date("2026-11-20T13:30:10Z"), user: "ada", channel: "stdout"))
        let real = try #require(try store.deliverDue(now: date("2026-11-20T13:30:20Z"), user: "ada", channel: "stdout"))
        #expect(real.quote.id == preview.quote.id)
        #expect(real.slot == preview.slot)
    }

    @Test func aDeliveryRecordedInTheFutureDoesNotSilenceDeliveries() throws {
        let clock = TestClock(date("2026-11-20T08:00:00Z"))
        let store = try store(clock: clock)
        try store.setSchedule(try schedule("09:00,13:30"), user: "ada")
        // The clock jumped to December, a tick delivered there, the clock came back.
        #expect(try store.deliverDue(now: date("2026-12-15T09:05:00Z"), user: "ada", channel: "stdout") != nil)
        #expect(try store.due(now: date("2026-11-20T09:00:30Z"), user: "ada") == date("2026-11-20T09:00:00Z"))
        #expect(try store.deliverDue(now: date("2026-11-20T09:00:30Z"), user: "ada", channel: "stdout")?.slot == date("2026-11-20T09:00:00Z"))
        #expect(try store.deliverDue(now: date("2026-11-20T09:00:50Z"), user: "ada", channel: "stdout") == nil)
        #expect(try store.deliverDue(now: date("2026-11-20T13:30:05Z"), user: "ada", channel: "stdout")?.slot == date("2026-11-20T13:30:00Z"))
        // Clearing and setting the schedule again changes nothing about that.
        try store.setSchedule(nil, user: "ada")
        try store.setSchedule(try schedule("09:00,13:30"), user: "ada")
        #expect(try store.deliverDue(now: date("2026-11-21T09:00:10Z"), user: "ada", channel: "stdout")?.slot == date("2026-11-21T09:00:00Z"))
    }
}
