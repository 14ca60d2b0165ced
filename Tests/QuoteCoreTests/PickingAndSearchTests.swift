import Foundation
import Testing
@testable import QuoteCore

@Suite struct ShuffleBagTests {
    func store(count: Int) throws -> (QuoteStore, URL) {
        let url = freshStoreURL()
        let store = try QuoteStore(url: url)
        let lines = (1...count).map { "Quote number \($0) says something,Author \($0 % 7),\($0 % 3 == 0 ? "thirds" : "others")" }
        try store.importData(Data(lines.joined(separator: "\n").utf8), name: "gen.csv", format: .csv)
        return (store, url)
    }

    @Test(arguments: [1, 2, 3, 10, 37, 64, 100])
    func nPicksOverNQuotesShowEachExactlyOnce(count: Int) throws {
        let (store, _) = try store(count: count)
        let picks = try (0..<count).map { _ in try store.random(user: "ada").id }
        #expect(Set(picks).count == count)
    }

    @Test func aFilteredBagShowsEachMatchingQuoteOnceAndNothingElse() throws {
        let (store, _) = try store(count: 60)
        let filter = QuoteFilter(category: "thirds")
        let picks = try (0..<20).map { _ in try store.random(filter, user: "ada") }
        #expect(Set(picks.map(\.id)).count == 20)
        #expect(picks.allSatisfy { $0.categories == ["thirds"] })
    }

    @Test func theBagSurvivesReopeningTheStore() throws {
        let (store, url) = try store(count: 30)
        var seen = Set(try (0..<12).map { _ in try store.random(user: "ada").id })
        let reopened = try QuoteStore(url: url)
        seen.formUnion(try (0..<18).map { _ in try reopened.random(user: "ada").id })
        #expect(seen.count == 30)
    }

    @Test func aNewRoundDoesNotStartWithTheLastQuote() throws {
        let (store, _) = try store(count: 5)
        for _ in 0..<40 {
            let round = try (0..<5).map { _ in try store.random(user: "bob").id }
            #expect(Set(round).count == 5)
            let next = try store.random(user: "bob").id
            #expect(next != round.last)
            _ = try (0..<4).map { _ in try store.random(user: "bob").id }
        }
    }

    @Test func usersHaveTheirOwnBagsAndFavouritesCountAcrossUsers() throws {
        let (store, _) = try store(count: 10)
        try store.favorite(3, user: "ada")
        try store.favorite(3, user: "bob")
        try store.favorite(5, user: "bob")
        #expect(try store.top(limit: 2).map(\.id) == [3, 5])
        #expect(try store.quote(3).favoriteCount == 2)
        #expect(try store.random(QuoteFilter(favoritesOnly: true), user: "ada").id == 3)
        #expect(throws: QuoteError.noQuotes(.noMatch(QuoteFilter(favoritesOnly: true)))) { try store.random(QuoteFilter(favoritesOnly: true), user: "eve") }
        #expect(try store.favorite(3, user: "ada") == false)
    }

    @Test func quoteOfTheDayIsStableForADayAndChanges() throws {
        let (store, _) = try store(count: 200)
        let first = try store.quoteOfTheDay(year: 2026, month: 11, day: 21)
        #expect(try store.quoteOfTheDay(year: 2026, month: 11, day: 21) == first)
        let week = try (1...7).map { try store.quoteOfTheDay(year: 2026, month: 12, day: $0).id }
        #expect(Set(week).count > 4)
    }

    @Test func emptyStoresAndUnknownIds() throws {
        let store = try freshStore()
        #expect(throws: QuoteError.noQuotes(.emptyCollection)) { try store.random(user: "ada") }
        #expect(throws: QuoteError.quoteNotFound(9)) { try store.quote(9) }
        #expect(throws: QuoteError.quoteNotFound(9)) { try store.favorite(9, user: "ada") }
        #expect(throws: QuoteError.quoteNotFound(9)) { try store.addNote("x", on: 9, user: "ada") }
        #expect(throws: QuoteError.noteNotFound(4)) { try store.deleteNote(4, user: "ada") }
    }

    @Test func notesBelongToTheirUser() throws {
        let (store, _) = try store(count: 3)
        let note = try store.addNote("Read before exams", on: 2, user: "ada")
        #expect(throws: QuoteError.noteNotFound(note.id)) { try store.editNote(note.id, text: "x", user: "bob") }
        let edited = try store.editNote(note.id, text: "Read before every exam", user: "ada")
        #expect(edited.text == "Read before every exam")
        #expect(try store.notes(user: "ada").map(\.text) == ["Read before every exam"])
        #expect(try store.notes(user: "bob").isEmpty)
        #expect(throws: QuoteError.invalidText(InvalidText(field: .quoteNote, problem: .empty))) { try store.addNote("  ", on: 2, user: "ada") }
        try store.deleteNote(note.id, user: "ada")
        #expect(try store.notes(on: 2, user: "ada").isEmpty)
    }

    @Test(arguments: ["", "   \n", String(repeating: "x", count: 20_001), "bell\u{7}"])
    func addRefusesBadText(text: String) throws {
        let store = try freshStore()
        #expect(throws: (any Error).self) { try store.add(text) }
        #expect(try store.count() == 0)
    }
}

@Suite struct SearchTests {
    func store() throws -> QuoteStore {
        let store = try freshStore()
        let csv = """
            "The exact words to be or not to be, that is the question.",Shakespeare,drama
            "Be what you want to be, not what others want.",Someone,advice
            "Not to be outdone, he tried to be first.",Other,advice
            "Imagination is more important than knowledge.",Albert Einstein,science
            "The imaginary friend imagined an image.",Nobody,fiction
            "Love all, trust a few, do wrong to none.",Shakespeare,drama
            "Ok so go.",Short,misc
            """
        try store.importData(Data(csv.utf8), name: "s.csv", format: .csv)
        return store
    }

    @Test func theExactPhraseRanksFirst() throws {
        let hits = try store().search("to be or not to be", user: "u")
        #expect(hits.first?.quote.source?.name == "Shakespeare")
        let quoted = try store().search("\"not to be\"", user: "u")
        #expect(Set(quoted.map { $0.quote.source?.name }) == ["Shakespeare", "Other"])
    }

    @Test func moreOccurrencesRankFirstThenTheOrderAdded() throws {
        let store = try freshStore()
        let csv = """
            "Love is patient, love is kind, and a much longer sentence follows it here.",Long,x
            "Love.",Short,x
            "All you need is love.",Middle,x
            "Nothing to see.",None,x
            """
        try store.importData(Data(csv.utf8), name: "s.csv", format: .csv)
        let hits = try store.search("love", user: "u")
        #expect(hits.map { $0.quote.source?.name } == ["Long", "Short", "Middle"])
        #expect(hits[0].rank! < hits[1].rank! && hits[1].rank == hits[2].rank)
    }

    @Test func prefixesAndCategoryFilters() throws {
        let store = try store()
        #expect(Set(try store.search("imag*", user: "u").map { $0.quote.source?.name }) == ["Albert Einstein", "Nobody"])
        #expect(try store.search("imag*", filter: QuoteFilter(category: "science"), user: "u").map { $0.quote.source?.name } == ["Albert Einstein"])
        #expect(try store.search("be", filter: QuoteFilter(source: "someone"), user: "u").count == 1)
        #expect(throws: QuoteError.noQuotes(.unknownCategory("nope"))) {
            try store.search("be", filter: QuoteFilter(category: "nope"), user: "u")
        }
    }

    @Test func matchesAreHighlighted() throws {
        let hit = try store().search("knowledge", user: "u").first
        #expect(hit?.highlighted == "Imagination is more important than [knowledge].")
        let short = try store().search("ok", user: "u", markers: ("<", ">"))
        #expect(short.first?.highlighted == "<Ok> so go.")
        #expect(short.first?.rank == nil)
    }

    @Test(arguments: ["\"", "*", "AND(", "\"\"", ")))", "'; DROP TABLE quote; --", "NEAR(a b", "-", "^", "col:word", "a\"b"])
    func ftsAndSQLSyntaxIsEscapedOrRefusedNeverAnSQLError(query: String) throws {
        let store = try store()
        do {
            _ = try store.search(query, user: "u")
        } catch {
            guard case .invalidQuery = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(try store.count() == 7)
    }

    @Test func similarPrefersTheSameCategoryThenSharedRareWords() throws {
        let store = try store()
        let similar = try store.similar(to: 2, limit: 3)
        #expect(similar.first?.categories == ["advice"])
        #expect(!similar.contains { $0.id == 2 })
    }
}

/// Quotes added to the store join the shuffle bag being walked at once (an import of 15,000
/// fortunes no longer waits for the 35 starter quotes to run out), and still nothing repeats
/// within the round.
@Suite struct BagTakesInNewQuotesTests {
    static func newQuotes(_ count: Int, category: String) -> Data {
        Data((0..<count).map { "\"A new saying, number \($0).\",Someone,\(category)" }.joined(separator: "\n").utf8)
    }

    @Test(arguments: [QuoteFilter(), QuoteFilter(category: "work")])
    func newQuotesComeUpInTheCurrentRoundWithoutRepeats(filter: QuoteFilter) throws {
        let store = try freshStore()
        try store.importData(Self.newQuotes(30, category: "work"), name: "old.csv", format: .csv)
        var served: [Quote.ID] = []
        for _ in 0..<3 { served.append(try store.random(filter, user: "ada").id) }
        let oldTop = try store.allQuotes().map(\.id).max() ?? 0
        try store.importData(Self.newQuotes(1_000, category: "work").map { $0 } + Data("\n\"Quite another\",X,work\n".utf8),
                             name: "new.csv", format: .csv)
        let total = try store.count()
        // The rest of the round: every quote not served yet, exactly once.
        for _ in 0..<(total - served.count) { served.append(try store.random(filter, user: "ada").id) }
        #expect(Set(served).count == total, "a quote repeated within the round")
        // New quotes were among the first picks after the import, not only after the old ones.
        let firstAfter = served[3..<13]
        #expect(firstAfter.contains { $0 > oldTop }, "\(Array(firstAfter))")
        // And the next round starts over with everything.
        #expect(try store.random(filter, user: "ada").id > 0)
    }
}

/// `similar` on real text: the starter collection and Debian's `fortunes` (a category per file),
/// pairs checked by hand.
@Suite struct SimilarOnRealFortunesTests {
    static let haveAllFortunes = FileManager.default.fileExists(atPath: debianFortunes.appendingPathComponent("politics.dat").path)

    @Test(.enabled(if: haveAllFortunes || inCI, "needs Debian's fortunes package (.ci/run installs it)"))
    func similarStaysInTheCategoryAndRanksByRareSharedWords() throws {
        try #require(Self.haveAllFortunes, "CI must install Debian's fortunes package (.ci/run)")
        let store = try freshStore()
        #expect(try store.addStarterCollectionIfEmpty() > 30)
        try store.importFiles([debianFortunes], format: .fortune)
        let quotes = try store.allQuotes()
        func quote(_ text: String) throws -> Quote { try #require(quotes.first { $0.text.hasPrefix(text) }, "\(text)") }

        // A perseverance proverb shares only common words ("not", "only") with fortunes of
        // other files: every answer is another perseverance quote (before, some were
        // discipline, humorists, fortunes and linux ones).
        let slowly = try store.similar(to: quote("Be not afraid of growing slowly").id)
        #expect(slowly.count == 5)
        #expect(slowly.allSatisfy { $0.categories == ["perseverance"] }, "\(slowly.map(\.text))")

        // Samuel Johnson: the quote sharing the rare "strength" comes first, then the rest of
        // the category; "not" and "but" (in one quote of eight) count for nothing.
        let johnson = try store.similar(to: quote("Great works are performed not by strength").id)
        #expect(johnson.first?.text == "Patience and time do more than strength or passion.")
        #expect(johnson.allSatisfy { $0.categories == ["perseverance"] })

        // Cicero on persistence (politics): political leaders first.
        let cicero = try store.similar(to: quote("Persistence in one opinion has never been considered a merit in political").id, limit: 3)
        #expect(cicero.count == 3)
        for similar in cicero {
            #expect(similar.categories == ["politics"])
            #expect(similar.text.lowercased().contains("leader") || similar.text.lowercased().contains("politic"), "\(similar.text)")
        }

        // "Only through hard work and perseverance can one truly suffer." (work): hard work.
        let suffer = try store.similar(to: quote("Only through hard work and perseverance").id, limit: 3)
        #expect(suffer.first?.text == "The reward for working hard is more hard work.")
        #expect(suffer.allSatisfy { $0.categories == ["work"] && $0.text.lowercased().contains("hard") }, "\(suffer.map(\.text))")
    }
}

/// The highlighter's ASCII shortcut marks what the general rule (letters and numbers make words;
/// a word matches when lowercased and without diacritics) marks.
@Suite struct HighlightTests {
    static func reference(_ query: SearchQuery, _ text: String) -> String {
        var result = "", word = ""
        func flush() {
            guard !word.isEmpty else { return }
            let key = word.lowercased().folding(options: .diacriticInsensitive, locale: nil)
            result += query.exactTerms.contains(key) || query.prefixTerms.contains(where: { key.hasPrefix($0) }) ? "[" + word + "]" : word
            word = ""
        }
        for character in text {
            if character.isLetter || character.isNumber { word.append(character) } else { flush(); result.append(character) }
        }
        flush()
        return result
    }

    @Test func theShortcutMarksWhatTheRuleMarks() throws {
        let pieces = ["love", "Love", "LOVE", "lové", "Lövé", "loves", "café", "CAFE", "naïve", "x2", "2x", "ǅ", "ß", "l'amour",
                      " ", ", ", "\n", "\r\n", "—", "…", "@", "[", "`", "{", "~", "9", "é", "\u{301}", "e\u{301}", "日本", "🙂"]
        var generator = SystemRandomNumberGenerator()
        for query in ["love", "cafe", "naive lov*", "\"l amour\"", "x2 日本"] {
            let parsed = try SearchQuery(query)
            for _ in 0..<300 {
                let text = (0..<Int.random(in: 1...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
                #expect(parsed.highlight(text, open: "[", close: "]") == Self.reference(parsed, text), "\(query): \(text.debugDescription)")
            }
        }
    }
}
