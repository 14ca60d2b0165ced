import Foundation
import GRDB
import SuiteStorage

extension QuoteStore {
    /// A random quote from a persistent shuffle bag for the user and filter: nothing repeats
    /// until every matching quote was shown, and a new round does not start with the last one.
    ///
    /// - Parameters:
    ///   - filter: which quotes to pick from; each filter has its own bag.
    ///   - user: whose bag (and favourites).
    /// - Returns: the quote.
    /// - Throws: ``QuoteError/noQuotes(_:)`` when nothing matches (``QuoteError/NoQuotesReason/emptyCollection``
    ///   for a store without quotes: ``addStarterCollectionIfEmpty()-9ltem`` fills it).
    public func random(_ filter: QuoteFilter = QuoteFilter(), user: String) throws(QuoteError) -> Quote {
        let user = try Self.validated(name: user, .quoteUserName)
        // Where the bag stands is not user data: its commit does not wait for the disk.
        return try lightWrite { db in
            let id = try Self.nextFromBag(filter, user: user, db: db)
            return try Self.loadQuote(Quote.ID(id), db: db)
        }
    }

    /// ``random(_:user:)`` without a filter, for a process that runs one command and ends (the
    /// `suite quotes random` of a prompt or a status bar): the store is opened with SQLite's C
    /// API alone (no GRDB set-up: 0.7 ms of a 4.6 ms command) and the pick is
    /// made when it is the common case (a round under way, no quote added since it began), by
    /// the same code as ``random(_:user:)``'s, so the sequence is the same either way.
    ///
    /// - Parameters:
    ///   - path: the store file's path, absolute and standardized (as ``path`` gives it: the
    ///     path is used as it is, so that no `URL` is made, whose `path` costs a scan of the
    ///     binary's conformance records at its first use).
    ///   - user: whose bag.
    ///   - busyTimeout: how long to wait for another process holding the store.
    ///   - keptUntilExit: leave the connection for the process's exit to close (closing it
    ///     would copy the write-ahead log into the file, which the next command does not need).
    ///     Every call then leaves one open, a declined one too: only for a process that ends
    ///     after its command.
    /// - Returns: the quote, or nil when the pick needs more (no store yet, an older or foreign
    ///   file, a new round, new quotes): open a ``QuoteStore`` and call ``random(_:user:)``.
    /// - Throws: ``QuoteError`` for a bad user name, or a file that no open could use.
    public static func quickRandom(path: String, user: String, busyTimeout: TimeInterval = 10, keptUntilExit: Bool = false) throws(QuoteError) -> Quote? {
        let user = try validated(name: user, .quoteUserName)
        do {
            guard let connection = try DirectConnection.openCurrent(
                path: path, configuration: configuration(busyTimeout: busyTimeout), schemaVersion: Store<QuoteError>.schemaVersion(of: migrator),
                keptUntilExit: keptUntilExit)
            else { return nil }
            // A light write, as random(_:user:)'s: where a bag stands is not user data.
            return try connection.transaction(light: true) { () throws -> Quote? in
                guard let id = try steadyPick(user: user, on: connection) else { return nil }
                // As loadQuote(_:db:) says it (the quote cannot go away within the transaction).
                guard let quote = try loadQuotes([id], on: connection).first else { throw QuoteError.quoteNotFound(Quote.ID(id)) }
                return quote
            }
        } catch let error as QuoteError {
            throw error
        } catch let failure as StoreFailure {
            throw QuoteError(storeFailure: failure)
        } catch let error as DatabaseError {
            throw QuoteError(storeFailure: .classify(error, path: path))
        } catch {
            throw QuoteError(storeFailure: .unavailable(path: path, reason: "\(error)"))
        }
    }

    /// The quote of the day: the same for everybody all through `day` (a calendar day in the
    /// caller's time zone), different from one day to the next. The first ask of a day keeps
    /// its pick in the store, so quotes imported or added later that day do not change it (only
    /// removing that quote does); a store opened read-only picks by the same rule without
    /// keeping it.
    ///
    /// - Throws: ``QuoteError/noQuotes(_:)`` with ``QuoteError/NoQuotesReason/emptyCollection``
    ///   when the store holds no quote.
    public func quoteOfTheDay(year: Int, month: Int, day: Int) throws(QuoteError) -> Quote {
        try keepDayPick(year: year, month: month, day: day)
        return try read { db in try Self.quoteOfTheDay(year: year, month: month, day: day, db: db) }
    }

    /// A day as the key of its pick: 20261127.
    static func dayKey(year: Int, month: Int, day: Int) -> Int64 { Int64(year) * 10_000 + Int64(month) * 100 + Int64(day) }

    /// Keeps the day's pick when none is kept yet (or its quote went): one light write on the
    /// first ask of a day, none after. Picks older than a year are let go. Nothing is kept in a
    /// store opened read-only, or one without quotes.
    func keepDayPick(year: Int, month: Int, day: Int) throws(QuoteError) {
        let key = Self.dayKey(year: year, month: month, day: day)
        // Nothing is written when a pick is kept or there is nothing to pick: an observation of
        // today's quote, which comes here on every change, must not make a change of its own.
        let due = try read { db in
            try Self.keptDayPick(key, db: db) == nil && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM quote)") == true
        }
        guard due else { return }
        do {
            try lightWrite { db in
                guard try Self.keptDayPick(key, db: db) == nil else { return }
                let quote: Quote
                do {
                    quote = try Self.pickOfTheDay(year: year, month: month, day: day, db: db)
                } catch QuoteError.noQuotes(.emptyCollection) {
                    return
                }
                try db.execute(sql: "INSERT OR REPLACE INTO day_pick (day, quote_id) VALUES (?, ?)", arguments: [key, quote.id.rawValue])
                try db.execute(sql: "DELETE FROM day_pick WHERE day < ?", arguments: [key - 10_000])
            }
        } catch let error {
            // A store opened read-only, or busy with a long write of another process (an import,
            // a sync), answers by the rule, unkept: the next ask keeps it.
            guard case .store(let failure) = error, failure.kind == .readOnly || failure.kind == .busy else { throw error }
        }
    }

    /// The quote kept for the day `key`, while it is still in the store.
    static func keptDayPick(_ key: Int64, db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT p.quote_id FROM day_pick p JOIN quote q ON q.id = p.quote_id WHERE p.day = ?", arguments: [key])
    }

    /// The day's kept pick (``keepDayPick(year:month:day:)``), else the pick by the rule.
    static func quoteOfTheDay(year: Int, month: Int, day: Int, db: Database) throws -> Quote {
        if let kept = try keptDayPick(dayKey(year: year, month: month, day: day), db: db) { return try loadQuote(Quote.ID(kept), db: db) }
        return try pickOfTheDay(year: year, month: month, day: day, db: db)
    }

    /// The rule: a permutation of the quote numbers seeded by the day, its first number in use.
    static func pickOfTheDay(year: Int, month: Int, day: Int, db: Database) throws -> Quote {
        let bound = try Int64.fetchOne(db, sql: "SELECT max(id) FROM quote") ?? 0
        guard bound > 0 else { throw QuoteError.noQuotes(.emptyCollection) }
        let permutation = Permutation(bound: bound, seed: UInt64(year * 10_000 + month * 100 + day) &* 0x9e37_79b9_7f4a_7c15)
        var cursor: UInt64 = 0
        while cursor < permutation.domain {
            if let id = permutation.value(at: cursor),
               try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM quote WHERE id = ?)", arguments: [id]) == true {
                return try loadQuote(Quote.ID(id), db: db)
            }
            cursor += 1
        }
        throw QuoteError.noQuotes(.emptyCollection)
    }

    /// Today's quote as `user` sees it: the quote of the day (``quoteOfTheDay(year:month:day:)-8ycn5``),
    /// whether it is one of the user's favourites, and the user's notes on it, read in one snapshot.
    ///
    /// - Parameters:
    ///   - year: the calendar day, in the user's time zone …
    ///   - month: … its month …
    ///   - day: … and its day of the month.
    ///   - user: whose favourites and notes.
    /// - Returns: today's quote, or nil when the store holds no quote.
    public func todaysQuote(year: Int, month: Int, day: Int, user: String) throws(QuoteError) -> TodaysQuote? {
        try keepDayPick(year: year, month: month, day: day)
        return try read { db in
            let quote: Quote
            do {
                quote = try Self.quoteOfTheDay(year: year, month: month, day: day, db: db)
            } catch QuoteError.noQuotes(.emptyCollection) {
                return nil
            }
            let favorite = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM favorite WHERE user = ? AND quote_id = ?)",
                                             arguments: [user, quote.id]) ?? false
            let notes = try Row.fetchAll(db, sql: "SELECT * FROM note WHERE user = ? AND quote_id = ? ORDER BY created_ms, id",
                                         arguments: [user, quote.id]).map(Self.note(from:))
            return TodaysQuote(quote: quote, isFavorite: favorite, notes: notes)
        }
    }

    /// Quotes like `id`, best first: quotes of its categories that share its rarer words (ranked
    /// by bm25, so a rarer word such as "perseverance" counts for more than "hard", and words
    /// in more than one quote of twenty are left out), then the rest of its categories, then
    /// quotes of other categories that share its rarer words.
    ///
    /// - Throws: ``QuoteError/quoteNotFound(_:)``.
    public func similar(to id: Quote.ID, limit: Int = 5) throws(QuoteError) -> [Quote] {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT text FROM quote WHERE id = ?", arguments: [id]) else {
                throw QuoteError.quoteNotFound(id)
            }
            guard limit > 0 else { return [] }
            let ids = try Self.similarIDs(to: id.rawValue, text: text, limit: limit, db: db)
            return try Self.loadQuotes(ids, db: db)
        }
    }

    /// The ranking behind ``similar(to:limit:)``.
    static func similarIDs(to id: Int64, text: String, limit: Int, db: Database) throws -> [Int64] {
        let categories = try Int64.fetchAll(db, sql: "SELECT category_id FROM quote_category WHERE quote_id = ?", arguments: [id])
        let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM quote") ?? 0
        // Words of the quote with how many quotes hold them: a word only this quote has links it
        // to nothing, a word in one quote of twenty says little about it.
        let words = Set(words(text).filter { $0.count > 2 })
        var rare: [(term: String, doc: Int)] = []
        if !words.isEmpty {
            let placeholders = Array(repeating: "?", count: words.count).joined(separator: ",")
            let common = max(20, total / 20)
            for row in try Row.fetchAll(db, sql: "SELECT term, doc FROM quote_vocab WHERE term IN (\(placeholders)) AND doc > 1 ORDER BY doc, term LIMIT 8",
                                        arguments: StatementArguments(Array(words))) {
                let doc: Int = row["doc"]
                if doc <= common { rare.append((row["term"], doc)) }
            }
        }
        // Ranked by bm25 over the rarer words: rarer words weigh more, and a long text does not
        // win by holding more words.
        let match = rare.map { "\"" + $0.term + "\"" }.joined(separator: " OR ")
        let list = categories.map(String.init).joined(separator: ",")
        func sharing(inCategories: Bool, excluding taken: [Int64], count: Int) throws -> [Int64] {
            guard !rare.isEmpty, count > 0 else { return [] }
            let among = "SELECT quote_id FROM quote_category WHERE category_id IN (\(list))"
            return try Int64.fetchAll(db, sql: """
                SELECT rowid FROM quote_fts
                WHERE quote_fts MATCH ? AND rowid <> ? AND rowid \(inCategories ? "IN" : "NOT IN") (\(among))
                  AND rowid NOT IN (SELECT value FROM json_each(?))
                ORDER BY bm25(quote_fts), rowid LIMIT ?
                """, arguments: [match, id, "[" + taken.map(String.init).joined(separator: ",") + "]", count])
        }
        var result: [Int64] = []
        if !categories.isEmpty {
            result = try sharing(inCategories: true, excluding: [], count: limit)
            if result.count < limit {
                result += try Int64.fetchAll(db, sql: """
                    SELECT DISTINCT quote_id FROM quote_category WHERE category_id IN (\(list)) AND quote_id <> ?
                      AND quote_id NOT IN (SELECT value FROM json_each(?))
                    ORDER BY quote_id LIMIT ?
                    """, arguments: [id, "[" + result.map(String.init).joined(separator: ",") + "]", limit - result.count])
            }
        }
        result += try sharing(inCategories: false, excluding: result, count: limit - result.count)
        return result
    }

    /// Lower-case words as the full-text index sees them (letters and digits).
    static func words(_ text: String) -> [String] {
        text.lowercased().folding(options: .diacriticInsensitive, locale: nil)
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    // MARK: - Shuffle bags

    /// Unfiltered bags walk a keyed permutation of the id range (nothing is materialised, so the
    /// first pick from a million quotes is as fast as the next); filtered bags store a shuffled
    /// list of the matching ids.
    static func nextFromBag(_ filter: QuoteFilter, user: String, db: Database) throws -> Int64 {
        if filter.isEmpty, triesSteadyPickFirst, let id = try steadyPick(user: user, on: DirectConnection(borrowing: db)) { return id }
        let key = filter.key
        let (clause, arguments) = try filterClause(filter, user: user, db: db)
        func matches(_ id: Int64) throws -> Bool {
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM quote q WHERE q.id = ? \(clause))", arguments: [id] + arguments) == true
        }
        var state = try Row.fetchOne(db, sql: "SELECT * FROM bag_state WHERE user = ? AND filter = ?", arguments: [user, key])
            .map { BagState(row: $0) }
        if var current = state {
            try current.admitNewQuotes(clause: clause, arguments: arguments, db: db, user: user, filter: key)
            state = current
        }
        for _ in 0..<3 {  // at most: finish a round, start a new one, pick from it
            if var current = state {
                while let candidate = try current.advance(db: db, user: user, filter: key) {
                    if try matches(candidate) {
                        current.lastQuote = candidate
                        try current.save(db: db, user: user, filter: key)
                        return candidate
                    }
                }
                // The round is over; a quote held back at its start comes last.
                if let deferred = current.deferred {
                    current.deferred = nil
                    if try matches(deferred) {
                        current.lastQuote = deferred
                        try current.save(db: db, user: user, filter: key)
                        return deferred
                    }
                }
                state = try newRound(filter, clause: clause, arguments: arguments, user: user, last: current.lastQuote, db: db)
            } else {
                state = try newRound(filter, clause: clause, arguments: arguments, user: user, last: nil, db: db)
            }
            if state == nil { break }
        }
        throw QuoteError.noQuotes(filter.isEmpty ? .emptyCollection : .noMatch(filter))
    }

    /// Whether ``nextFromBag(_:user:db:)`` tries ``steadyPick(user:on:)`` first: always, except in
    /// the test that compares that shortcut with the whole rule.
    @TaskLocal static var triesSteadyPickFirst = true

    /// The pick of ``nextFromBag(_:user:db:)`` in its most common case, on any connection (GRDB's,
    /// or ``quickRandom(path:user:busyTimeout:keptUntilExit:)``'s): the user's unfiltered bag
    /// walks a permutation, no quote was added since its round began, and a quote of the round
    /// is left. Then the pick is the permutation's next existing quote that was not served before
    /// a re-keying, as ``BagState/advance(db:user:filter:)`` finds it. Nil otherwise, with nothing
    /// written: the whole rule takes over.
    static func steadyPick(user: String, on connection: DirectConnection) throws -> Int64? {
        let key = QuoteFilter().key
        let state = try connection.prepare("SELECT seed, bound, cursor, size, deferred, top FROM bag_state WHERE user = ? AND filter = ?")
        guard try state.bind(user, at: 1).bind(key, at: 2).step() else { return nil }
        let row = state.columns
        let seed = UInt64(bitPattern: row.int64(0)), bound = row.int64(1), size = row.int64(3), deferred = row.optionalInt64(4), top = row.int64(5)
        var cursor = row.int64(2)
        state.reset()
        guard bound > 0, top > 0 else { return nil }
        let highest = try connection.prepare("SELECT max(id) FROM quote")
        guard try highest.step(), highest.columns.int64(0) <= top else { return nil }
        let permutation = Permutation(bound: bound, seed: seed)
        let exists = try connection.prepare("SELECT 1 FROM quote WHERE id = ?")
        let served = size > 0 ? try connection.prepare("SELECT 1 FROM bag WHERE user = ? AND filter = ? AND position = ?") : nil
        while UInt64(cursor) < permutation.domain {
            let value = permutation.value(at: UInt64(cursor))
            cursor += 1
            guard let value, value != deferred else { continue }
            if let served, try served.reset().bind(user, at: 1).bind(BagState.servedKey(key), at: 2).bind(value, at: 3).step() { continue }
            guard try exists.reset().bind(value, at: 1).step() else { continue }
            exists.reset()
            try connection.prepare("UPDATE bag_state SET cursor = ?, last_quote = ? WHERE user = ? AND filter = ?")
                .bind(cursor, at: 1).bind(value, at: 2).bind(user, at: 3).bind(key, at: 4).run()
            return value
        }
        return nil
    }

    private static func newRound(
        _ filter: QuoteFilter, clause: String, arguments: StatementArguments, user: String, last: Int64?, db: Database
    ) throws -> BagState? {
        let key = filter.key
        var seed = UInt64.random(in: 1...UInt64.max)
        try db.execute(sql: "DELETE FROM bag WHERE user = ? AND filter IN (?, ?)", arguments: [user, key, BagState.servedKey(key)])
        let top = try Int64.fetchOne(db, sql: "SELECT max(id) FROM quote") ?? 0
        var state: BagState
        if filter.isEmpty {
            let bound = try Int64.fetchOne(db, sql: "SELECT max(id) FROM quote") ?? 0
            guard bound > 0 else { return nil }
            state = BagState(seed: seed, bound: bound, cursor: 0, size: 0, lastQuote: last, deferred: nil, top: top)
            // Do not start a round with the quote that ended the last one: hold it back.
            if let last, bound > 1, Permutation(bound: bound, seed: seed).first == last { state.deferred = last }
        } else {
            let ids = try Int64.fetchAll(db, sql: "SELECT q.id FROM quote q WHERE 1 \(clause)", arguments: arguments)
            guard !ids.isEmpty else { return nil }
            var generator = SplitMix(seed: &seed)
            var shuffled = ids.shuffled(using: &generator)
            if shuffled.count > 1, shuffled.first == last { shuffled.swapAt(0, shuffled.count - 1) }
            let statement = try db.makeStatement(sql: "INSERT INTO bag (user, filter, position, quote_id) VALUES (?, ?, ?, ?)")
            for (position, id) in shuffled.enumerated() { try statement.execute(arguments: [user, key, position, id]) }
            state = BagState(seed: seed, bound: 0, cursor: 0, size: Int64(shuffled.count), lastQuote: last, deferred: nil, top: top)
        }
        try state.save(db: db, user: user, filter: key)
        return state
    }
}

/// Where a user's walk through one shuffle bag stands.
struct BagState {
    var seed: UInt64
    /// > 0: a permutation of 1…bound; 0: a stored list of `size` ids.
    var bound: Int64
    var cursor: Int64
    /// A stored list's length; for a permutation, how many quotes of the round were served before
    /// it was re-keyed to take in new quotes (they are listed under ``servedKey(_:)`` and skipped).
    var size: Int64
    var lastQuote: Int64?
    var deferred: Int64?
    /// The highest quote id the round has taken in (0: not known, a bag from before this was kept).
    var top: Int64

    init(seed: UInt64, bound: Int64, cursor: Int64, size: Int64, lastQuote: Int64?, deferred: Int64?, top: Int64) {
        self.seed = seed; self.bound = bound; self.cursor = cursor; self.size = size; self.lastQuote = lastQuote; self.deferred = deferred
        self.top = top
    }

    init(row: Row) {
        seed = UInt64(bitPattern: row["seed"])
        bound = row["bound"]; cursor = row["cursor"]; size = row["size"]; lastQuote = row["last_quote"]; deferred = row["deferred"]
        top = row["top"] ?? 0
    }

    /// Where the quotes a re-keyed round already served are listed (`position` is the quote id,
    /// so a lookup is one index seek).
    static func servedKey(_ filter: String) -> String { "served\u{1F}" + filter }

    /// Takes quotes added since the round began into it, so they can come up at once instead of
    /// after the whole old round. A stored list gets the new matching ids at random places among
    /// those still to come; a permutation is re-keyed over the new id range, the quotes it served
    /// so far listed to be skipped. Nothing served repeats within the round either way.
    mutating func admitNewQuotes(clause: String, arguments: StatementArguments, db: Database, user: String, filter: String) throws {
        let highest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM quote") ?? 0
        guard highest > top else { return }
        defer { top = highest }
        guard top > 0 else { return }  // a bag from an older version: from now on
        if bound > 0 {
            let served = try db.makeStatement(sql: "INSERT OR IGNORE INTO bag (user, filter, position, quote_id) VALUES (?, ?, ?, ?)")
            let old = Permutation(bound: bound, seed: seed)
            var position: UInt64 = 0
            while position < UInt64(cursor) && position < old.domain {
                if let id = old.value(at: position) {
                    try served.execute(arguments: [user, Self.servedKey(filter), id, id])
                }
                position += 1
            }
            size = try Int64.fetchOne(db, sql: "SELECT count(*) FROM bag WHERE user = ? AND filter = ?",
                                      arguments: [user, Self.servedKey(filter)]) ?? 0
            seed = UInt64.random(in: 1...UInt64.max)
            bound = highest
            cursor = 0
        } else {
            let fresh = try Int64.fetchAll(db, sql: "SELECT q.id FROM quote q WHERE q.id > ? \(clause)", arguments: [top] + arguments)
            for id in fresh {
                // A random place among the ones still to come (cursor…size), shifting the rest on.
                let place = Int64.random(in: cursor...size)
                try db.execute(sql: "UPDATE bag SET position = -position - 1 WHERE user = ? AND filter = ? AND position >= ?",
                               arguments: [user, filter, place])
                try db.execute(sql: "UPDATE bag SET position = -position WHERE user = ? AND filter = ? AND position < 0",
                               arguments: [user, filter])
                try db.execute(sql: "INSERT INTO bag (user, filter, position, quote_id) VALUES (?, ?, ?, ?)", arguments: [user, filter, place, id])
                size += 1
            }
        }
        try save(db: db, user: user, filter: filter)
    }

    /// The next candidate of the round, or nil when the round is over.
    mutating func advance(db: Database, user: String, filter: String) throws -> Int64? {
        if bound > 0 {
            let permutation = Permutation(bound: bound, seed: seed)
            while UInt64(cursor) < permutation.domain {
                let value = permutation.value(at: UInt64(cursor))
                cursor += 1
                guard let value, value != deferred else { continue }
                if size > 0, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM bag WHERE user = ? AND filter = ? AND position = ?)",
                                               arguments: [user, Self.servedKey(filter), value]) == true {
                    continue
                }
                return value
            }
            return nil
        }
        guard cursor < size else { return nil }
        let id = try Int64.fetchOne(db, sql: "SELECT quote_id FROM bag WHERE user = ? AND filter = ? AND position = ?",
                                    arguments: [user, filter, cursor])
        cursor += 1
        return id ?? -1
    }

    func save(db: Database, user: String, filter: String) throws {
        try db.execute(sql: """
            INSERT INTO bag_state (user, filter, seed, bound, cursor, size, last_quote, deferred, top) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user, filter) DO UPDATE SET seed = excluded.seed, bound = excluded.bound, cursor = excluded.cursor,
                size = excluded.size, last_quote = excluded.last_quote, deferred = excluded.deferred, top = excluded.top
            """, arguments: [user, filter, Int64(bitPattern: seed), bound, cursor, size, lastQuote, deferred, top])
    }
}

/// A keyed permutation of 1…bound: a four-round Feistel network over the smallest even number
/// of bits that covers the range, walking past values above `bound`.
struct Permutation {
    let bound: Int64
    let seed: UInt64
    let halfBits: UInt64

    init(bound: Int64, seed: UInt64) {
        self.bound = bound
        self.seed = seed
        var bits: UInt64 = 2
        while (UInt64(1) << bits) < UInt64(max(bound, 1)) { bits += 2 }
        halfBits = bits / 2
    }

    /// How many cursor positions a round has.
    var domain: UInt64 { UInt64(1) << (halfBits * 2) }

    /// The id at `cursor`, or nil when it falls above `bound`.
    func value(at cursor: UInt64) -> Int64? {
        let mask = (UInt64(1) << halfBits) - 1
        var left = cursor >> halfBits, right = cursor & mask
        for round in 0..<4 {
            var hash = right &+ seed &+ UInt64(round) &* 0x9e37_79b9_7f4a_7c15
            hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
            hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
            hash ^= hash >> 31
            (left, right) = (right, left ^ (hash & mask))
        }
        let value = (left << halfBits) | right
        return value < UInt64(bound) ? Int64(value) + 1 : nil
    }

    /// The first id of the round.
    var first: Int64? {
        var cursor: UInt64 = 0
        while cursor < domain {
            if let value = value(at: cursor) { return value }
            cursor += 1
        }
        return nil
    }
}

/// A small seeded generator for shuffles.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: inout UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
