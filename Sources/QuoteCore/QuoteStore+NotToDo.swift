import Foundation
import GRDB
import SuiteStorage

/// Something the user means to avoid (the seed's NotToDo list), optionally tied to a category of
/// quotes: a delivery of a quote of that category can carry it as a reminder.
public struct NotToDo: Codable, Sendable, Hashable, Identifiable {
    /// A not-to-do's id in the store.
    public typealias ID = RecordID<NotToDo>

    /// Its id (encoded as its number).
    public var id: ID
    /// Whose list it is on.
    public var user: String
    /// What to avoid.
    public var text: String
    /// The category of quotes it goes with, if any.
    public var category: String?
    /// When it was written.
    public var createdAt: Date
    /// When it last changed.
    public var modifiedAt: Date
}

extension QuoteStore {
    /// Puts something to avoid on the user's list.
    ///
    /// - Parameters:
    ///   - text: what to avoid (one line).
    ///   - category: the category of quotes it goes with (need not have quotes yet).
    ///   - user: whose list.
    /// - Throws: ``QuoteError/invalidText(_:)`` naming the field.
    @discardableResult
    public func addNotToDo(_ text: String, category: String? = nil, user: String) throws(QuoteError) -> NotToDo {
        let user = try Self.validated(name: user, .quoteUserName)
        let text = try Self.validated(name: text, .quoteNotToDo)
        let category = try category.map { (value: String) throws(QuoteError) -> String in try Self.validated(name: value, .quoteCategory) }
        return try write { db in
            try db.execute(sql: "INSERT INTO nottodo (user, text, category, created_ms, modified_ms) VALUES (?, ?, ?, ?, ?)",
                           arguments: [user, text, category, stamp, stamp])
            return try Self.loadNotToDo(NotToDo.ID(db.lastInsertedRowID), user: user, db: db)
        }
    }

    /// The user's not-to-do list, oldest first.
    public func notToDos(user: String) throws(QuoteError) -> [NotToDo] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM nottodo WHERE user = ? ORDER BY created_ms, id", arguments: [user]).map(Self.notToDo(from:))
        }
    }

    /// Changes a not-to-do's words and/or category; nil leaves a field as it is, `.some(nil)`
    /// for `category` unties it.
    ///
    /// - Throws: ``QuoteError/notToDoNotFound(_:)`` (also for another user's),
    ///   ``QuoteError/invalidText(_:)``.
    @discardableResult
    public func editNotToDo(_ id: NotToDo.ID, text: String? = nil, category: String?? = nil, user: String) throws(QuoteError) -> NotToDo {
        let newText = try text.map { (value: String) throws(QuoteError) -> String in try Self.validated(name: value, .quoteNotToDo) }
        var newCategory: String??
        if let category {
            newCategory = .some(try category.map { (value: String) throws(QuoteError) -> String in try Self.validated(name: value, .quoteCategory) })
        }
        let change = newCategory
        return try write { db in
            var item = try Self.loadNotToDo(id, user: user, db: db)
            if let newText { item.text = newText }
            if let change { item.category = change }
            try db.execute(sql: "UPDATE nottodo SET text = ?, category = ?, modified_ms = ? WHERE id = ?", arguments: [item.text, item.category, stamp, id])
            return try Self.loadNotToDo(id, user: user, db: db)
        }
    }

    /// Takes a not-to-do off the user's list.
    ///
    /// - Returns: it, as it was.
    /// - Throws: ``QuoteError/notToDoNotFound(_:)``.
    @discardableResult
    public func removeNotToDo(_ id: NotToDo.ID, user: String) throws(QuoteError) -> NotToDo {
        try write { db in
            let item = try Self.loadNotToDo(id, user: user, db: db)
            try db.execute(sql: "DELETE FROM nottodo WHERE id = ?", arguments: [id])
            return item
        }
    }

    /// A reminder for a delivery of `quote`: one of the user's not-to-dos of the quote's
    /// categories, else one tied to none, picked at random; nil when the list has neither.
    static func reminder(for quote: Quote, user: String, db: Database) throws -> NotToDo? {
        let keys = quote.categories.map(nameKey)
        let items = try Row.fetchAll(db, sql: "SELECT * FROM nottodo WHERE user = ?", arguments: [user]).map(notToDo(from:))
        let matching = items.filter { item in item.category.map { keys.contains(nameKey($0)) } ?? false }
        return (matching.isEmpty ? items.filter { $0.category == nil } : matching).randomElement()
    }

    static func loadNotToDo(_ id: NotToDo.ID, user: String, db: Database) throws -> NotToDo {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM nottodo WHERE id = ? AND user = ?", arguments: [id, user]) else {
            throw QuoteError.notToDoNotFound(id)
        }
        return notToDo(from: row)
    }

    static func notToDo(from row: Row) -> NotToDo {
        NotToDo(id: NotToDo.ID(row["id"] as Int64), user: row["user"], text: row["text"], category: row["category"],
                // Columns filled by sync are read leniently: a value of another type is not a trap.
                createdAt: Millis(Int64.fromDatabaseValue(row["created_ms"]) ?? 0).date,
                modifiedAt: Millis(Int64.fromDatabaseValue(row["modified_ms"]) ?? 0).date)
    }

    /// The not-to-do list (migration v7), synced by a random key as notes are.
    static func migrateToNotToDo(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE nottodo (
                id INTEGER PRIMARY KEY,
                user TEXT NOT NULL,
                text TEXT NOT NULL,
                category TEXT,
                created_ms INTEGER NOT NULL,
                modified_ms INTEGER NOT NULL,
                sync_key TEXT
            );
            CREATE INDEX nottodo_user ON nottodo(user);
            CREATE UNIQUE INDEX nottodo_sync_key ON nottodo(sync_key);
            CREATE TRIGGER nottodo_sync_key AFTER INSERT ON nottodo WHEN NEW.sync_key IS NULL BEGIN
                UPDATE nottodo SET sync_key = lower(hex(randomblob(16))) WHERE id = NEW.id;
            END;
            """)
        try SyncLedger.installTriggers(db, schema: syncSchema)
    }
}
