import Foundation
import GRDB
import SuiteStorage

extension QuoteStore {
    /// Full-text search: words (all must match), `"exact phrases"` and prefixes (`imag*`),
    /// ranked by the words' rarity and count (rarer words weigh more; quotes scoring the same in
    /// the order they were added), with quotes holding the whole query as typed first. A query of one or two
    /// letters matches inside words instead. Anything else in the query (FTS operators,
    /// punctuation, SQL) is treated as plain text.
    ///
    /// - Parameters:
    ///   - query: what to look for.
    ///   - filter: category, source, favourites.
    ///   - user: whose favourites.
    ///   - limit: at most this many hits.
    ///   - markers: put around each match in ``SearchHit/highlighted``.
    /// A term given twice counts once; more than 32 words once repeats are removed is refused
    /// (FTS5's work grows with every term: 800 repeated words took a minute).
    ///
    /// - Returns: the hits, best first.
    /// - Throws: ``QuoteError/invalidQuery(_:)`` when the query has nothing to search for, or
    ///   too many different words; ``QuoteError/noQuotes(_:)`` when the filter names a category or
    ///   source the store does not have.
    public func search(
        _ query: String, filter: QuoteFilter = QuoteFilter(), user: String, limit: Int = 20,
        markers: (open: String, close: String) = ("[", "]")
    ) throws(QuoteError) -> [SearchHit] {
        let parsed = try SearchQuery(query)
        return try read { db in
            let (clause, arguments) = try Self.filterClause(filter, user: user, db: db)
            if let fragment = parsed.substring {
                return try Self.substringSearch(fragment, clause: clause, arguments: arguments, limit: limit, markers: markers, db: db)
            }
            // Rank inside FTS5 first (only ids and ranks, no join, no highlight for every match),
            // then boost quotes holding the query as typed, then mark the matches of the few kept.
            let pool = parsed.wordCount > 1 ? max(limit * 10, 200) : limit
            let filtered = !clause.isEmpty
            let rows = try Row.fetchAll(db, sql: filtered ? """
                SELECT q.id, suite_rank(quote_fts) AS rank FROM quote_fts JOIN quote q ON q.id = quote_fts.rowid
                WHERE quote_fts MATCH ? \(clause) ORDER BY rank, q.id LIMIT ?
                """ : """
                SELECT rowid AS id, suite_rank(quote_fts) AS rank FROM quote_fts WHERE quote_fts MATCH ? ORDER BY rank, rowid LIMIT ?
                """, arguments: [parsed.match] + arguments + [pool])
            let quotes = Dictionary(uniqueKeysWithValues: try Self.loadQuotes(rows.map { $0["id"] }, db: db).map { ($0.id, $0) })
            let phrase = parsed.plain.lowercased()
            let ranked = rows.enumerated().compactMap { index, row -> (Quote, Double, Bool, Int)? in
                guard let quote = quotes[row["id"]] else { return nil }
                let exact = parsed.wordCount > 1 && Self.words(quote.text).joined(separator: " ").contains(phrase)
                return (quote, row["rank"], exact, index)
            }
            return ranked.sorted { ($0.2 ? 0 : 1, $0.3) < ($1.2 ? 0 : 1, $1.3) }.prefix(limit).map { quote, rank, _, _ in
                SearchHit(quote: quote, highlighted: parsed.highlight(quote.text, open: markers.open, close: markers.close), rank: rank)
            }
        }
    }

    static func substringSearch(
        _ fragment: String, clause: String, arguments: StatementArguments, limit: Int,
        markers: (open: String, close: String), db: Database
    ) throws -> [SearchHit] {
        let ids = try Int64.fetchAll(db, sql: "SELECT q.id FROM quote q WHERE instr(lower(q.text), ?) > 0 \(clause) ORDER BY q.id LIMIT ?",
                                     arguments: [fragment.lowercased()] + arguments + [limit])
        return try loadQuotes(ids, db: db).map { quote in
            var marked = ""
            var rest = Substring(quote.text)
            while let range = rest.range(of: fragment, options: [.caseInsensitive]) {
                marked += rest[..<range.lowerBound] + markers.open + rest[range] + markers.close
                rest = rest[range.upperBound...]
            }
            return SearchHit(quote: quote, highlighted: marked + rest, rank: nil)
        }
    }
}

/// A search as the user typed it, turned into a safe FTS5 query.
struct SearchQuery {
    /// At most this many different words (a phrase counts its words), so that a search's work
    /// stays bounded whatever is typed.
    static let maximumTerms = 32

    /// The FTS5 MATCH expression: every term a quoted string, prefixes with `*`.
    var match: String
    /// The words in order, for the exact-phrase boost.
    var plain: String
    /// Set for a query of one or two letters: matched inside words.
    var substring: String?
    /// How many words the query has.
    var wordCount: Int { plainWords.count }
    /// The words matched whole, and the prefixes.
    private var plainWords: [String] = []
    private(set) var exactTerms: Set<String> = []
    private(set) var prefixTerms: [String] = []

    /// Wraps every word of `text` that the query matches (as the FTS5 tokenizer would: ignoring
    /// case and diacritics) in `open` and `close`.
    func highlight(_ text: String, open: String, close: String) -> String {
        var result = ""
        var word = ""
        var wordIsASCII = true
        func flush() {
            guard !word.isEmpty else { return }
            // An ASCII word has no diacritics to fold (folding goes through NSString: most of a
            // search's time over long texts).
            let lower = word.lowercased()
            let key = wordIsASCII ? lower : lower.folding(options: .diacriticInsensitive, locale: nil)
            if exactTerms.contains(key) || prefixTerms.contains(where: { key.hasPrefix($0) }) {
                result += open + word + close
            } else {
                result += word
            }
            word = ""
            wordIsASCII = true
        }
        for character in text {
            let inWord: Bool
            if let ascii = character.asciiValue {
                // What isLetter and isNumber say of ASCII, without looking the properties up.
                inWord = (0x30...0x39).contains(ascii) || (0x61...0x7A).contains(ascii | 0x20)
            } else {
                inWord = character.isLetter || character.isNumber
                wordIsASCII = wordIsASCII && !inWord
            }
            if inWord { word.append(character) } else { flush(); result.append(character) }
        }
        flush()
        return result
    }

    init(_ text: String) throws(QuoteError) {
        var terms: [String] = []
        var words: [String] = []
        var phraseCount = 0, prefixCount = 0
        // Split into phrases ("…") and bare tokens.
        var pieces: [(String, Bool)] = []
        var current = ""
        var inPhrase = false
        for character in text {
            if character == "\"" {
                if !current.isEmpty { pieces.append((current, inPhrase)) }
                current = ""
                inPhrase.toggle()
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { pieces.append((current, inPhrase)) }
        for (piece, isPhrase) in pieces {
            if isPhrase {
                let phraseWords = QuoteStore.words(piece)
                guard !phraseWords.isEmpty else { continue }
                terms.append("\"" + phraseWords.joined(separator: " ") + "\"")
                words += phraseWords
                exactTerms.formUnion(phraseWords)
                phraseCount += 1
                continue
            }
            for token in piece.split(whereSeparator: { $0.isWhitespace }) {
                let isPrefix = token.hasSuffix("*")
                let tokenWords = QuoteStore.words(String(token))
                for (index, word) in tokenWords.enumerated() {
                    let prefix = isPrefix && index == tokenWords.count - 1
                    terms.append("\"\(word)\"" + (prefix ? "*" : ""))
                    words.append(word)
                    if prefix { prefixCount += 1; prefixTerms.append(word) } else { exactTerms.insert(word) }
                }
            }
        }
        guard !terms.isEmpty else { throw .invalidQuery(.noWords(query: text)) }
        // A term given twice adds nothing to an AND query but work: keep the first of each.
        var seenTerms: Set<String> = []
        terms = terms.filter { seenTerms.insert($0).inserted }
        let termWords = terms.reduce(0) { count, term in count + max(1, term.split(separator: " ").count) }
        guard termWords <= Self.maximumTerms else {
            throw .invalidQuery(.tooManyWords(count: termWords, limit: Self.maximumTerms))
        }
        match = terms.joined(separator: " ")
        plain = words.joined(separator: " ")
        plainWords = words
        if terms.count == 1, phraseCount == 0, prefixCount == 0, let word = words.first, word.count <= 2 {
            substring = text.trimmingCharacters(in: .whitespaces).count <= 2 ? text.trimmingCharacters(in: .whitespaces) : word
        }
    }
}
