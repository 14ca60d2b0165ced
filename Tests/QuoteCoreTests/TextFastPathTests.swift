import Foundation
import Testing
@testable import QuoteCore

/// The import's text helpers work on bytes and scalars for speed; each must agree with the plain
/// Foundation or Character-based definition it replaces, on random and tricky text.
@Suite struct TextFastPathTests {
    static let alphabet: [Unicode.Scalar] = [
        "a", "B", "z", " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "%", "-", "\u{8}", "\u{1}", "\u{7F}", "\u{85}", "\u{9F}",
        "\u{A0}", "\u{2003}", "\u{2028}", "\u{2029}", "\u{3000}", "é", "É", "ß", "İ", "\u{301}", "😀", "ﬀ",
    ]

    /// Deterministic pseudo-random strings over `alphabet` (ASCII-only ones included).
    static func samples(count: Int = 3_000) -> [String] {
        var state: UInt64 = 0x5EED
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        return (0..<count).map { index in
            let length = Int(next() % 12)
            let pool = index % 2 == 0 ? Array(alphabet.prefix(11)) : alphabet
            return String(String.UnicodeScalarView((0..<length).map { _ in pool[Int(next() % UInt64(pool.count))] }))
        } + ["", " ", "\r\n", "a\r\nb", "  Hello   World  ", "\tx\u{0B}y\u{0C}z\r"]
    }

    @Test func nameKeyMatchesTheCharacterDefinition() {
        for text in Self.samples() {
            let reference = text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            #expect(QuoteStore.nameKey(text) == reference, "\(Array(text.unicodeScalars))")
        }
    }

    @Test func trailingSpaceMatchesTheRegularExpression() {
        for text in Self.samples() where !text.unicodeScalars.contains("\n") {
            let reference = text.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            #expect(FortuneParser.trimmingTrailingSpace(text) == reference, "\(Array(text.unicodeScalars))")
        }
    }

    @Test func blankMatchesFoundation() {
        for text in Self.samples() {
            #expect(FortuneParser.isBlank(text) == text.trimmingCharacters(in: .whitespaces).isEmpty, "\(Array(text.unicodeScalars))")
        }
    }

    @Test func aFortuneFileWithCRLFLineEndingsSplitsIntoItsQuotes() throws {
        let data = Data("First one.\r\n%\r\nSecond one,\r\nover two lines.   \r\n\t\t-- Somebody\r\n%\r\n".utf8)
        let parsed = try FortuneParser.parse(data, category: "test", path: "crlf")
        #expect(parsed.quotes.map(\.text) == ["First one.", "Second one,\nover two lines."])
        #expect(parsed.quotes.map(\.source) == [nil, "Somebody"])
    }
}
