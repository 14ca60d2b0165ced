import Foundation
import Testing
@testable import BundleCore

/// Long lists a page at a time (the web app's pile, all todos and review; issue #36 §3).
@Suite struct PagingTests {
    @Test func todosComeAPageAtATimeInEitherOrder() throws {
        let store = try freshStore()
        try store.addTodo("b late", event: "bank", preposition: .before, deadline: try Deadline.parse("2026-12-20", timeZone: utc))
        try store.addTodo("a none", event: "attic", preposition: .before)
        try store.addTodo("b soon", event: "bank", preposition: .before, deadline: try Deadline.parse("2026-12-02", timeZone: utc))
        try store.addTodo("a soonest", event: "attic", preposition: .before, deadline: try Deadline.parse("2026-11-30", timeZone: utc))
        try store.addTodo("loose", event: nil, preposition: .none)
        #expect(try store.todos().map(\.text) == ["loose", "a soonest", "a none", "b soon", "b late"])
        #expect(try store.todos(order: .byDeadline).map(\.text) == ["a soonest", "b soon", "b late", "a none", "loose"])
        #expect(try store.todos(limit: 2).map(\.text) == ["loose", "a soonest"])
        #expect(try store.todos(limit: 2, offset: 2).map(\.text) == ["a none", "b soon"])
        #expect(try store.todos(limit: 2, offset: 4).map(\.text) == ["b late"])
        #expect(try store.todos(offset: 3).map(\.text) == ["b soon", "b late"])
        #expect(try store.todos(order: .byDeadline, limit: 2, offset: 1).map(\.text) == ["b soon", "b late"])
        #expect(try store.todos(event: "bank", order: .byDeadline, limit: 1).map(\.text) == ["b soon"])
        #expect(try store.todoCount() == 5)
        #expect(try store.todoCount(event: "attic") == 2)
        _ = try store.markDone(1)
        #expect(try store.todoCount() == 4)
        #expect(try store.todoCount(includeFinished: true) == 5)
    }

    @Test func reviewGivesTheLatestBundlesAPageAtATimeOldestFirstWithin() throws {
        let clock = TestClock()
        let store = try freshStore(clock: clock)
        var completed: [TodoBundle.ID] = []
        for n in 0..<5 {
            let todo = try store.addTodo("errand \(n)", event: n % 2 == 0 ? "bank" : "gym", preposition: .before)
            let bundle = try store.checkIn(event: n % 2 == 0 ? "bank" : "gym", direction: .aboutTo, todoIDs: [todo.id], timeZone: utc)
            _ = try store.markDone(todo.id, in: bundle.id)
            clock.advance(60)
            completed.append(try store.complete(bundle.id).id)
        }
        #expect(try store.review().map(\.id) == completed)
        #expect(try store.review(latest: 2).map(\.id) == Array(completed[3...]))
        #expect(try store.review(latest: 2, skipping: 2).map(\.id) == Array(completed[1...2]))
        #expect(try store.review(latest: 2, skipping: 4).map(\.id) == [completed[0]])
        #expect(try store.review(event: "bank", latest: 1, skipping: 1).map(\.id) == [completed[2]])
        #expect(try store.reviewCount() == 5)
        #expect(try store.reviewCount(event: "gym") == 2)
    }
}
