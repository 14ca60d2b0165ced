import Foundation
import Testing
@testable import BundleCore

@Suite struct DeadlineTests {
    @Test(arguments: [
        ("2026-12-01", "2026-12-01"), ("2024-02-29", "2024-02-29"), (" 2026-01-31 ", "2026-01-31"),
        ("2026-12-01T17:30", "2026-12-01T17:30:00Z"), ("2026-12-01 09:05:07", "2026-12-01T09:05:07Z"),
        ("2026-12-01T17:30:00+02:00", "2026-12-01T15:30:00Z"), ("2026-12-01T17:30:00Z", "2026-12-01T17:30:00Z"),
    ])
    func parsesDaysAndTimes(text: String, expected: String) throws {
        #expect(try Deadline.parse(text, timeZone: utc).description == expected)
    }

    @Test(arguments: ["", "tomorrow", "2026-02-30", "2025-02-29", "2026-13-01", "2026-00-10", "2026-1-1", "2026-12-01T25:00",
                      "2026-12-01T12:60", "2026-12-01X10:00", "2026-12-01T10", "20261201", "2026-12-01T10:00:99"])
    func refusesAnythingElse(text: String) {
        #expect(throws: BundleError.invalidDeadline(text)) { try Deadline.parse(text, timeZone: utc) }
    }

    @Test func aDayIsWrittenAsPrintfWritesIt() {
        var generator = SystemRandomNumberGenerator()
        var days = [(1, 1, 1), (999, 9, 9), (2026, 12, 1), (9999, 12, 31), (0, 0, 0), (-1, 1, 1), (-12_345, 10, 10), (123_456, 11, 30)]
        for _ in 0..<500 { days.append((Int.random(in: -20_000...20_000, using: &generator), Int.random(in: -1...99, using: &generator), Int.random(in: 0...131, using: &generator))) }
        for (year, month, day) in days {
            #expect(Deadline.day(year: year, month: month, day: day).description == String(format: "%04d-%02d-%02d", year, month, day))
        }
    }

    @Test func aDeadlineHasPassedWhenItsInstantIsNotAfterNow() throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let deadline = try Deadline.parse("2026-12-01", timeZone: berlin)
        let end = deadline.instant(in: berlin)
        #expect(!deadline.hasPassed(at: end.addingTimeInterval(-1), in: berlin))
        #expect(deadline.hasPassed(at: end, in: berlin))
        #expect(TodoStatus.allCases.filter(\.isOpen) == [.pending, .inBundle])
    }

    @Test func aDayIsDueAtTheEndOfThatDayInTheUsersZone() throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let deadline = try Deadline.parse("2026-12-01", timeZone: berlin)
        #expect(deadline.instant(in: berlin).formatted(Date.ISO8601FormatStyle()) == "2026-12-01T23:00:00Z")
    }
}

@Suite struct EventTests {
    @Test func matchingIgnoresCaseAndSpaces() throws {
        let store = try freshStore()
        try store.addEvent("go to Eastern branch")
        #expect(try store.event(matching: "  GO to   eastern Branch ").name == "go to Eastern branch")
    }

    @Test func unknownPhrasesSuggestTheNearestEvents() throws {
        let store = try freshStore()
        try store.addEvent("go to Eastern branch")
        try store.addEvent("go to Western branch")
        try store.addEvent("come back from work")
        #expect {
            try store.event(matching: "go to eastern brunch")
        } throws: { error in
            guard case .unknownEvent(_, let suggestions) = error as? BundleError else { return false }
            return suggestions.first == "go to Eastern branch" && !suggestions.contains("come back from work")
        }
        #expect(throws: BundleError.unknownEvent("walk the dog", suggestions: [])) { try store.event(matching: "walk the dog") }
    }

    @Test func addingATodoRefusesANearDuplicateEventUnlessAsked() throws {
        let store = try freshStore()
        try store.addTodo("a", event: "go to Eastern branch", preposition: .before)
        #expect(throws: BundleError.similarEvent("go to Eastern brunch", existing: "go to Eastern branch")) {
            try store.addTodo("b", event: "go to Eastern brunch", preposition: .before)
        }
        try store.addTodo("b", event: "go to Eastern brunch", preposition: .before, allowNewEvent: true)
        #expect(try store.events().count == 2)
    }

    @Test func renameKeepsTheOldPhraseAsAnAliasAndMergeMovesEverything() throws {
        let store = try freshStore()
        try store.addTodo("sign", event: "eastern", preposition: .before)
        try store.renameEvent("eastern", to: "go to Eastern branch")
        #expect(try store.event(matching: "eastern").name == "go to Eastern branch")
        try store.addTodo("badge", event: "visit the east office", preposition: .after)
        let merged = try store.mergeEvent("visit the east office", into: "go to Eastern branch")
        #expect(Set(merged.aliases) == ["eastern", "visit the east office"])
        #expect(try store.todos(event: "go to Eastern branch").map(\.text) == ["sign", "badge"])
        #expect(try store.events().count == 1)
        #expect(throws: BundleError.duplicateEvent("Eastern")) { try store.addEvent("Eastern") }
    }

    @Test func archivedEventsAreHiddenButKept() throws {
        let store = try freshStore()
        try store.addEvent("old office")
        try store.archiveEvent("old office")
        #expect(try store.events().isEmpty)
        #expect(try store.events(includeArchived: true).map(\.isArchived) == [true])
        try store.archiveEvent("old office", archived: false)
        #expect(try store.events().count == 1)
    }

    @Test(arguments: ["", "   ", "a\nb", String(repeating: "e", count: 201)])
    func badEventPhrasesAreRefused(phrase: String) throws {
        let store = try freshStore()
        #expect {
            try store.addTodo("x", event: phrase, preposition: .before)
        } throws: { error in
            if case .invalidText = error as? BundleError { return true }
            return false
        }
        #expect(try store.todos(includeFinished: true).isEmpty)
    }
}
