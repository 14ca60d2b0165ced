import Foundation
import GRDB
import GRDBSQLite

/// `suite_rank(fts_table)`: an FTS5 ranking function (lower is better, as FTS5's `bm25`) that
/// weighs each phrase of the query by its rarity and its count in the row, without the row's
/// length.
///
/// For each phrase, `idf × tf × (k1 + 1) / (tf + k1)` with `k1 = 1.2` and
/// `idf = ln((N − n + 0.5) / (n + 0.5))` (at least 10⁻⁶), where `tf` is the phrase's count in the
/// row, `n` the rows holding it and `N` all rows: `bm25` with its length weight `b` at 0. Rarer
/// words weigh more, and a second occurrence counts for less than the first.
///
/// `bm25` looks up every matching row's length (a query on the `_docsize` table per row): over a
/// million quotes, a word in 8,600 of them took 12 ms that way, more than all the rest of a
/// search. This function reads only what the match itself holds. Rows that score the same are
/// told apart by the query (`ORDER BY rank, rowid`).
package enum FTS5Ranking {
    package static let functionName = "suite_rank"

    /// Makes `suite_rank` available on `db`'s connection.
    package static func register(_ db: Database) throws {
        let api = UnsafeMutablePointer(mutating: FTS5.api(db))
        guard let create = api.pointee.xCreateFunction else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "FTS5 has no xCreateFunction") }
        let code = create(api, functionName, nil, rank, nil)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register \(functionName)") }
    }

    /// The weights of the query's phrases, computed for the first row and kept for the query.
    private final class Weights {
        let idf: [Double]
        init(idf: [Double]) { self.idf = idf }
    }

    private static let rank: fts5_extension_function = { api, fts, context, _, _ in
        guard let api, let fts else { return }
        let functions = api.pointee
        var code = SQLITE_OK
        defer { if code != SQLITE_OK { sqlite3_result_error_code(context, code) } }
        guard let phraseCount = functions.xPhraseCount?(fts), phraseCount > 0 else {
            sqlite3_result_double(context, 0)
            return
        }
        let weights: Weights
        if let kept = functions.xGetAuxdata?(fts, 0) {
            weights = Unmanaged<Weights>.fromOpaque(kept).takeUnretainedValue()
        } else {
            var rows: sqlite3_int64 = 0
            code = functions.xRowCount?(fts, &rows) ?? SQLITE_ERROR
            guard code == SQLITE_OK else { return }
            var idf: [Double] = []
            for phrase in 0..<phraseCount {
                var hits: sqlite3_int64 = 0
                code = functions.xQueryPhrase?(fts, phrase, &hits) { _, _, count in
                    count?.assumingMemoryBound(to: sqlite3_int64.self).pointee += 1
                    return SQLITE_OK
                } ?? SQLITE_ERROR
                guard code == SQLITE_OK else { return }
                let value = log((Double(rows) - Double(hits) + 0.5) / (Double(hits) + 0.5))
                idf.append(value > 1e-6 ? value : 1e-6)
            }
            weights = Weights(idf: idf)
            code = functions.xSetAuxdata?(fts, Unmanaged.passRetained(weights).toOpaque()) { kept in
                if let kept { Unmanaged<Weights>.fromOpaque(kept).release() }
            } ?? SQLITE_ERROR
            guard code == SQLITE_OK else { return }
        }
        var instances: Int32 = 0
        code = functions.xInstCount?(fts, &instances) ?? SQLITE_ERROR
        guard code == SQLITE_OK else { return }
        // Counts per phrase: a query has at most a few dozen phrases.
        var counts = [Int32](repeating: 0, count: Int(phraseCount))
        for index in 0..<instances {
            var phrase: Int32 = 0, column: Int32 = 0, offset: Int32 = 0
            code = functions.xInst?(fts, index, &phrase, &column, &offset) ?? SQLITE_ERROR
            guard code == SQLITE_OK else { return }
            if phrase >= 0 && phrase < phraseCount { counts[Int(phrase)] += 1 }
        }
        let k1 = 1.2
        var score = 0.0
        for (phrase, count) in counts.enumerated() where count > 0 {
            let tf = Double(count)
            score += weights.idf[phrase] * tf * (k1 + 1) / (tf + k1)
        }
        sqlite3_result_double(context, -score)
    }
}
