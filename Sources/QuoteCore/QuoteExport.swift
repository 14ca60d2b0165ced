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
    public static func text(_ quotes: [Quote]) -> String {
        quotes.map { quote in
            var lines = quote.text
            if let attribution = attribution(quote) { lines += "\n\t\t-- \(attribution)" }
            return lines
        }.joined(separator: "\n%\n") + (quotes.isEmpty ? "" : "\n")
    }

    /// Markdown: one block quote per quote, attribution below.
    public static func markdown(_ quotes: [Quote], title: String) -> String {
        var lines = ["# \(title.replacingOccurrences(of: "<", with: "&lt;"))", ""]
        for quote in quotes {
            lines += quote.text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                "> " + String(line).replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            }
            if let attribution = attribution(quote) { lines += [">", "> — \(attribution.replacingOccurrences(of: "<", with: "&lt;"))"] }
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
