import Foundation
import Testing
@testable import QuoteCore

let debianFortunes = URL(fileURLWithPath: "/usr/share/games/fortunes")
let haveFortunes = FileManager.default.fileExists(atPath: debianFortunes.appendingPathComponent("fortunes.dat").path)
let inCI = ProcessInfo.processInfo.environment["CI"] != nil

@Suite struct FortuneImportTests {
    /// The count strfile wrote in a `.dat` header (big-endian, second word).
    func datCount(_ url: URL) throws -> Int {
        let data = try Data(contentsOf: url)
        return Int(data[4]) << 24 | Int(data[5]) << 16 | Int(data[6]) << 8 | Int(data[7])
    }

    // Skipped, visibly, without Debian's fortunes; in CI it runs and fails without them.
    @Test(.enabled(if: haveFortunes || inCI, "Debian's fortunes-min is not installed (.ci/run installs it)"))
    func readsAsManyQuotesAsEachDatHeaderCounts() throws {
        try #require(haveFortunes, "CI must install fortunes-min (.ci/run)")
        let names = try FileManager.default.contentsOfDirectory(atPath: debianFortunes.path).filter { $0.hasSuffix(".dat") }
        #expect(!names.isEmpty)
        var total = 0
        for name in names.sorted() {
            let text = debianFortunes.appendingPathComponent(String(name.dropLast(4)))
            let store = try freshStore()
            let summary = try store.importFiles([text], format: .fortune)
            #expect(summary.read == (try datCount(debianFortunes.appendingPathComponent(name))), "\(name)")
            total += summary.read
        }
        // The whole folder at once: the same count, .dat and .u8 files left out.
        let store = try freshStore()
        let summary = try store.importFiles([debianFortunes], format: .fortune)
        #expect(summary.read == total)
        #expect(summary.imported + summary.duplicates + summary.skipped == summary.read)
        #expect(try store.count() == summary.imported)
        // Attributions become sources.
        let sources = try store.sources()
        #expect(sources.contains { $0.name == "Mark Twain" && $0.count > 5 })
        let hit = try store.search("kingdom horse", user: "t").first
        #expect(hit?.quote.source?.name == "Wm. Shakespeare")
        #expect(hit?.quote.citation == "Richard III")
        #expect(hit?.quote.text.contains("--") == false)
    }

    @Test func handlesLatin1OverstrikeAndAttributionForms() throws {
        let store = try freshStore()
        let summary = try store.importFiles([fixtures.appendingPathComponent("latin1-sample")], format: .fortune)
        #expect(summary == QuoteImportSummary(read: 4, imported: 4, duplicates: 0, skipped: 0))
        let quotes = try store.allQuotes()
        #expect(quotes.map(\.text) == [
            "Fortune favours the prepared mind.", "A line with underline and Bold text.", "Café au lait, naïve résumé.", "Two lines\nof text.",
        ])
        #expect(quotes[0].source?.name == "Louis Pasteur")
        #expect(quotes[2].source?.name == "Anonyme")
        #expect(quotes[2].citation == "Les Misérables")
        #expect(quotes.allSatisfy { $0.categories == ["latin1-sample"] })
        // Importing again: all duplicates.
        let again = try store.importFiles([fixtures.appendingPathComponent("latin1-sample")], format: .fortune)
        #expect(again.imported == 0 && again.duplicates == 4)
    }

    /// The bell some fortunes ring (Debian's `art`, `computers`) prints nothing and is dropped;
    /// any other control character still refuses the file.
    @Test func aFortuneBellIsDroppedOtherControlsRefused() throws {
        let store = try freshStore()
        let summary = try store.importData(Data("At the tone leave your name.\u{7}\n%\nRing\u{7}\u{7} twice\n%\n".utf8), name: "bells", format: .fortune)
        #expect(summary.imported == 2)
        #expect(try store.allQuotes().map(\.text) == ["At the tone leave your name.", "Ring twice"])
        #expect(throws: QuoteError.self) { try store.importData(Data("Escape \u{1B}[1m\n%\n".utf8), name: "escape", format: .fortune) }
        #expect(try store.count() == 2)
        // UTF-8 that was read as Latin-1 and written again is given back as written.
        try store.importData(Data("Ahead of our time [\u{E2}\u{88}\u{97}].\n%\n".utf8), name: "mojibake", format: .fortune)
        #expect(try store.allQuotes().map(\.text).contains("Ahead of our time [∗]."))
        // Three times over (Debian's `law`).
        try store.importData(Data("Here\u{C3}\u{A2}\u{C2}\u{80}\u{C2}\u{99}s the thing.\n%\n".utf8), name: "mojibake", format: .fortune)
        #expect(try store.allQuotes().map(\.text).contains("Here’s the thing."))
    }

    @Test func aBinaryFileIsMalformedAndNothingIsImported() throws {
        let good = fixtures.appendingPathComponent("latin1-sample")
        let bad = try temporaryFile("binary", Data("one\n%\ntwo\n".utf8) + Data([0, 1, 2]))
        let store = try freshStore()
        #expect(throws: QuoteError.malformedImport(file: bad.path, line: 4, reason: "a NUL byte: this is not a text file")) {
            try store.importFiles([good, bad], format: .fortune)
        }
        #expect(try store.count() == 0)
        #expect(try store.isEmpty())
        _ = try store.importData(Data("text\nOne line.\n".utf8), name: "y", format: .csv)
        #expect(try !store.isEmpty())
    }
}

@Suite struct JSONAndCSVImportTests {
    @Test func quotableJSONImportsWithTagsAndCountsDuplicates() throws {
        let store = try freshStore()
        let summary = try store.importFiles([fixtures.appendingPathComponent("quotable.json")], format: .json)
        #expect(summary == QuoteImportSummary(read: 4, imported: 3, duplicates: 1, skipped: 0))
        #expect(Set(try store.categories().map(\.name)) == ["work", "inspirational", "wisdom", "imagination"])
        #expect(try store.search("imagination", user: "t").first?.quote.source?.name == "Albert Einstein")
    }

    @Test func suiteJSONRoundTrips() throws {
        let store = try freshStore()
        try store.installStarterCollection()
        try store.add("Mine, all mine.", source: "Me", kind: .other, categories: ["personal"])
        let exported = QuoteExport.json(try store.allQuotes())
        let copy = try freshStore()
        let summary = try copy.importData(exported, name: "export.json", format: .json)
        #expect(summary.imported == StarterCollection.count + 1)
        let original = try store.allQuotes(), copied = try copy.allQuotes()
        #expect(copied.map(\.text) == original.map(\.text))
        #expect(copied.map { $0.source?.name } == original.map { $0.source?.name })
        #expect(copied.map { $0.source?.kind } == original.map { $0.source?.kind })
        #expect(copied.map(\.citation) == original.map(\.citation))
        #expect(copied.map(\.categories) == original.map(\.categories))
        #expect(copied.map(\.isPersonal) == original.map(\.isPersonal))
        #expect(QuoteExport.json(copied) == exported)
    }

    @Test func csvWithQuotingAndOptionalFields() throws {
        let store = try freshStore()
        let summary = try store.importFiles([fixtures.appendingPathComponent("sample.csv")], format: .csv)
        #expect(summary.imported == 3)
        let quotes = try store.allQuotes()
        #expect(quotes.map(\.text) == ["Stay hungry, stay foolish.", "He said \"hello\" and left.", "Simple line without quotes"])
        #expect(quotes[1].categories == ["dialogue", "humour"])
        #expect(quotes[2].source == nil)
    }

    static let malformed: [(QuoteImportFormat, String, Int?, String)] = [
        (.json, "not json", nil, "invalid JSON"),
        (.json, "{\"a\": 1}", nil, "expected an array of quotes"),
        (.json, "[{\"author\": \"x\"}]", nil, "item 1: no 'content' or 'text' string"),
        (.json, "[{\"content\": \"ok\"}, {\"content\": \"\"}]", nil, "item 2: the quote is empty"),
        (.json, "[{\"content\": \"ok\", \"tags\": \"work\"}]", nil, "'tags' is not a list of strings"),
        (.json, "[{\"content\": \"ok\", \"author\": 7}]", nil, "'author' is not a string"),
        (.json, "{\"schema\": \"suite-quotes/9\", \"quotes\": []}", nil, "schema is 'suite-quotes/9'"),
        (.csv, "text,author\n\"unclosed,x\n", 2, "never closed"),
        (.csv, "a,b,c,d\n", 1, "4 fields"),
        (.csv, "fine,x\nbad\"quote,y\n", 2, "a quote character inside an unquoted field"),
        (.csv, "ok\n\"tab\u{7}bell\"\n", 2, "control character"),
        // Every field of every format goes through the one text rule, named in the error.
        (.json, "[{\"content\": \"ok\", \"author\": \"Eve\\u001b]0;pwned\\u0007\"}]", nil, "item 1: the source holds the control character U+001B"),
        (.json, "[{\"content\": \"ok\", \"author\": \"Eve\\nsuite: forged\"}]", nil, "item 1: the source holds a line break"),
        (.json, "[{\"content\": \"ok\", \"tags\": [\"a\\u0000b\"]}]", nil, "item 1: the category holds the control character U+0000"),
        (.json, "[{\"content\": \"ok\", \"citation\": \"x\\u0007\"}]", nil, "item 1: the citation holds the control character U+0007"),
        (.json, "[{\"content\": \"ok\", \"category\": \"\(String(repeating: "c", count: 100_000))\"}]", nil, "item 1: the category is 100000 characters long"),
        (.json, "[{\"content\": \"ok\\uFFFE\"}]", nil, "item 1: the quote holds the noncharacter U+FFFE"),
        (.csv, "text,author,category\nok,\"Eve\u{1B}[2J\",x\n", 2, "the source holds the control character U+001B"),
        (.csv, "ok,Eve,\"cat\nnext\"\n", 1, "the category holds a line break"),
        (.csv, "ok,\"\(String(repeating: "a", count: 300))\"\n", 1, "the source is 300 characters long"),
        (.fortune, "Quiet.\n\t-- Eve\u{1B}]0;x\u{7}\n%\n", 1, "the source holds the control character U+001B"),
        (.fortune, "one\n%\nStart\u{1} of heading.\n%\n", 3, "the quote holds the control character U+0001"),
        // Impossible times are refused, not rolled over into another day.
        (.json, "[{\"content\": \"ok\", \"addedAt\": \"2026-02-30T10:00:00Z\"}]", nil, "item 1: '2026-02-30T10:00:00Z' is not a date"),
        (.json, "[{\"content\": \"ok\", \"dateAdded\": \"2026-02-30\"}]", nil, "is not a date"),
        (.json, "[{\"content\": \"ok\", \"addedAt\": \"99999-01-01T00:00:00Z\"}]", nil, "is not a date"),
        (.json, "[{\"content\": \"ok\", \"addedAt\": \"-0001-01-01T00:00:00Z\"}]", nil, "is not a date"),
        (.json, "[{\"content\": \"ok\", \"addedAt\": \"2026-01-01T24:00:00Z\"}]", nil, "is not a date"),
    ]

    @Test(arguments: malformed.indices)
    func malformedFilesImportNothingAndSayWhere(index: Int) throws {
        let (format, text, line, reason) = Self.malformed[index]
        let store = try freshStore()
        try store.installStarterCollection()
        let before = try store.count()
        #expect {
            try store.importData(Data(text.utf8), name: "input", format: format)
        } throws: { error in
            guard case .malformedImport(let file, let actualLine, let actualReason) = error as? QuoteError else { return false }
            return file == "input" && actualLine == line && actualReason.contains(reason)
        }
        #expect(try store.count() == before)
    }

    @Test func invalidUTF8InJSONOrCSVIsMalformed() throws {
        let store = try freshStore()
        // JSON says so for the document; CSV, read line by line, names the line (here the third,
        // after two good quotes, which are not imported either).
        #expect(throws: QuoteError.malformedImport(file: "x", line: nil, reason: "not valid UTF-8")) {
            try store.importData(Data([0x22, 0xFF, 0x22]), name: "x", format: .json)
        }
        #expect(throws: QuoteError.malformedImport(file: "x", line: 3, reason: "not valid UTF-8")) {
            try store.importData(Data("One.\nTwo.\n".utf8) + Data([0x22, 0xFF, 0x22]), name: "x", format: .csv)
        }
        #expect(try store.count() == 0)
        #expect(try store.isEmpty())
        _ = try store.importData(Data("text\nOne line.\n".utf8), name: "y", format: .csv)
        #expect(try !store.isEmpty())
    }

    @Test func lineEndingsOfEveryKindArriveAsLineFeeds() throws {
        let store = try freshStore()
        try store.importData(Data("\"first\r\nsecond\rthird\",Eve\r\n".utf8), name: "crlf.csv", format: .csv)
        try store.importData(Data("[{\"content\": \"a\\r\\nb\\rc\"}]".utf8), name: "cr.json", format: .json)
        let texts = try store.allQuotes().map(\.text)
        #expect(texts == ["first\nsecond\nthird", "a\nb\nc"])
        #expect(try store.add("x\ry\r\nz").text == "x\ny\nz")
    }

    @Test func aUserNameIsOneLineWithoutControlCharacters() throws {
        let store = try freshStore()
        try store.installStarterCollection()
        #expect(throws: QuoteError.invalidText(InvalidText(field: .quoteUserName, problem: .controlCharacter(0x1B)))) { try store.favorite(1, user: "eve\u{1B}[31m") }
        #expect(throws: QuoteError.invalidText(InvalidText(field: .quoteUserName, problem: .lineBreak))) { try store.random(user: "a\nb") }
        #expect(try store.favorites(user: "eve\u{1B}[31m").isEmpty)
    }
}

@Suite struct CSVHeaderTests {
    @Test(arguments: [
        "text,author,category\n", "\u{FEFF}text,author,category\n", "Quote,Author,Tags\n", "QUOTE, Source\n", "content\n", "\u{FEFF}Text,By,Topic\n",
    ])
    func aHeaderRowIsNotImportedAsAQuote(header: String) throws {
        let store = try freshStore()
        let summary = try store.importData(Data((header + "Stay hungry.,Steve Jobs,life\n").utf8), name: "q.csv", format: .csv)
        #expect(summary.imported == 1)
        #expect(try store.allQuotes().map(\.text) == ["Stay hungry."])
    }

    @Test func aHeaderNamesTheColumnsInAnyOrder() throws {
        let store = try freshStore()
        try store.importData(Data("author,category,text\nSteve Jobs,life,Stay hungry.\n".utf8), name: "q.csv", format: .csv)
        let quote = try #require(try store.allQuotes().first)
        #expect(quote.text == "Stay hungry." && quote.source?.name == "Steve Jobs" && quote.categories == ["life"])
        #expect(QuoteCSV.headerColumns(["text", "text"]) == nil)
        #expect(QuoteCSV.headerColumns(["author", "tags"]) == nil)
    }

    @Test func aFirstRowThatIsAQuoteIsKeptAndABOMIsNotText() throws {
        let store = try freshStore()
        try store.importData(Data("\u{FEFF}Text is what we write,Ada\n".utf8), name: "q.csv", format: .csv)
        #expect(try store.allQuotes().map(\.text) == ["Text is what we write"])
    }
}

/// CSV read record by record (the import streams it): the same records as reading it whole, for
/// any way the text is cut into chunks.
@Suite struct StreamingCSVTests {
    @Test(arguments: [1, 2, 3, 7, 64, 1 << 20])
    func recordsAreTheSameWhateverTheChunks(chunk: Int) throws {
        let text = "\u{FEFF}text,author,category\n\"Line one,\nline \"\"two\"\"\",Ann,a;b\r\nplain,Bob,\n\n\"\",,\nlast,\"Eve\"\n"
        var reader = QuoteCSV.Reader(LineStream(data: Data(text.utf8), chunkSize: chunk), path: "t.csv")
        var records: [[String]] = []
        var lines: [Int] = []
        while let (line, fields) = try reader.next() { records.append(fields); lines.append(line) }
        #expect(records == [["text", "author", "category"], ["Line one,\nline \"two\"", "Ann", "a;b"], ["plain", "Bob", ""], [""], ["", "", ""],
                            ["last", "Eve"]])
        #expect(lines == [1, 2, 4, 5, 6, 7])
    }

    @Test func aLateProblemImportsNothing() throws {
        let store = try QuoteStore.inMemory()
        let before = try store.count()
        let text = "text,author\n" + (1...1_000).map { "Quote number \($0),Author \($0 % 7)\n" }.joined() + "\"never closed,x\n"
        #expect(throws: QuoteError.malformedImport(file: "big.csv", line: 1_002, reason: "a quoted field is never closed")) {
            try store.importData(Data(text.utf8), name: "big.csv", format: .csv)
        }
        #expect(try store.count() == before)
        let summary = try store.importData(Data(text.dropLast(16).utf8), name: "big.csv", format: .csv)
        #expect(summary.imported == 1_000)
        #expect(try store.count() == before + 1_000)
    }
}
