import Foundation
import Testing
@testable import QuoteCore

/// The delivery history a page at a time, and a quote sent more than once (issue #36 §3).
@Suite struct HistoryPagingTests {
    @Test func aQuoteSentTwiceIsInTheHistoryTwiceAndOlderPagesFollow() throws {
        let store = try freshStore()
        try store.installStarterCollection()
        // A category of one quote: the schedule sends it every day.
        let solo = try store.add("Alone, again.", source: "Nobody", categories: ["solo"])
        var only = try schedule("09:00")
        only.category = "solo"
        try store.setSchedule(only, user: "ada")
        for day in 20...23 {
            #expect(try store.deliverDue(now: date("2026-11-\(day)T09:00:30Z"), user: "ada", channel: "stdout")?.quote.id == solo.id)
        }
        let history = try store.history(user: "ada")
        #expect(history.map(\.quote.id) == Array(repeating: solo.id, count: 4))
        #expect(history.map(\.slot) == (20...23).reversed().map { date("2026-11-\($0)T09:00:00Z") })
        let older = try store.history(user: "ada", before: history[1].slot, limit: 2)
        #expect(older.map(\.slot) == [date("2026-11-21T09:00:00Z"), date("2026-11-20T09:00:00Z")])
        #expect(try store.history(user: "ada", before: history[3].slot).isEmpty)
        #expect(try store.history(user: "ada", since: date("2026-11-21T00:00:00Z"), before: history[0].slot).count == 2)
    }
}
