import Foundation
import GRDB
import Testing
@testable import SuiteStorage

/// `suite_rank`: bm25 without the row's length, computed from what the match holds.
@Suite struct FTS5RankingTests {
    /// A table of `texts` (rowids 1, 2, …) with the function registered.
    func database(_ texts: [String]) throws -> DatabaseQueue {
        var config = Configuration()
        config.prepareDatabase { db in try FTS5Ranking.register(db) }
        let queue = try DatabaseQueue(configuration: config)
        try queue.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE t USING fts5(text)")
            for text in texts { try db.execute(sql: "INSERT INTO t (text) VALUES (?)", arguments: [text]) }
        }
        return queue
    }

    func ranked(_ queue: DatabaseQueue, _ match: String) throws -> [(id: Int64, rank: Double)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT rowid, suite_rank(t) AS r FROM t WHERE t MATCH ? ORDER BY r, rowid", arguments: [match])
                .map { ($0[0], $0[1]) }
        }
    }

    @Test func theScoreIsBM25WithoutLength() throws {
        let queue = try database(["apple pie", "banana split", "cherry tart", "apple apple crumble and a long tail of other words"])
        // N = 4; "apple" is in 2 rows: idf = ln((4 − 2 + 0.5) / (2 + 0.5)) = ln 1, floored at 1e-6.
        // "cherry" is in 1: idf = ln(3.5 / 1.5).
        let cherry = try ranked(queue, "cherry")
        #expect(cherry.map(\.id) == [3])
        #expect(abs(cherry[0].rank + log(3.5 / 1.5)) < 1e-12)
        // Twice counts 2 × 2.2 / 3.2 of once, whatever the length of the row.
        let both = try ranked(queue, "banana OR apple OR cherry")
        let idfCherry = log(3.5 / 1.5), idfApple = 1e-6
        #expect(both.map(\.id) == [2, 3, 4, 1])   // banana and cherry tie (both in one row): rowid order
        #expect(abs(both[2].rank + idfApple * 2 * 2.2 / 3.2) < 1e-12)
        #expect(abs(both[3].rank + idfApple) < 1e-12)
        #expect(abs(both[1].rank + idfCherry) < 1e-12)
    }

    @Test func rarerWordsWeighMoreAndRepeatsLess() throws {
        var texts = (0..<50).map { "common filler \($0)" }
        texts += ["rare word once", "common common common here"]
        let queue = try database(texts)
        let hits = try ranked(queue, "rare OR common")
        // The rare word once outweighs the common word three times.
        #expect(hits.first?.id == 51)
        #expect(hits[1].id == 52)
        // Among rows holding the common word once, the order is the rowid's.
        #expect(hits.dropFirst(2).map(\.id) == Array(1...50))
        // A phrase counts as one term.
        #expect(try ranked(queue, "\"common common\"").map(\.id) == [52])
    }

    @Test func noMatchAndManyPhrasesAreFine() throws {
        let queue = try database(["one two three", "two three four"])
        #expect(try ranked(queue, "five").isEmpty)
        let words = (0..<32).map { "w\($0)" }
        #expect(try ranked(queue, words.joined(separator: " OR ") + " OR two").map(\.id) == [1, 2])
    }
}
