import Foundation
import GRDB
import SuiteStorage

/// The quote store: quotes with their sources and categories, and per user favourites, notes,
/// shuffle bags, a schedule and the history of deliveries, in one SQLite file with an FTS5 index.
public final class QuoteStore: Sendable {
    /// The conventional file name inside the Suite store folder.
    public static let fileName = "quotes.sqlite"
    /// The longest quote or note accepted, in UTF-8 bytes.
    public static let maximumTextLength = 20_000
    /// The longest source, category, citation or user name accepted, in characters.
    public static let maximumNameLength = 200

    let store: Store<QuoteError>
    let now: @Sendable () -> Date

    /// The store file's path.
    public var path: String { store.path }

    /// Opens the store at `url`, creating it when missing.
    ///
    /// This blocks while the file is opened (and, for a new or older store, created or migrated);
    /// from an `async` context use ``open(at:readOnly:busyTimeout:now:)``, which does the same on a
    /// background thread.
    ///
    /// - Parameters:
    ///   - url: the store file.
    ///   - readOnly: read without writing anything to the file, for queries: no log set-up, no
    ///     migration (a store that needs creating or migrating is brought up to date first). Writes
    ///     through such a store fail.
    ///   - busyTimeout: how long to wait for another process holding the store.
    ///   - now: the clock used for timestamps and deliveries.
    /// - Throws: ``QuoteError/store(_:)`` when the file cannot be used (damaged, newer, busy, no FTS5 …).
    public init(url: URL, readOnly: Bool = false, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init) throws(QuoteError) {
        store = try Store.open(at: url, migrator: Self.migrator, configuration: Self.configuration(busyTimeout: busyTimeout, now: now), readOnly: readOnly)
        self.now = now
    }

    private init(store: Store<QuoteError>, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// Opens the store at `url` as ``init(url:readOnly:busyTimeout:now:)`` does, on a background
    /// thread, so that the calling actor (the main actor of a screen) is never blocked by the file,
    /// a migration or another process holding the store.
    ///
    /// - Parameters:
    ///   - url: the store file; created when missing.
    ///   - readOnly: open for reading only; writes through the store fail.
    ///   - busyTimeout: how long to wait for another process holding the store.
    ///   - now: the clock used for timestamps and deliveries.
    /// - Returns: the open store.
    /// - Throws: ``QuoteError/store(_:)`` when the file cannot be used.
    public static func open(
        at url: URL, readOnly: Bool = false, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init
    ) async throws(QuoteError) -> QuoteStore {
        try await Background.run { () throws(QuoteError) -> QuoteStore in
            try QuoteStore(url: url, readOnly: readOnly, busyTimeout: busyTimeout, now: now)
        }
    }

    /// A new, empty store in memory, with the same schema and checks as a store file, for previews
    /// and tests. Nothing is written to disk; no other process sees it; it is gone when released.
    /// Like a new store file it holds no quote: ``addStarterCollectionIfEmpty()-9ltem`` fills it.
    ///
    /// - Parameter now: the clock used for timestamps and deliveries.
    /// - Returns: the store.
    /// - Throws: ``QuoteError/store(_:)`` with `StoreError.Kind.missingFeature` when SQLite lacks FTS5.
    public static func inMemory(now: @escaping @Sendable () -> Date = Date.init) throws(QuoteError) -> QuoteStore {
        QuoteStore(store: try Store.inMemory(migrator: migrator, configuration: configuration(busyTimeout: 10, now: now)), now: now)
    }

    /// The store's application id ("SQUT"), busy timeout and need of FTS5.
    static func configuration(busyTimeout: TimeInterval, now: @escaping @Sendable () -> Date = Date.init) -> StoreConfiguration {
        StoreConfiguration(applicationID: applicationID, busyTimeout: busyTimeout, requiredFeatures: [.fts5], sync: syncSchema, clock: now)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerStoreMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE source (id INTEGER PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL);
                CREATE TABLE category (id INTEGER PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL UNIQUE);
                CREATE TABLE quote (
                    id INTEGER PRIMARY KEY,
                    text TEXT NOT NULL,
                    source_id INTEGER REFERENCES source(id),
                    citation TEXT,
                    personal INTEGER NOT NULL DEFAULT 0,
                    added_ms INTEGER NOT NULL,
                    dedupe BLOB NOT NULL UNIQUE
                );
                CREATE INDEX quote_source ON quote(source_id);
                CREATE TABLE quote_category (
                    category_id INTEGER NOT NULL REFERENCES category(id),
                    quote_id INTEGER NOT NULL REFERENCES quote(id) ON DELETE CASCADE,
                    PRIMARY KEY (category_id, quote_id)
                ) WITHOUT ROWID;
                CREATE INDEX quote_category_quote ON quote_category(quote_id, category_id);
                CREATE VIRTUAL TABLE quote_fts USING fts5(text, content='quote', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
                CREATE VIRTUAL TABLE quote_vocab USING fts5vocab(quote_fts, 'row');
                CREATE TRIGGER quote_fts_insert AFTER INSERT ON quote BEGIN
                    INSERT INTO quote_fts (rowid, text) VALUES (new.id, new.text);
                END;
                CREATE TRIGGER quote_fts_delete AFTER DELETE ON quote BEGIN
                    INSERT INTO quote_fts (quote_fts, rowid, text) VALUES ('delete', old.id, old.text);
                END;
                CREATE TRIGGER quote_fts_update AFTER UPDATE OF text ON quote BEGIN
                    INSERT INTO quote_fts (quote_fts, rowid, text) VALUES ('delete', old.id, old.text);
                    INSERT INTO quote_fts (rowid, text) VALUES (new.id, new.text);
                END;
                CREATE TABLE favorite (
                    user TEXT NOT NULL,
                    quote_id INTEGER NOT NULL REFERENCES quote(id) ON DELETE CASCADE,
                    created_ms INTEGER NOT NULL,
                    PRIMARY KEY (user, quote_id)
                ) WITHOUT ROWID;
                CREATE INDEX favorite_quote ON favorite(quote_id);
                CREATE TABLE note (
                    id INTEGER PRIMARY KEY,
                    user TEXT NOT NULL,
                    quote_id INTEGER NOT NULL REFERENCES quote(id) ON DELETE CASCADE,
                    text TEXT NOT NULL,
                    created_ms INTEGER NOT NULL,
                    modified_ms INTEGER NOT NULL
                );
                CREATE INDEX note_user ON note(user, quote_id);
                CREATE TABLE delivery (
                    user TEXT NOT NULL,
                    slot_ms INTEGER NOT NULL,
                    quote_id INTEGER NOT NULL REFERENCES quote(id) ON DELETE CASCADE,
                    delivered_ms INTEGER NOT NULL,
                    channel TEXT NOT NULL,
                    PRIMARY KEY (user, slot_ms)
                ) WITHOUT ROWID;
                CREATE TABLE schedule (user TEXT PRIMARY KEY NOT NULL, definition TEXT NOT NULL) WITHOUT ROWID;
                CREATE TABLE bag (
                    user TEXT NOT NULL, filter TEXT NOT NULL, position INTEGER NOT NULL, quote_id INTEGER NOT NULL,
                    PRIMARY KEY (user, filter, position)
                ) WITHOUT ROWID;
                CREATE TABLE bag_state (
                    user TEXT NOT NULL, filter TEXT NOT NULL,
                    seed INTEGER NOT NULL, bound INTEGER NOT NULL, cursor INTEGER NOT NULL, size INTEGER NOT NULL,
                    last_quote INTEGER, deferred INTEGER,
                    PRIMARY KEY (user, filter)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerStoreMigration("v2-bag-top") { db in
            // The highest quote id a bag's round has seen: quotes added later join the round.
            try db.execute(sql: "ALTER TABLE bag_state ADD COLUMN top INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerStoreMigration("v3-sync", migrate: migrateToSync)
        migrator.registerStoreMigration("v4-sync-conflicts", migrate: SyncLedger.addConflictLog)
        migrator.registerStoreMigration("v5-community", migrate: migrateToCommunity)
        migrator.registerStoreMigration("v6-skipped", migrate: migrateToSkipped)
        migrator.registerStoreMigration("v7-nottodo", migrate: migrateToNotToDo)
        migrator.registerStoreMigration("v8-day-pick") { db in
            // The quote of each day, kept when first asked for: imports later that day do not change it.
            // A removed quote's days are forgotten with it: a quote added later may take its number.
            try db.execute(sql: """
                CREATE TABLE day_pick (day INTEGER PRIMARY KEY, quote_id INTEGER NOT NULL);
                CREATE TRIGGER day_pick_forget AFTER DELETE ON quote BEGIN
                    DELETE FROM day_pick WHERE quote_id = old.id;
                END;
                """)
        }
        migrator.registerStoreMigration("v9-sync-set-aside", migrate: SyncLedger.addSetAsideLog)
        return migrator
    }

    // MARK: - Transactions

    func read<T>(_ body: (Database) throws -> T) throws(QuoteError) -> T { try store.read(body) }

    func write<T>(_ body: (Database) throws -> T) throws(QuoteError) -> T { try store.write(body) }

    func lightWrite<T>(_ body: (Database) throws -> T) throws(QuoteError) -> T { try store.lightWrite(body) }

    var stamp: Int64 { Millis(now()).value }

    // MARK: - Validation and keys

    /// Lower case, runs of white space as one space: how names are matched.
    static func nameKey(_ name: String) -> String {
        let lower = name.lowercased()
        guard lower.utf8.allSatisfy({ $0 < 0x80 }) else {
            return lower.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        }
        // ASCII: the same result byte by byte (white space is 09–0D and 20), without grapheme breaking.
        var key: [UInt8] = []
        key.reserveCapacity(lower.utf8.count)
        var space = false
        for byte in lower.utf8 {
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                space = !key.isEmpty
            } else {
                if space { key.append(0x20); space = false }
                key.append(byte)
            }
        }
        return String(decoding: key, as: UTF8.self)
    }

    /// Checks quote or note text with the one text rule (``SuiteStorage/TextRule``): not empty,
    /// at most ``maximumTextLength`` bytes, line breaks as LF, no control characters but tab.
    /// Returns it normalised and trimmed.
    static func validated(text: String, _ field: FieldName) throws(QuoteError) -> String {
        try TextRule.check(text, .text(limit: maximumTextLength)).get(field, as: QuoteError.invalidText)
    }

    /// Checks a one-line name (source, category, citation, user): at most
    /// ``maximumNameLength`` characters, no line break or control character.
    static func validated(name: String, _ field: FieldName) throws(QuoteError) -> String {
        try TextRule.check(name, .line(limit: maximumNameLength)).get(field, as: QuoteError.invalidText)
    }

    /// 16 bytes naming the normalised text and source: equal for duplicates.
    static func dedupeKey(text: String, source: String?) -> Data {
        let normal = nameKey(text) + "\u{1F}" + (source.map(nameKey) ?? "")
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in normal.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b &+ UInt64(byte)) &* 0x9e37_79b9_7f4a_7c15
            b ^= b >> 31
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: a >> (8 * index))
            bytes[index + 8] = UInt8(truncatingIfNeeded: b >> (8 * index))
        }
        return Data(bytes)
    }
}
