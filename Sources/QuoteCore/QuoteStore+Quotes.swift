import Foundation
import GRDB
import SuiteStorage

extension QuoteStore {
    /// Adds a quote of the user's own.
    ///
    /// - Parameters:
    ///   - text: the words.
    ///   - source: who or what said it.
    ///   - kind: the kind of source (used when the source is new).
    ///   - categories: categories to file it under.
    ///   - citation: the work it is from (a book, a speech …), one line.
    /// - Returns: the new quote.
    /// - Throws: ``QuoteError/invalidText(_:)`` naming the field; ``QuoteError/duplicateQuote(existing:edited:)``
    ///   when a quote with the same text and source is there already.
    @discardableResult
    public func add(_ text: String, source: String? = nil, kind: SourceKind = .person, categories: [String] = [],
                    citation: String? = nil) throws(QuoteError) -> Quote {
        let text = try Self.validated(text: text, .quoteText)
        var sourceName: String?
        if let source { sourceName = try Self.validated(name: source, .quoteSource) }
        let checkedCitation = try citation.map { (value: String) throws(QuoteError) -> String in try Self.validated(name: value, .quoteCitation) }
        var names: [String] = []
        for category in categories { names.append(try Self.validated(name: category, .quoteCategory)) }
        let checkedSource = sourceName, checkedNames = names
        return try write { db in
            var cache = ImportCache()
            guard let id = try Self.insert(
                ImportedQuote(text: text, source: checkedSource, kind: kind, citation: checkedCitation, categories: checkedNames, personal: true, addedAt: nil, line: 0),
                db: db, stamp: stamp, cache: &cache) else {
                let existing = try Quote.ID.fetchOne(db, sql: "SELECT id FROM quote WHERE dedupe = ?",
                                                     arguments: [Self.dedupeKey(text: text, source: checkedSource)])
                throw QuoteError.duplicateQuote(existing: existing ?? 0, edited: nil)
            }
            return try Self.loadQuote(Quote.ID(id), db: db)
        }
    }

    /// Removes a quote with its favourites, notes and deliveries.
    ///
    /// - Parameter id: the quote.
    /// - Returns: the quote as it was.
    /// - Throws: ``QuoteError/quoteNotFound(_:)``.
    @discardableResult
    public func removeQuote(_ id: Quote.ID) throws(QuoteError) -> Quote {
        try write { db in
            guard let quote = try Self.loadQuotes([id.rawValue], db: db).first else { throw QuoteError.quoteNotFound(id) }
            try db.execute(sql: "DELETE FROM bag WHERE quote_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM quote WHERE id = ?", arguments: [id])
            return quote
        }
    }

    /// Changes a quote's text and/or source; nil leaves a field as it is. A collected quote whose
    /// words or source change becomes one of the user's own (``Quote/isPersonal``).
    ///
    /// - Parameters:
    ///   - id: the quote.
    ///   - text: the new words, or nil.
    ///   - source: the new source, or nil.
    /// - Returns: the quote as it is now.
    /// - Throws: ``QuoteError/invalidText(_:)`` by the rules of `add(_:source:kind:categories:citation:)`,
    ///   ``QuoteError/duplicateQuote(existing:edited:)`` when the change would make it a duplicate of
    ///   another quote, ``QuoteError/quoteNotFound(_:)``.
    @discardableResult
    public func editQuote(_ id: Quote.ID, text: String? = nil, source: String? = nil) throws(QuoteError) -> Quote {
        let newText = try text.map { (value: String) throws(QuoteError) -> String in try Self.validated(text: value, .quoteText) }
        let newSource = try source.map { (value: String) throws(QuoteError) -> String in try Self.validated(name: value, .quoteSource) }
        return try write { db in
            guard let quote = try Self.loadQuotes([id.rawValue], db: db).first else { throw QuoteError.quoteNotFound(id) }
            let finalText = newText ?? quote.text
            let finalSource = newSource ?? quote.source?.name
            var sourceID = try Int64.fetchOne(db, sql: "SELECT source_id FROM quote WHERE id = ?", arguments: [id])
            if let newSource {
                let key = Self.nameKey(newSource)
                try db.execute(sql: "INSERT OR IGNORE INTO source (name, key, kind) VALUES (?, ?, ?)", arguments: [newSource, key, SourceKind.person.rawValue])
                sourceID = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE key = ?", arguments: [key])
            }
            let dedupe = Self.dedupeKey(text: finalText, source: finalSource)
            if let existing = try Quote.ID.fetchOne(db, sql: "SELECT id FROM quote WHERE dedupe = ? AND id <> ?", arguments: [dedupe, id]) {
                throw QuoteError.duplicateQuote(existing: existing, edited: id)
            }
            // Words or a source rewritten by the user are theirs: the quote becomes one of their own
            // (never published to a community, left out of shared lists).
            let rewritten = finalText != quote.text || finalSource != quote.source?.name
            try db.execute(sql: "UPDATE quote SET text = ?, source_id = ?, dedupe = ?, personal = personal OR ? WHERE id = ?",
                           arguments: [finalText, sourceID, dedupe, rewritten, id])
            return try Self.loadQuotes([id.rawValue], db: db)[0]
        }
    }

    /// The quote with that id.
    ///
    /// - Throws: ``QuoteError/quoteNotFound(_:)``.
    public func quote(_ id: Quote.ID) throws(QuoteError) -> Quote {
        try read { db in
            guard let quote = try Self.loadQuotes([id.rawValue], db: db).first else { throw QuoteError.quoteNotFound(id) }
            return quote
        }
    }

    /// How many quotes the store holds.
    public func count() throws(QuoteError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM quote") ?? 0 }
    }

    /// Whether the store holds no quote (one row read, where ``count()-2vq1d`` reads them all).
    public func isEmpty() throws(QuoteError) -> Bool {
        try read { db in try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM quote)") ?? false) }
    }

    /// Categories with their quote counts, by name.
    public func categories() throws(QuoteError) -> [NameCount] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT c.name, count(qc.quote_id) AS n FROM category c LEFT JOIN quote_category qc ON qc.category_id = c.id
                GROUP BY c.id ORDER BY c.key
                """).map { NameCount(name: $0["name"], kind: nil, count: $0["n"]) }
        }
    }

    /// Sources with their kinds and quote counts, most quoted first.
    public func sources(limit: Int? = nil) throws(QuoteError) -> [NameCount] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.name, s.kind, count(q.id) AS n FROM source s LEFT JOIN quote q ON q.source_id = s.id
                GROUP BY s.id ORDER BY n DESC, s.key LIMIT ?
                """, arguments: [limit ?? -1]).map { NameCount(name: $0["name"], kind: SourceKind(rawValue: $0["kind"]), count: $0["n"]) }
        }
    }

    /// Quotes matching `filter`, by number, a page at a time.
    public func browse(_ filter: QuoteFilter, user: String, limit: Int = 50, offset: Int = 0) throws(QuoteError) -> [Quote] {
        try read { db in
            let (clause, arguments) = try Self.filterClause(filter, user: user, db: db)
            let ids = try Int64.fetchAll(db, sql: "SELECT q.id FROM quote q WHERE 1 \(clause) ORDER BY q.id LIMIT ? OFFSET ?",
                                         arguments: arguments + [limit, offset])
            return try Self.loadQuotes(ids, db: db)
        }
    }

    // MARK: - Favourites

    /// Marks a quote as one of the user's favourites.
    ///
    /// - Returns: false when it already was one.
    /// - Throws: ``QuoteError/quoteNotFound(_:)``, ``QuoteError/invalidText(_:)`` for the user name.
    @discardableResult
    public func favorite(_ id: Quote.ID, user: String) throws(QuoteError) -> Bool {
        try mark(id, user: user, in: .favorite)
    }

    /// Removes a quote from the user's favourites.
    ///
    /// - Returns: false when it was not one.
    /// - Throws: ``QuoteError/quoteNotFound(_:)``.
    @discardableResult
    public func unfavorite(_ id: Quote.ID, user: String) throws(QuoteError) -> Bool {
        try unmark(id, user: user, in: .favorite)
    }

    /// The user's favourites, newest first.
    public func favorites(user: String) throws(QuoteError) -> [Quote] {
        try marked(user: user, in: .favorite)
    }

    /// The lists a user keeps quotes on: favourites, and quotes skipped (never offered again).
    enum UserList: String {
        case favorite
        case skipped
    }

    /// Puts a quote on one of the user's lists; false when it already was there.
    func mark(_ id: Quote.ID, user: String, in list: UserList) throws(QuoteError) -> Bool {
        let user = try Self.validated(name: user, .quoteUserName)
        return try write { db in
            _ = try Self.requireQuote(id, db: db)
            try db.execute(sql: "INSERT OR IGNORE INTO \(list.rawValue) (user, quote_id, created_ms) VALUES (?, ?, ?)", arguments: [user, id, stamp])
            return db.changesCount > 0
        }
    }

    /// Takes a quote off one of the user's lists; false when it was not there.
    func unmark(_ id: Quote.ID, user: String, in list: UserList) throws(QuoteError) -> Bool {
        try write { db in
            _ = try Self.requireQuote(id, db: db)
            try db.execute(sql: "DELETE FROM \(list.rawValue) WHERE user = ? AND quote_id = ?", arguments: [user, id])
            return db.changesCount > 0
        }
    }

    /// The quotes on one of the user's lists, newest first.
    func marked(user: String, in list: UserList) throws(QuoteError) -> [Quote] {
        try read { db in
            try Self.loadQuotes(Int64.fetchAll(db, sql: "SELECT quote_id FROM \(list.rawValue) WHERE user = ? ORDER BY created_ms DESC, quote_id",
                                               arguments: [user]), db: db)
        }
    }

    /// The most favourited quotes across all users.
    public func top(limit: Int = 10) throws(QuoteError) -> [Quote] {
        try read { db in
            try Self.loadQuotes(try Int64.fetchAll(db, sql: """
                SELECT quote_id FROM favorite GROUP BY quote_id ORDER BY count(*) DESC, quote_id LIMIT ?
                """, arguments: [limit]), db: db)
        }
    }

    // MARK: - Notes

    /// Writes a note on a quote.
    ///
    /// - Returns: the new note.
    /// - Throws: ``QuoteError/quoteNotFound(_:)``, ``QuoteError/invalidText(_:)`` for the note or the user name.
    @discardableResult
    public func addNote(_ text: String, on id: Quote.ID, user: String) throws(QuoteError) -> Note {
        let user = try Self.validated(name: user, .quoteUserName)
        let text = try Self.validated(text: text, .quoteNote)
        return try write { db in
            _ = try Self.requireQuote(id, db: db)
            try db.execute(sql: "INSERT INTO note (user, quote_id, text, created_ms, modified_ms) VALUES (?, ?, ?, ?, ?)",
                           arguments: [user, id, text, stamp, stamp])
            return try Self.loadNote(Note.ID(db.lastInsertedRowID), user: user, db: db)
        }
    }

    /// The user's notes, on one quote or all, oldest first.
    ///
    /// - Throws: ``QuoteError/quoteNotFound(_:)`` when `id` names no quote.
    public func notes(on id: Quote.ID? = nil, user: String) throws(QuoteError) -> [Note] {
        try read { db in
            if let id { _ = try Self.requireQuote(id, db: db) }
            return try Row.fetchAll(db, sql: "SELECT * FROM note WHERE user = ? AND (? IS NULL OR quote_id = ?) ORDER BY created_ms, id",
                                    arguments: [user, id, id]).map(Self.note(from:))
        }
    }

    /// Changes the text of one of the user's notes.
    ///
    /// - Returns: the note as it is now.
    /// - Throws: ``QuoteError/noteNotFound(_:)`` (also for another user's note), ``QuoteError/invalidText(_:)``.
    @discardableResult
    public func editNote(_ noteID: Note.ID, text: String, user: String) throws(QuoteError) -> Note {
        let user = try Self.validated(name: user, .quoteUserName)
        let text = try Self.validated(text: text, .quoteNote)
        return try write { db in
            _ = try Self.loadNote(noteID, user: user, db: db)
            try db.execute(sql: "UPDATE note SET text = ?, modified_ms = ? WHERE id = ?", arguments: [text, stamp, noteID])
            return try Self.loadNote(noteID, user: user, db: db)
        }
    }

    /// Deletes one of the user's notes.
    ///
    /// - Throws: ``QuoteError/noteNotFound(_:)`` (also for another user's note).
    public func deleteNote(_ noteID: Note.ID, user: String) throws(QuoteError) {
        try write { db in
            _ = try Self.loadNote(noteID, user: user, db: db)
            try db.execute(sql: "DELETE FROM note WHERE id = ?", arguments: [noteID])
        }
    }

    // MARK: - History

    /// What the user was sent, newest first, optionally since a time; a page of it with `before`.
    ///
    /// - Parameters:
    ///   - user: whose deliveries.
    ///   - since: only deliveries for slots at or after this moment.
    ///   - before: only deliveries for slots before this moment (the slot of the oldest one of
    ///     the page before, for the next page).
    ///   - limit: at most this many, the newest.
    /// - Returns: the deliveries, newest first; a quote sent twice is in each of them.
    public func history(user: String, since: Date? = nil, before: Date? = nil, limit: Int = 100) throws(QuoteError) -> [Delivery] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT quote_id, slot_ms, delivered_ms, channel FROM delivery
                WHERE user = ? AND slot_ms >= ? AND slot_ms < ? ORDER BY slot_ms DESC LIMIT ?
                """, arguments: [user, since.map { Millis($0).value } ?? Int64.min, before.map { Millis($0).value } ?? Int64.max, limit])
            // A quote sent more than once is read once.
            var ids: [Int64] = [], seen = Set<Int64>()
            for row in rows { let id: Int64 = row["quote_id"]; if seen.insert(id).inserted { ids.append(id) } }
            let quotes = Dictionary(try Self.loadQuotes(ids, db: db).map { ($0.id, $0) }) { first, _ in first }
            return rows.compactMap { row in
                guard let quote = quotes[row["quote_id"]] else { return nil }
                return Delivery(quote: quote, slot: Millis(row["slot_ms"] as Int64).date,
                                deliveredAt: Millis(row["delivered_ms"] as Int64).date, channel: row["channel"])
            }
        }
    }

    // MARK: - Plumbing

    static func requireQuote(_ id: Quote.ID, db: Database) throws -> Quote.ID {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM quote WHERE id = ?)", arguments: [id]) == true else {
            throw QuoteError.quoteNotFound(id)
        }
        return id
    }

    static func note(from row: Row) -> Note {
        Note(id: row["id"], quoteID: row["quote_id"], user: row["user"], text: row["text"],
             createdAt: Millis(row["created_ms"] as Int64).date, modifiedAt: Millis(row["modified_ms"] as Int64).date)
    }

    static func loadNote(_ id: Note.ID, user: String, db: Database) throws -> Note {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM note WHERE id = ? AND user = ?", arguments: [id, user]) else {
            throw QuoteError.noteNotFound(id)
        }
        return note(from: row)
    }

    /// SQL conditions (starting with AND) for a filter over `quote q`.
    static func filterClause(_ filter: QuoteFilter, user: String, db: Database) throws -> (String, StatementArguments) {
        var clause = ""
        var arguments: StatementArguments = []
        if let category = filter.category {
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM category WHERE key = ?", arguments: [nameKey(category)]) else {
                throw QuoteError.noQuotes(.unknownCategory(category))
            }
            clause += " AND q.id IN (SELECT quote_id FROM quote_category WHERE category_id = ?)"
            arguments += [id]
        }
        if let source = filter.source {
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE key = ?", arguments: [nameKey(source)]) else {
                throw QuoteError.noQuotes(.unknownSource(source))
            }
            clause += " AND q.source_id = ?"
            arguments += [id]
        }
        if filter.favoritesOnly {
            clause += " AND q.id IN (SELECT quote_id FROM favorite WHERE user = ?)"
            arguments += [user]
        }
        if filter.personalOnly { clause += " AND q.personal" }
        return (clause, arguments)
    }

    /// Quotes by row id, in the order given, with sources, categories and favourite counts.
    static func loadQuotes(_ ids: [Int64], db: Database, community: Bool = true) throws -> [Quote] {
        try loadQuotes(ids, on: DirectConnection(borrowing: db), community: community)
    }

    /// ``loadQuotes(_:db:community:)`` on any connection to the store: the one implementation,
    /// for GRDB's connections and for ``quickRandom(path:user:busyTimeout:keptUntilExit:)``'s.
    static func loadQuotes(_ ids: [Int64], on connection: DirectConnection, community: Bool = true) throws -> [Quote] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map(String.init).joinedText(separator: ",")
        var categories: [Int64: [String]] = [:]
        let names = try connection.prepare("""
            SELECT qc.quote_id, c.name FROM quote_category qc JOIN category c ON c.id = qc.category_id
            WHERE qc.quote_id IN (\(list)) ORDER BY c.key
            """)
        while try names.step() {
            categories[names.columns.int64(0), default: []].append(names.columns.text(1))
        }
        var favorites: [Int64: Int] = [:]
        let counts = try connection.prepare("SELECT quote_id, count(*) FROM favorite WHERE quote_id IN (\(list)) GROUP BY quote_id")
        while try counts.step() {
            favorites[counts.columns.int64(0)] = Int(counts.columns.int64(1))
        }
        var quotes: [Int64: Quote] = [:]
        let rows = try connection.prepare("""
            SELECT q.id, q.text, q.citation, q.personal, q.added_ms, s.id, s.name, s.kind
            FROM quote q LEFT JOIN source s ON s.id = q.source_id WHERE q.id IN (\(list))
            """)
        while try rows.step() {
            let row = rows.columns, id = row.int64(0)
            let source = row.optionalInt64(5).map { Source(id: Source.ID($0), name: row.text(6), kind: SourceKind(rawValue: row.text(7)) ?? .other) }
            quotes[id] = Quote(id: Quote.ID(id), text: row.text(1), source: source, citation: row.optionalText(2), categories: categories[id] ?? [],
                               isPersonal: row.int64(3) != 0, addedAt: Millis(row.int64(4)).date, favoriteCount: favorites[id] ?? 0)
        }
        if community {
            let counts = try communityCounts(of: quotes.values.map { ($0.id.rawValue, $0.text, $0.source?.name, $0.isPersonal) }, on: connection)
            for (id, count) in counts { quotes[id]?.communityFavoriteCount = count }
        }
        return ids.compactMap { quotes[$0] }
    }
}
