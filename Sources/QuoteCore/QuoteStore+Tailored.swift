import Foundation
import GRDB
import SuiteStorage

extension QuoteStore {
    // MARK: - Skipped quotes

    /// Marks a quote as one the user skipped: tailored picks (``tailoredRandom(_:user:)``)
    /// never offer it again and weigh its categories and source less.
    ///
    /// - Returns: false when it already was skipped.
    /// - Throws: ``QuoteError/quoteNotFound(_:)``, ``QuoteError/invalidText(_:)`` for the user name.
    @discardableResult
    public func skip(_ id: Quote.ID, user: String) throws(QuoteError) -> Bool {
        try mark(id, user: user, in: .skipped)
    }

    /// Takes a quote off the user's skipped ones.
    ///
    /// - Returns: false when it was not skipped.
    /// - Throws: ``QuoteError/quoteNotFound(_:)``.
    @discardableResult
    public func unskip(_ id: Quote.ID, user: String) throws(QuoteError) -> Bool {
        try unmark(id, user: user, in: .skipped)
    }

    /// The quotes the user skipped, newest first.
    public func skipped(user: String) throws(QuoteError) -> [Quote] {
        try marked(user: user, in: .skipped)
    }

    // MARK: - Tailored picks

    /// A random quote tailored to the user: quotes like their favourites and the quotes they
    /// wrote notes on (the same categories and sources, the rarer words those share) are
    /// preferred, the categories and sources of skipped quotes weigh less, and skipped quotes,
    /// favourites and the latest tailored picks are not offered. The pick is random among the best
    /// matches, weighted by how well each matches. With no favourites or notes yet it is
    /// ``random(_:user:)``.
    ///
    /// - Throws: as ``random(_:user:)``.
    public func tailoredRandom(_ filter: QuoteFilter = QuoteFilter(), user: String) throws(QuoteError) -> Quote {
        let user = try Self.validated(name: user, .quoteUserName)
        // What was picked lately is not user data, as with shuffle bags.
        return try lightWrite { db in
            let id = try Self.nextTailored(filter, user: user, db: db)
            return try Self.loadQuote(Quote.ID(id), db: db)
        }
    }

    /// How many recent tailored picks are not offered again.
    static let tailoredMemory = 50

    static func nextTailored(_ filter: QuoteFilter, user: String, db: Database) throws -> Int64 {
        let liked = try Int64.fetchAll(db, sql: "SELECT quote_id FROM favorite WHERE user = ? UNION SELECT quote_id FROM note WHERE user = ?",
                                       arguments: [user, user])
        guard !liked.isEmpty else { return try nextFromBag(filter, user: user, db: db) }
        let skipped = Set(try Int64.fetchAll(db, sql: "SELECT quote_id FROM skipped WHERE user = ?", arguments: [user]))
        let memoryKey = "tailored\u{1F}" + filter.key
        let excluded = Set(liked).union(skipped)
        let taste = try Taste(liked: liked, skipped: Array(skipped), db: db)
        var candidates = try taste.candidates(db: db).filter { !excluded.contains($0) }
        if !candidates.isEmpty {
            // The filter (category, source, personal) applies to tailored picks as to any.
            let (clause, arguments) = try filterClause(filter, user: user, db: db)
            candidates = try Int64.fetchAll(db, sql: "SELECT q.id FROM quote q WHERE q.id IN (SELECT value FROM json_each(?)) \(clause)",
                                            arguments: ["[" + candidates.map(String.init).joined(separator: ",") + "]"] + arguments)
        }
        var scored = try taste.score(candidates, db: db).filter { $0.score > 0 }
        // The latest picks are not offered again: up to the last fifty, and never more than half
        // of the good matches, so that a small liked category still comes up.
        let memory = min(tailoredMemory, scored.count / 2)
        if memory > 0 {
            let recent = Set(try Int64.fetchAll(db, sql: "SELECT quote_id FROM bag WHERE user = ? AND filter = ? ORDER BY position DESC LIMIT ?",
                                                arguments: [user, memoryKey, memory]))
            scored.removeAll { recent.contains($0.id) }
        }
        let best = scored.sorted { ($0.score, $1.id) > ($1.score, $0.id) }.prefix(25)
        guard !best.isEmpty else {
            // Nothing matches the taste: the shuffle bag's pick, skipped quotes passed over.
            var pick = try nextFromBag(filter, user: user, db: db)
            for _ in 0..<10 where skipped.contains(pick) { pick = try nextFromBag(filter, user: user, db: db) }
            return pick
        }
        var draw = Double.random(in: 0..<best.reduce(0) { $0 + $1.score })
        var pick = best[best.startIndex].id
        for candidate in best {
            draw -= candidate.score
            if draw < 0 { pick = candidate.id; break }
        }
        let next = (try Int64.fetchOne(db, sql: "SELECT max(position) FROM bag WHERE user = ? AND filter = ?", arguments: [user, memoryKey]) ?? 0) + 1
        try db.execute(sql: "INSERT INTO bag (user, filter, position, quote_id) VALUES (?, ?, ?, ?)", arguments: [user, memoryKey, next, pick])
        try db.execute(sql: "DELETE FROM bag WHERE user = ? AND filter = ? AND position <= ?", arguments: [user, memoryKey, next - Int64(tailoredMemory)])
        return pick
    }
}

/// What a user's favourites and notes say they like: weights of categories, sources and rarer
/// words (skipped quotes take weight off their categories and sources).
struct Taste {
    var categories: [Int64: Double] = [:]
    var sources: [Int64: Double] = [:]
    /// Rarer words of the liked quotes with their weights (how rare, how often liked).
    var words: [String: Double] = [:]

    init(liked: [Int64], skipped: [Int64], db: Database) throws {
        let likedList = "[" + liked.map(String.init).joined(separator: ",") + "]"
        let skippedList = "[" + skipped.map(String.init).joined(separator: ",") + "]"
        let share = 1.0 / Double(liked.count)
        for id in try Int64.fetchAll(db, sql: "SELECT category_id FROM quote_category WHERE quote_id IN (SELECT value FROM json_each(?))", arguments: [likedList]) {
            categories[id, default: 0] += share
        }
        for id in try Int64.fetchAll(db, sql: "SELECT source_id FROM quote WHERE source_id IS NOT NULL AND id IN (SELECT value FROM json_each(?))", arguments: [likedList]) {
            sources[id, default: 0] += share
        }
        if !skipped.isEmpty {
            let penalty = 0.5 / Double(skipped.count)
            for id in try Int64.fetchAll(db, sql: "SELECT category_id FROM quote_category WHERE quote_id IN (SELECT value FROM json_each(?))", arguments: [skippedList]) {
                categories[id, default: 0] -= penalty
            }
            for id in try Int64.fetchAll(db, sql: "SELECT source_id FROM quote WHERE source_id IS NOT NULL AND id IN (SELECT value FROM json_each(?))", arguments: [skippedList]) {
                sources[id, default: 0] -= penalty
            }
        }
        // Words: how many liked quotes hold each, and how rare each is in the store.
        var counts: [String: Int] = [:]
        for text in try String.fetchAll(db, sql: "SELECT text FROM quote WHERE id IN (SELECT value FROM json_each(?))", arguments: [likedList]) {
            for word in Set(QuoteStore.words(text).filter({ $0.count > 2 })) { counts[word, default: 0] += 1 }
        }
        guard !counts.isEmpty else { return }
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM quote") ?? 0
        let common = max(20, total / 20)
        let terms = Array(counts.keys)
        var weighted: [(String, Double)] = []
        for start in stride(from: 0, to: terms.count, by: 500) {
            let chunk = Array(terms[start..<min(start + 500, terms.count)])
            for row in try Row.fetchAll(db, sql: "SELECT term, doc FROM quote_vocab WHERE term IN (SELECT value FROM json_each(?)) AND doc > 1",
                                        arguments: [String(decoding: try JSONEncoder().encode(chunk), as: UTF8.self)]) {
                let term: String = row["term"], doc: Int = row["doc"]
                guard doc <= common, let count = counts[term] else { continue }
                weighted.append((term, Double(count) * log(Double(total + 1) / Double(doc))))
            }
        }
        for (term, weight) in weighted.sorted(by: { ($0.1, $1.0) > ($1.1, $0.0) }).prefix(24) { words[term] = weight }
    }

    /// Quotes worth scoring: some of each liked category and source, and those holding the
    /// liked words (bm25's best).
    func candidates(db: Database) throws -> [Int64] {
        var ids: [Int64] = []
        let liked = categories.filter { $0.value > 0 }.map(\.key)
        if !liked.isEmpty {
            ids += try Int64.fetchAll(db, sql: """
                SELECT quote_id FROM quote_category WHERE category_id IN (\(liked.map(String.init).joined(separator: ","))) ORDER BY random() LIMIT 400
                """)
        }
        let likedSources = sources.filter { $0.value > 0 }.map(\.key)
        if !likedSources.isEmpty {
            ids += try Int64.fetchAll(db, sql: "SELECT id FROM quote WHERE source_id IN (\(likedSources.map(String.init).joined(separator: ","))) ORDER BY random() LIMIT 200")
        }
        if !words.isEmpty {
            let match = words.keys.sorted().map { "\"" + $0 + "\"" }.joined(separator: " OR ")
            ids += try Int64.fetchAll(db, sql: "SELECT rowid FROM quote_fts WHERE quote_fts MATCH ? ORDER BY bm25(quote_fts) LIMIT 200", arguments: [match])
        }
        var seen: Set<Int64> = []
        return ids.filter { seen.insert($0).inserted }
    }

    /// Each candidate's score: its categories' and source's weights, and the weights of the liked
    /// words it holds (relative to the best possible).
    func score(_ ids: [Int64], db: Database) throws -> [(id: Int64, score: Double)] {
        guard !ids.isEmpty else { return [] }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        var score: [Int64: Double] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT quote_id, category_id FROM quote_category WHERE quote_id IN (SELECT value FROM json_each(?))", arguments: [list]) {
            score[row[0], default: 0] += categories[row[1]] ?? 0
        }
        let wordTotal = words.values.reduce(0, +)
        for row in try Row.fetchAll(db, sql: "SELECT id, source_id, text FROM quote WHERE id IN (SELECT value FROM json_each(?))", arguments: [list]) {
            let id: Int64 = row[0]
            if let source: Int64 = row[1] { score[id, default: 0] += sources[source] ?? 0 }
            if wordTotal > 0 {
                let shared = Set(QuoteStore.words(row[2])).reduce(0.0) { $0 + (words[$1] ?? 0) }
                score[id, default: 0] += shared / wordTotal
            }
        }
        return ids.map { ($0, score[$0] ?? 0) }
    }
}
