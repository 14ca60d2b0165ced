import Foundation
import Testing
@testable import BundleCore

@Suite struct CheckInTests {
    /// The seed's story: three todos before going to the Eastern branch (one with a deadline),
    /// one after.
    func story() throws -> (BundleStore, TestClock) {
        let clock = TestClock()
        let store = try freshStore(clock: clock)
        try store.addTodo("Get the payment agreement signed", event: "go to Eastern branch", preposition: .before,
                          deadline: try Deadline.parse("2026-12-01", timeZone: utc))
        try store.addTodo("Pick up the new badge", event: "go to Eastern branch", preposition: .before)
        try store.addTodo("Buy dog food on the way", event: "go to Eastern branch", preposition: .when)
        try store.addTodo("Report back to the boss", event: "go to Eastern branch", preposition: .after)
        return (store, clock)
    }

    @Test func aboutToOffersBeforeWhenAndNoneButNotAfter() throws {
        let (store, _) = try story()
        let about = try store.offer(event: "go to eastern branch", direction: .aboutTo, timeZone: utc)
        #expect(about.todos.map(\.text) == ["Get the payment agreement signed", "Pick up the new badge", "Buy dog food on the way"])
        let finished = try store.offer(event: "go to Eastern branch", direction: .justFinished, timeZone: utc)
        #expect(finished.todos.map(\.text) == ["Buy dog food on the way", "Report back to the boss"])
    }

    @Test func overdueThenSoonestDeadlineFirst() throws {
        let clock = TestClock()
        let store = try freshStore(clock: clock)
        try store.addTodo("no deadline", event: "bank", preposition: .before)
        try store.addTodo("later", event: "bank", preposition: .before, deadline: try Deadline.parse("2026-12-20", timeZone: utc))
        try store.addTodo("sooner", event: "bank", preposition: .before, deadline: try Deadline.parse("2026-12-02", timeZone: utc))
        try store.addTodo("overdue", event: "bank", preposition: .before, deadline: try Deadline.parse("2026-11-01", timeZone: utc))
        #expect(try store.offer(event: "bank", direction: .aboutTo, timeZone: utc).todos.map(\.text) == ["overdue", "sooner", "later", "no deadline"])
    }

    @Test func theStoryFromCheckInToReview() throws {
        let (store, clock) = try story()
        var bundle = try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [1, 2], icon: "🏦", timeZone: utc)
        #expect(bundle.title == "Go to Eastern branch, Wed 18 Nov")
        #expect(bundle.items.map(\.todo.status) == [.inBundle, .inBundle])
        bundle = try store.markDone(1, in: bundle.id)
        bundle = try store.throwBack(2, in: bundle.id)
        #expect(try store.todo(2).status == .pending)
        bundle = try store.pull(3, into: bundle.id)
        #expect(!bundle.canComplete)
        #expect {
            try store.complete(bundle.id)
        } throws: { error in
            (error as? BundleError) == .conflict(.bundleHasOpenTodos(1, open: [3]))
        }
        try store.markDone(3, in: bundle.id)
        clock.advance(3600)
        bundle = try store.complete(bundle.id)
        #expect(bundle.status == .completed)
        #expect(bundle.items.map(\.outcome) == [.done, .thrownBack, .done])
        #expect(try store.review().map(\.id) == [bundle.id])
        #expect(try store.review(event: "go to eastern branch").map(\.id) == [bundle.id])
        #expect(try store.review(from: clock.now.addingTimeInterval(60)).isEmpty)
        let activity = try store.activity()
        #expect(activity.first?.checkIns == 1)
        #expect(activity.first?.completed == 1)
        #expect(activity.first?.pendingTodos == 2)
        // A finished bundle does not change any more.
        #expect(throws: BundleError.conflict(.bundleNotOpen(1, status: .completed))) { try store.renameBundle(bundle.id, to: "x") }
    }

    @Test func abandonReturnsEveryUnfinishedTodoToThePile() throws {
        let (store, _) = try story()
        let bundle = try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [1, 2, 3], timeZone: utc)
        try store.markDone(2, in: bundle.id)
        let abandoned = try store.abandon(bundle.id)
        #expect(abandoned.status == .abandoned)
        #expect(try store.todo(1).status == .pending)
        #expect(try store.todo(1).bundleID == nil)
        #expect(try store.todo(2).status == .done)
        #expect(try store.todo(3).status == .pending)
        #expect(throws: BundleError.noOpenBundle) { try store.currentBundle() }
    }

    @Test func aTodoCannotBeInTwoOpenBundles() throws {
        let (store, _) = try story()
        let first = try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [1], timeZone: utc)
        #expect(try !store.offer(event: "go to Eastern branch", direction: .aboutTo, timeZone: utc).todos.contains { $0.id == 1 })
        #expect {
            try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [1, 2], timeZone: utc)
        } throws: { error in
            (error as? BundleError) == .conflict(.todoNotOffered(1, event: "go to Eastern branch", direction: .aboutTo, reason: .status(.inBundle)))
        }
        let second = try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [2], timeZone: utc)
        #expect(throws: (any Error).self) { try store.pull(1, into: second.id) }
        #expect(try store.bundle(first.id).items.map(\.todo.id) == [1])
        #expect(try store.currentBundle().id == second.id)
    }

    @Test func checkInRefusesTodosThatAreNotOffered() throws {
        let (store, _) = try story()
        #expect(throws: (any Error).self) { try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [4], timeZone: utc) }
        #expect(throws: BundleError.conflict(.noTodosChosen)) {
            try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [], timeZone: utc)
        }
        #expect(try store.openBundles().isEmpty)
        #expect(try store.todos().allSatisfy { $0.status == .pending })
    }

    @Test func unknownIdsAndFinishedStates() throws {
        let (store, _) = try story()
        #expect(throws: BundleError.todoNotFound(99)) { try store.todo(99) }
        #expect(throws: BundleError.todoUUIDNotFound("abc")) { try store.todo(uuidPrefix: "abc") }
        #expect(throws: BundleError.bundleNotFound(7)) { try store.bundle(7) }
        try store.finishTodo(4, as: .done)
        #expect(throws: BundleError.conflict(.todoNotPending(4, status: .done, bundle: nil, action: .finish))) { try store.finishTodo(4, as: .dropped) }
        #expect(throws: BundleError.conflict(.todoNotPending(4, status: .done, bundle: nil, action: .move))) {
            try store.moveTodo(4, event: nil, preposition: .before)
        }
    }

    @Test func movingATodoChangesItsTrigger() throws {
        let (store, _) = try story()
        let moved = try store.moveTodo(2, event: "come back from work", preposition: .after)
        #expect(moved.eventName == "come back from work")
        #expect(moved.preposition == .after)
        #expect(try store.moveTodo(2, event: nil, preposition: .when).preposition == .when)
        #expect(throws: BundleError.conflict(.triggerNeeded(.before))) {
            try store.addTodo("loose", event: nil, preposition: .before)
        }
    }

    @Test func dueSoonAndRemindersOncePerDay() throws {
        let clock = TestClock()
        let store = try freshStore(clock: clock)
        try store.addTodo("far", event: "bank", preposition: .before, deadline: .time(clock.now.addingTimeInterval(10 * 86_400)))
        try store.addTodo("soon", event: "bank", preposition: .before, deadline: .time(clock.now.addingTimeInterval(3600)))
        try store.addTodo("overdue", event: "bank", preposition: .before, deadline: .time(clock.now.addingTimeInterval(-60)))
        #expect(try store.dueSoon(within: 86_400, timeZone: utc).map(\.text) == ["overdue", "soon"])
        #expect(try store.takeReminders(within: 86_400, timeZone: utc).count == 2)
        #expect(try store.takeReminders(within: 86_400, timeZone: utc).isEmpty)
        clock.advance(86_401)
        #expect(try store.takeReminders(within: 86_400, timeZone: utc).count == 2)
    }

    @Test(arguments: ["", "  ", "a\u{0}b", String(repeating: "x", count: 10_001)])
    func badTodoTextIsRefused(text: String) throws {
        let store = try freshStore()
        #expect(throws: (any Error).self) { try store.addTodo(text, event: "bank", preposition: .before) }
        #expect(try store.todos(includeFinished: true).isEmpty)
        #expect(try store.events().isEmpty)
    }
}

/// A check-in's numbers stay put once some of its todos are bundled (issue 15, §1).
@Suite struct CheckInListingTests {
    @Test func bundledTodosKeepTheirPlaceInTheListing() throws {
        let store = try freshStore(clock: TestClock())
        try store.addTodo("Get the payment agreement signed", event: "go to Eastern branch", preposition: .before,
                          deadline: try Deadline.parse("2026-12-01", timeZone: utc))
        try store.addTodo("Pick up the new badge", event: "go to Eastern branch", preposition: .before)
        try store.addTodo("Buy dog food on the way", event: "go to Eastern branch", preposition: .when)
        try store.addTodo("Report back to the boss", event: "go to Eastern branch", preposition: .after)
        let first = try store.checkInListing(event: "go to Eastern branch", direction: .aboutTo, timeZone: utc).todos
        #expect(first == (try store.offer(event: "go to Eastern branch", direction: .aboutTo, timeZone: utc).todos))
        let bundle = try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [first[1].id], timeZone: utc)
        let second = try store.checkInListing(event: "go to Eastern branch", direction: .aboutTo, timeZone: utc).todos
        #expect(second.map(\.id) == first.map(\.id))
        #expect(second.map(\.status) == [.pending, .inBundle, .pending])
        #expect(second[1].bundleID == bundle.id)
        // The offer itself still leaves it out, and checking it in again is refused.
        #expect(try !store.offer(event: "go to Eastern branch", direction: .aboutTo, timeZone: utc).todos.contains { $0.id == first[1].id })
        #expect(throws: BundleError.self) {
            try store.checkIn(event: "go to Eastern branch", direction: .aboutTo, todoIDs: [first[1].id], timeZone: utc)
        }
        // The other direction's listing does not show this bundle's todos; a finished bundle's go away.
        #expect(try store.checkInListing(event: "go to Eastern branch", direction: .justFinished, timeZone: utc).todos.map(\.text)
                == ["Buy dog food on the way", "Report back to the boss"])
        try store.markDone(first[1].id, in: bundle.id)
        #expect(try store.checkInListing(event: "go to Eastern branch", direction: .aboutTo, timeZone: utc).todos.map(\.id) == [first[0].id, first[2].id])
    }
}
