import Foundation
import SuiteStorage

/// Writing quotes out: Suite JSON (`"schema": "suite-quotes/1"`, which import reads back),
/// plain text and Markdown for sharing.
public enum QuoteExport {
    /// The schema name of Suite's quote files.
    public static let schema = "suite-quotes/1"

    struct File: Encodable {
        struct Item: Encodable {
            var text: String
            var source: String?
            var kind: String?
            var citation: String?
            var categories: [String]
            var personal: Bool
            var addedAt: String
        }
        var schema: String
        var quotes: [Item]
    }

    /// Suite JSON.
    public static func json(_ quotes: [Quote]) -> Data {
        let file = File(schema: schema, quotes: quotes.map {
            File.Item(text: $0.text, source: $0.source?.name, kind: $0.source?.kind.rawValue, citation: $0.citation,
                      categories: $0.categories, personal: $0.isPersonal,
                      addedAt: ISOTime.string($0.addedAt))
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(file)) ?? Data()) + Data("\n".utf8)
    }

    /// Plain text, fortune style: quotes separated by `%` lines, attributions as `-- Source`.
    /// A line of a quote that would read as a separator (`%`, or spaces and `%`) gets one more
    /// leading space, which the fortune importer takes off again, so every quote comes back whole.
    public static func text(_ quotes: [Quote]) -> String {
        quotes.map { quote in
            var lines = Markup.plain(quote.text).split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in FortuneEscape.isSeparatorLike(line) ? " " + line : String(line) }
                .joined(separator: "\n")
            if let attribution = attribution(quote) { lines += "\n\t\t-- \(Markup.plain(attribution).replacingOccurrences(of: "\n", with: " "))" }
            return lines
        }.joined(separator: "\n%\n") + (quotes.isEmpty ? "" : "\n")
    }

    /// Markdown: one block quote per quote, attribution below.
    public static func markdown(_ quotes: [Quote], title: String) -> String {
        var lines = ["# " + Markup.markdownLine(title), ""]
        for quote in quotes {
            // Quotes are literal text: nothing in one can become a heading, fence, link or HTML.
            lines += Markup.markdownText(quote.text, prefix: "> ")
            if let attribution = attribution(quote) { lines += [">", "> — " + Markup.markdownLine(attribution)] }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// "Source, "Citation"", or nil.
    public static func attribution(_ quote: Quote) -> String? {
        switch (quote.source?.name, quote.citation) {
        case (let name?, let citation?): return "\(name), \"\(citation)\""
        case (let name?, nil): return name
        case (nil, let citation?): return "\"\(citation)\""
        case (nil, nil): return nil
        }
    }
}

/// The one escape fortune-style text needs: quote lines that look like the `%` separator.
enum FortuneEscape {
    /// `%` after zero or more spaces: a separator when there are none, an escaped `%` line otherwise.
    static func isSeparatorLike<S: StringProtocol>(_ line: S) -> Bool {
        let bytes = Array(line.utf8)
        guard bytes.last == UInt8(ascii: "%") else { return false }
        return bytes.dropLast().allSatisfy { $0 == UInt8(ascii: " ") }
    }

    /// The line as written before ``QuoteExport/text(_:)`` escaped it.
    static func unescape(_ line: String) -> String {
        line.hasPrefix(" ") && isSeparatorLike(line) ? String(line.dropFirst()) : line
    }
}
