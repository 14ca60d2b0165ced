import Foundation
import SuiteMarkup
import SuiteStorage

/// Writing quotes out: Suite JSON (`"schema": "suite-quotes/1"`, which import reads back),
/// plain text and Markdown for sharing.
public enum QuoteExport {
    /// The schema name of Suite's quote files.
    public static let schema = "suite-quotes/1"

    /// Suite JSON: `{"quotes": [...], "schema": "suite-quotes/1"}`, one quote per line, keys sorted.
    public static func json(_ quotes: [Quote]) -> Data {
        var data = jsonStart
        for (index, quote) in quotes.enumerated() { data += jsonItem(quote, first: index == 0) }
        return data + jsonEnd
    }

    /// The start of Suite JSON written quote by quote: ``jsonStart``, ``jsonItem(_:first:)`` for
    /// each quote, ``jsonEnd``.
    public static let jsonStart = Data("{\"quotes\":[".utf8)

    /// The end of Suite JSON written quote by quote.
    public static let jsonEnd = Data("\n],\"schema\":\(JSONText.string(schema))}\n".utf8)

    /// One quote of Suite JSON, on a line of its own (`first`: no comma before it).
    public static func jsonItem(_ quote: Quote, first: Bool) -> Data {
        let item = JSONText.object([
            ("text", JSONText.string(quote.text)), ("source", quote.source.map { JSONText.string($0.name) }),
            ("kind", quote.source.map { JSONText.string($0.kind.rawValue) }), ("citation", quote.citation.map(JSONText.string)),
            ("categories", JSONText.array(quote.categories)), ("personal", quote.isPersonal ? "true" : "false"),
            ("addedAt", JSONText.string(ISOTime.string(quote.addedAt))),
        ])
        return Data(((first ? "\n" : ",\n") + item).utf8)
    }

    /// Plain text, fortune style: quotes separated by `%` lines, attributions as `-- Source`.
    /// A line of a quote that would read as a separator (`%`, or spaces and `%`) gets one more
    /// leading space, which the fortune importer takes off again, so every quote comes back whole.
    public static func text(_ quotes: [Quote]) -> String {
        quotes.enumerated().map { textItem($1, first: $0 == 0) }.joined()
    }

    /// One quote of the fortune-style text, with the separator before it unless `first`, and its
    /// line break.
    public static func textItem(_ quote: Quote, first: Bool) -> String {
        var lines = Markup.plain(quote.text).split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in FortuneEscape.isSeparatorLike(line) ? " " + line : String(line) }
            .joined(separator: "\n")
        if let attribution = attribution(quote) { lines += "\n\t\t-- \(Markup.plain(attribution).replacingOccurrences(of: "\n", with: " "))" }
        return (first ? "" : "%\n") + lines + "\n"
    }

    /// Markdown: one block quote per quote, attribution below.
    public static func markdown(_ quotes: [Quote], title: String) -> String {
        markdownStart(title: title) + quotes.map(markdownItem).joined()
    }

    /// The title of a Markdown export written quote by quote (then ``markdownItem(_:)`` for each).
    public static func markdownStart(title: String) -> String {
        "# " + Markup.markdownLine(title) + "\n\n"
    }

    /// One quote as a Markdown block quote, followed by a blank line.
    public static func markdownItem(_ quote: Quote) -> String {
        // Quotes are literal text: nothing in one can become a heading, fence, link or HTML.
        var lines = Markup.markdownText(quote.text, prefix: "> ")
        if let attribution = attribution(quote) { lines += [">", "> — " + Markup.markdownLine(attribution)] }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// "Source, "Citation"", or nil.
    /// The quote as a speech engine should read it: its words with runs of spaces, tabs and
    /// line breaks as single spaces (a fortune's layout means nothing aloud), then who said it.
    public static func spokenText(_ quote: Quote) -> String {
        var text = quote.text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        if let attribution = attribution(quote) {
            if let last = text.last, !".!?…\"”".contains(last) { text += "." }
            text += "\n\n" + attribution + "."
        }
        return text
    }

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
