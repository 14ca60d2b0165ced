import Foundation
import Testing
@testable import QuoteCore

/// The store tells the format of files to import from their names and first bytes (the CLI only
/// reports what it cannot tell).
@Suite struct ImportFormatDetectionTests {
    @Test(arguments: [
        ("quotes.json", "not even JSON", QuoteImportFormat.json),
        ("quotes.CSV", "a line", .csv),
        ("export.txt", "  \n[{\"content\": \"x\"}]", .json),
        ("export", "\u{FEFF}{\"schema\": \"suite-quotes/1\", \"quotes\": []}", .json),
        ("fortunes", "One.\n%\nTwo.\n", .fortune),
        ("windows-fortunes", "One.\r\n%\r\nTwo.\r\n", .fortune),
        ("list.txt", "Quote,Author,Tags\nStay hungry.,Steve Jobs,life\n", .csv),
        ("list.txt", "author,text\nSteve Jobs,Stay hungry.\n", .csv),
    ])
    func aFileIsToldByItsNameOrFirstBytes(name: String, content: String, expected: QuoteImportFormat) throws {
        let url = try temporaryFile(name, Data(content.utf8))
        #expect(try QuoteImportFormat.detect([url]) == expected)
    }

    @Test func aFolderHoldsFortuneFiles() throws {
        let url = try temporaryFile("fortunes", Data("One.\n%\nTwo.\n".utf8))
        #expect(try QuoteImportFormat.detect([url.deletingLastPathComponent()]) == .fortune)
        #expect(try QuoteImportFormat.detect([url.deletingLastPathComponent(), url]) == .fortune)
    }

    @Test(arguments: ["just words, no header\n", "", "Stay hungry.,Steve Jobs\n"])
    func aFileThatShowsNoFormatIsNamed(content: String) throws {
        let url = try temporaryFile("quotes.txt", Data(content.utf8))
        #expect(throws: QuoteError.unknownImportFormat(.unrecognised(url))) { try QuoteImportFormat.detect([url]) }
    }

    @Test func filesInDifferentFormatsAreRefusedWithTheirFormats() throws {
        let json = try temporaryFile("a.json", Data("[]".utf8))
        let csv = try temporaryFile("b.csv", Data("text\nx\n".utf8))
        let fortune = try temporaryFile("c", Data("x\n%\ny\n".utf8))
        #expect(throws: QuoteError.unknownImportFormat(.mixed([.csv, .fortune, .json]))) {
            try QuoteImportFormat.detect([json, csv, fortune])
        }
        #expect(throws: QuoteError.unknownImportFormat(.mixed([]))) { try QuoteImportFormat.detect([]) }
    }

    @Test func aFIFOIsNotReadToTellItsFormat() throws {
        let folder = try temporaryFile("x", Data()).deletingLastPathComponent()
        let fifo = folder.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Opening a FIFO for reading would block until a writer came: it must not be opened at all.
        #expect(throws: QuoteError.unknownImportFormat(.notRegularFile(fifo))) { try QuoteImportFormat.detect([fifo]) }
    }

    @Test func aMissingFileIsSaidAsTheImportWouldSayIt() throws {
        let url = URL(fileURLWithPath: "/nonexistent/suite/quotes.csv")
        #expect(throws: QuoteError.malformedImport(file: url.path, line: nil, reason: "no such file")) { try QuoteImportFormat.detect([url]) }
    }

    @Test func theDetectedFormatImportsTheFile() throws {
        let url = try temporaryFile("mine.txt", Data("text,author,category\nStay hungry.,Steve Jobs,life\n".utf8))
        let format = try QuoteImportFormat.detect([url])
        let store = try freshStore()
        let summary = try store.importFiles([url], format: format)
        #expect(summary.imported == 1)
    }
}
