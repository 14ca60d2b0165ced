import Foundation
import Testing
@testable import BundleCore

/// `todoSummaries` sorts in Swift what `todos` has SQLite sort: both must give the same list.
@Suite struct TodoSummaryTests {
    /// Todos on several events (two of whose names differ only in case), loose ones, day and time
    /// deadlines (some equal), and every status.
    func store() throws -> BundleStore {
        let store = try freshStore()
        var generator = SystemRandomNumberGenerator()
        let events: [String?] = [nil, "go to the gym", "Alpha meeting", "zebra crossing", "beta test"]
        let deadlines: [Deadline?] = [nil, nil, .day(year: 2026, month: 12, day: 1), .day(year: 2026, month: 11, day: 2),
                                      .time(Date(timeIntervalSince1970: 1_795_000_000)), .time(Date(timeIntervalSince1970: 1_700_000_000))]
        for index in 0..<120 {
            let event = events.randomElement(using: &generator)!
            let todo = try store.addTodo("Todo \(index)", event: event, preposition: event == nil ? .none : .after,
                                         deadline: deadlines.randomElement(using: &generator)!, allowNewEvent: true)
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: _ = try store.finishTodo(todo.id, as: .done)
            case 1: _ = try store.finishTodo(todo.id, as: .dropped)
            default: break
            }
        }
        // An event whose name equals another's but for case: SQLite's NOCASE order mixes their todos.
        try store.write { db in
            try db.execute(sql: "INSERT INTO event (name, created_ms) VALUES ('GO TO THE GYM', 0)")
            try db.execute(sql: "UPDATE todo SET event_id = ? WHERE id % 7 = 0 AND event_id IS NOT NULL", arguments: [db.lastInsertedRowID])
        }
        let pending = try store.todos().filter { $0.eventName == "beta test" }.prefix(3).map(\.id)
        if !pending.isEmpty { try store.checkIn(event: "beta test", direction: .justFinished, todoIDs: Array(pending), timeZone: utc) }
        return store
    }

    @Test(arguments: 0..<5) func summariesAreTheTodosListInTheSameOrder(_ run: Int) throws {
        let store = try store()
        for includeFinished in [false, true] {
            let expected = try store.todos(includeFinished: includeFinished).map(\.summary)
            #expect(try store.todoSummaries(includeFinished: includeFinished) == expected, "run \(run), includeFinished \(includeFinished)")
            #expect(expected.contains { $0.eventName == "GO TO THE GYM" } && expected.contains { $0.status == .inBundle })
            for event in ["go to the gym", "beta test"] {
                #expect(try store.todoSummaries(event: event, includeFinished: includeFinished)
                        == store.todos(event: event, includeFinished: includeFinished).map(\.summary))
            }
        }
    }

    /// The deadline order's byte comparison, against the generic one over UTF-8 views (prefixes,
    /// bytes above 0x7F, NUL, empty strings).
    @Test func bytesCompareAsSQLitesBinaryCollation() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["", "2026-12-01", "2026-12-01T17:00:00Z", "2026-12-0", "é", "€", "\u{7F}", "a", "A", "\u{0}"]
        for _ in 0..<2_000 {
            let x = (0..<Int.random(in: 0...3, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let y = Bool.random(using: &generator) ? x : (0..<Int.random(in: 0...3, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let expected = x.utf8.elementsEqual(y.utf8) ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
            #expect(BundleStore.compareBytes(x, y).signum() == expected, "\(x.debugDescription) \(y.debugDescription)")
        }
    }

    @Test func aSummaryIsWhatTheTodoSays() throws {
        let store = try freshStore()
        let todo = try store.addTodo("Post the letter", event: "go out", preposition: .before, deadline: .day(year: 2026, month: 11, day: 1))
        let summary = try #require(try store.todoSummaries().first)
        #expect(summary == todo.summary)
        #expect(summary.eventID == todo.eventID && summary.eventName == "go out" && summary.deadline == todo.deadline)
        #expect(summary.isOverdue(at: Date(timeIntervalSince1970: 1_795_000_000), timeZone: utc))
        #expect(throws: BundleError.self) { try store.todoSummaries(event: "nope") }
    }
}
