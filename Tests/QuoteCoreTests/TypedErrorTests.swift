import Foundation
import Testing
@testable import QuoteCore

@Suite struct TypedErrorTests {
    @Test func notFoundErrorsCarryTheTypedID() throws {
        let store = try freshStore()
        try store.installStarterCollection()
        let missing: Quote.ID = 999
        #expect {
            try store.quote(missing)
        } throws: { error in
            guard case .quoteNotFound(let id) = error as? QuoteError else { return false }
            return id == missing && id.rawValue == 999
        }
        let note = try store.addNote("Mine.", on: 1, user: "ada")
        #expect(throws: QuoteError.noteNotFound(note.id)) { try store.editNote(note.id, text: "Not yours.", user: "bob") }
        #expect(throws: QuoteError.quoteNotFound(missing)) { try store.similar(to: missing) }
        #expect(throws: QuoteError.quoteNotFound(missing)) { try store.notes(on: missing, user: "ada") }
    }

    @Test(arguments: [
        ("", FieldName.quoteText, TextProblem.empty),
        (String(repeating: "x", count: 20_001), .quoteText, .tooLong(length: 20_001, limit: 20_000, bytes: true)),
        ("bell\u{7}", .quoteText, .controlCharacter(7)),
    ])
    func invalidTextCarriesTheFieldAndTheProblem(text: String, field: FieldName, problem: TextProblem) throws {
        let store = try freshStore()
        #expect(throws: QuoteError.invalidText(InvalidText(field: field, problem: problem))) { try store.add(text) }
    }

    @Test func everyFieldIsNamed() throws {
        let store = try freshStore()
        let quote = try store.add("Fine words.")
        #expect(throws: QuoteError.invalidText(InvalidText(field: .quoteSource, problem: .lineBreak))) { try store.add("x", source: "A\nB") }
        #expect(throws: QuoteError.invalidText(InvalidText(field: .quoteCategory, problem: .empty))) { try store.add("x", categories: [" "]) }
        #expect(throws: QuoteError.invalidText(InvalidText(field: .quoteNote, problem: .empty))) { try store.addNote("", on: quote.id, user: "ada") }
        #expect(throws: QuoteError.invalidText(InvalidText(field: .quoteUserName, problem: .directionalControl(0x202E)))) {
            try store.favorite(quote.id, user: "ada\u{202E}")
        }
        #expect(InvalidText(field: .quoteText, problem: .empty).description == "the quote is empty")
    }

    @Test func aDuplicateNamesTheQuoteItDuplicates() throws {
        let store = try freshStore()
        let first = try store.add("Stay hungry.", source: "Steve Jobs")
        let second = try store.add("Stay foolish.", source: "Steve Jobs")
        #expect(throws: QuoteError.duplicateQuote(existing: first.id, edited: nil)) { try store.add("stay   HUNGRY.", source: "steve jobs") }
        #expect(throws: QuoteError.duplicateQuote(existing: first.id, edited: second.id)) { try store.editQuote(second.id, text: "Stay hungry.") }
        #expect(QuoteError.duplicateQuote(existing: first.id, edited: nil).description == "this quote is already in the collection")
    }

    @Test func noQuotesSaysWhyAndForWhichFilter() throws {
        let store = try freshStore()
        #expect(throws: QuoteError.noQuotes(.emptyCollection)) { try store.quoteOfTheDay(year: 2026, month: 1, day: 1) }
        try store.installStarterCollection()
        #expect(throws: QuoteError.noQuotes(.unknownCategory("poetry"))) { try store.random(QuoteFilter(category: "poetry"), user: "ada") }
        #expect(throws: QuoteError.noQuotes(.unknownSource("Nobody"))) { try store.browse(QuoteFilter(source: "Nobody"), user: "ada") }
        let mine = QuoteFilter(category: "work", personalOnly: true)
        #expect(throws: QuoteError.noQuotes(.noMatch(mine))) { try store.random(mine, user: "ada") }
    }

    @Test func scheduleAndSearchProblemsAreValues() throws {
        let store = try freshStore()
        try store.installStarterCollection()
        #expect(throws: QuoteError.invalidSchedule(.notATimeOfDay(hour: 25, minute: 0))) { try LocalTime.parse("25:00") }
        #expect(throws: QuoteError.invalidSchedule(.countOutOfRange(0, limit: 96))) { try schedule("0 between 09:00-10:00") }
        #expect(throws: QuoteError.invalidSchedule(.everyTimeQuiet([try TimeRange.parse("08:00-10:00")]))) { try schedule("09:00", quiet: ["08:00-10:00"]) }
        #expect(throws: QuoteError.invalidQuery(.noWords(query: "\"*\""))) { try store.search("\"*\"", user: "ada") }
        #expect(throws: QuoteError.invalidQuery(.tooManyWords(count: 33, limit: 32))) {
            try store.search((0..<33).map { "word\($0)" }.joined(separator: " "), user: "ada")
        }
    }

    @Test func aScheduleForACategoryTheStoreDoesNotHaveIsRefused() throws {
        let store = try freshStore()
        try store.installStarterCollection()
        let poetry = try Schedule(times: .fixed([LocalTime(hour: 9, minute: 0)]), timeZoneIdentifier: "UTC", category: "Poetry")
        #expect(throws: QuoteError.invalidSchedule(.unknownCategory("Poetry"))) { try store.setSchedule(poetry, user: "ada") }
        #expect(try store.schedule(user: "ada") == nil)
        // Categories match as filters do: case and runs of white space do not matter.
        let work = try Schedule(times: .fixed([LocalTime(hour: 9, minute: 0)]), timeZoneIdentifier: "UTC", category: "WORK")
        try store.setSchedule(work, user: "ada")
        #expect(try store.schedule(user: "ada") == work)
    }

    @Test func noErrorSpeaksOfCommandsOrOptions() throws {
        let url = URL(fileURLWithPath: "quotes.txt")
        let errors: [QuoteError] = [
            .quoteNotFound(1), .noteNotFound(2), .invalidText(InvalidText(field: .quoteText, problem: .empty)),
            .duplicateQuote(existing: 1, edited: nil), .duplicateQuote(existing: 1, edited: 2),
            .invalidQuery(.noWords(query: "*")), .invalidQuery(.tooManyWords(count: 40, limit: 32)),
            .invalidSchedule(.unknownTimeZone("Mars/Base")), .invalidSchedule(.unknownCategory("x")), .invalidSchedule(.unreadableTimes("x")),
            .noQuotes(.emptyCollection), .noQuotes(.unknownCategory("x")), .noQuotes(.unknownSource("x")), .noQuotes(.noMatch(QuoteFilter())),
            .unknownImportFormat(.unrecognised(url)), .unknownImportFormat(.notRegularFile(url)), .unknownImportFormat(.unreadable(url)),
            .unknownImportFormat(.mixed([.csv, .json])),
        ]
        for error in errors {
            #expect(!error.description.contains("suite "), "\(error)")
            #expect(!error.description.contains("--"), "\(error)")
            #expect(!error.description.isEmpty)
        }
    }
}
