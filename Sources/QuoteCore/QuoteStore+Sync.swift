import Foundation
import GRDB
import SuiteStorage
import SuiteSyncProtocol

/// What of the quote store syncs (see `SyncLedger` in SuiteStorage and README's Sync section):
/// quotes with their sources and categories, favourites, notes, skipped quotes, the not-to-do
/// list, schedules and the delivery history; each field merged on its own (the last writer wins).
///
/// - A quote is known by its content key (its dedupe hash: the same quote imported on two
///   devices is one); sources and categories by their name keys.
/// - A favourite by user and quote: unfavouriting deletes it, the later of the two wins.
/// - A note by a random key made when it is written; a delivery by user and slot (a log that
///   only grows); a schedule by user.
/// - Shuffle bags are the device's own and do not sync.
extension QuoteStore {
    static let syncSchema = SyncSchema(entities: syncedBeforeNotToDo.entities + [
        SyncEntity(name: "nottodo", table: "nottodo", keyColumn: "sync_key", fields: [
            SyncField("user"), SyncField.text("text"), SyncField("category"),
            SyncField("created", columns: ["created_ms"]), SyncField("modified", columns: ["modified_ms"]),
        ]),
    ], afterApply: { db, touched in try refreshDedupe(db, quotes: touched["quote"] ?? []) })

    /// A quote's dedupe key follows its words and source. When one device changed the words and
    /// another the source at the same time, each pushed the key of its own half; once both halves
    /// are here, the key is made again from what the quote now says (every device makes the same
    /// one) and pushed as this device's change. A key another quote already has is left as it is
    /// (the merge made a duplicate; nothing is lost).
    static func refreshDedupe(_ db: Database, quotes keys: Set<String>) throws {
        for key in keys.sorted() {
            guard let row = try Row.fetchOne(db, sql: """
                SELECT quote.id, quote.text, quote.dedupe, source.name FROM quote LEFT JOIN source ON source.id = quote.source_id
                WHERE quote.sync_key = ?
                """, arguments: [key]) else { continue }
            let dedupe = dedupeKey(text: row["text"], source: row["name"])
            guard row["dedupe"] as Data? != dedupe,
                  try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM quote WHERE dedupe = ? AND id <> ?)", arguments: [dedupe, row["id"] as Int64])!
            else { continue }
            try SyncLedger.capturing(db) {
                try db.execute(sql: "UPDATE quote SET dedupe = ? WHERE id = ?", arguments: [dedupe, row["id"] as Int64])
            }
        }
    }

    /// What synced before the not-to-do list existed: migration v6 installs this much.
    static let syncedBeforeNotToDo = SyncSchema(entities: syncedBeforeSkipped.entities + [
        SyncEntity(name: "skipped", table: "skipped", idColumn: "rowid", keyColumn: "sync_key", fields: [
            SyncField("user", identity: true), SyncField("quote", columns: ["quote_id"], reference: "quote", required: true, identity: true), SyncField("created", columns: ["created_ms"]),
        ]),
    ])

    /// What synced before skipped quotes existed: the sync migration (v3) installs this much.
    static let syncedBeforeSkipped = SyncSchema(entities: [
        SyncEntity(name: "source", table: "source", keyColumn: "key", fields: [SyncField("name"), SyncField("kind")]),
        SyncEntity(name: "category", table: "category", keyColumn: "key", fields: [SyncField("name")]),
        SyncEntity(name: "quote", table: "quote", keyColumn: "sync_key", fields: [
            SyncField.text("text"), SyncField("source", columns: ["source_id"], reference: "source"), SyncField.text("citation"),
            SyncField("personal"), SyncField("added", columns: ["added_ms"]), SyncField("dedupe"),
        ]),
        SyncEntity(name: "quote-category", table: "quote_category", idColumn: "rowid", keyColumn: "sync_key", fields: [
            SyncField("category", columns: ["category_id"], reference: "category", required: true, identity: true),
            SyncField("quote", columns: ["quote_id"], reference: "quote", required: true, identity: true),
        ]),
        SyncEntity(name: "favorite", table: "favorite", idColumn: "rowid", keyColumn: "sync_key", fields: [
            SyncField("user", identity: true), SyncField("quote", columns: ["quote_id"], reference: "quote", required: true, identity: true), SyncField("created", columns: ["created_ms"]),
        ]),
        SyncEntity(name: "note", table: "note", keyColumn: "sync_key", fields: [
            SyncField("user"), SyncField("quote", columns: ["quote_id"], reference: "quote", required: true), SyncField.text("text"),
            SyncField("created", columns: ["created_ms"]), SyncField("modified", columns: ["modified_ms"]),
        ]),
        SyncEntity(name: "delivery", table: "delivery", idColumn: "rowid", keyColumn: "sync_key", fields: [
            SyncField("user", identity: true), SyncField("slot", columns: ["slot_ms"], identity: true), SyncField("quote", columns: ["quote_id"], reference: "quote", required: true),
            SyncField("delivered", columns: ["delivered_ms"]), SyncField("channel"),
        ]),
        SyncEntity(name: "schedule", table: "schedule", idColumn: "rowid", keyColumn: "user", fields: [SyncField("definition")]),
    ])

    /// The quotes a user skipped (tailored picks avoid them), kept and synced as favourites are.
    static func migrateToSkipped(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE skipped (
                user TEXT NOT NULL,
                quote_id INTEGER NOT NULL REFERENCES quote(id) ON DELETE CASCADE,
                created_ms INTEGER NOT NULL,
                sync_key TEXT,
                PRIMARY KEY (user, quote_id)
            ) WITHOUT ROWID;
            CREATE INDEX skipped_quote ON skipped(quote_id);
            CREATE UNIQUE INDEX skipped_sync_key ON skipped(sync_key);
            CREATE TRIGGER skipped_sync_key AFTER INSERT ON skipped WHEN NEW.sync_key IS NULL BEGIN
                UPDATE skipped SET sync_key = NEW.user || '|' || (SELECT sync_key FROM quote WHERE id = NEW.quote_id)
                WHERE user = NEW.user AND quote_id = NEW.quote_id;
            END;
            """)
        try SyncLedger.installTriggers(db, schema: syncedBeforeNotToDo)
    }

    /// The SQL for a new quote's key: its dedupe hash (the same quote added on two devices is
    /// one), or a random key when an edited quote holds that one already.
    static let quoteKeySQL = "CASE WHEN EXISTS (SELECT 1 FROM quote WHERE sync_key = lower(hex(?6))) THEN lower(hex(randomblob(16))) ELSE lower(hex(?6)) END"
    /// The SQL for a new quote-category row's key, from `?1` (the category's id) and `?2` (the quote's).
    static let quoteCategoryKeySQL = "(SELECT key FROM category WHERE id = ?1) || '|' || (SELECT sync_key FROM quote WHERE id = ?2)"

    /// The migration that makes the store ready to sync: keys for the rows that had none (set
    /// in the import's own statements for quotes, by triggers for the rarer rows), and the ledger.
    static func migrateToSync(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE quote ADD COLUMN sync_key TEXT;
            UPDATE quote SET sync_key = lower(hex(dedupe));
            CREATE UNIQUE INDEX quote_sync_key ON quote(sync_key);
            ALTER TABLE quote_category ADD COLUMN sync_key TEXT;
            UPDATE quote_category SET sync_key = (SELECT key FROM category WHERE id = category_id) || '|' || (SELECT sync_key FROM quote WHERE id = quote_id);
            CREATE UNIQUE INDEX quote_category_sync_key ON quote_category(sync_key);
            ALTER TABLE favorite ADD COLUMN sync_key TEXT;
            UPDATE favorite SET sync_key = user || '|' || (SELECT sync_key FROM quote WHERE id = quote_id);
            CREATE UNIQUE INDEX favorite_sync_key ON favorite(sync_key);
            CREATE TRIGGER favorite_sync_key AFTER INSERT ON favorite WHEN NEW.sync_key IS NULL BEGIN
                UPDATE favorite SET sync_key = NEW.user || '|' || (SELECT sync_key FROM quote WHERE id = NEW.quote_id)
                WHERE user = NEW.user AND quote_id = NEW.quote_id;
            END;
            ALTER TABLE note ADD COLUMN sync_key TEXT;
            UPDATE note SET sync_key = lower(hex(randomblob(16)));
            CREATE UNIQUE INDEX note_sync_key ON note(sync_key);
            CREATE TRIGGER note_sync_key AFTER INSERT ON note WHEN NEW.sync_key IS NULL BEGIN
                UPDATE note SET sync_key = lower(hex(randomblob(16))) WHERE id = NEW.id;
            END;
            ALTER TABLE delivery ADD COLUMN sync_key TEXT;
            UPDATE delivery SET sync_key = user || '|' || slot_ms;
            CREATE UNIQUE INDEX delivery_sync_key ON delivery(sync_key);
            CREATE TRIGGER delivery_sync_key AFTER INSERT ON delivery WHEN NEW.sync_key IS NULL BEGIN
                UPDATE delivery SET sync_key = NEW.user || '|' || NEW.slot_ms WHERE user = NEW.user AND slot_ms = NEW.slot_ms;
            END;
            """)
        try SyncLedger.install(db, schema: syncedBeforeSkipped)
    }

    /// The earlier texts of one of the user's notes that lost to an edit made at the same time
    /// on another device, newest first: the note's revisions, kept so that nothing written is
    /// lost silently.
    ///
    /// - Throws: ``QuoteError/noteNotFound(_:)`` (also for another user's note).
    public func revisions(ofNote noteID: Note.ID, user: String) throws(QuoteError) -> [NoteRevision] {
        let key: String? = try read { db in
            _ = try Self.loadNote(noteID, user: user, db: db)
            return try String.fetchOne(db, sql: "SELECT sync_key FROM note WHERE id = ?", arguments: [noteID])
        }
        guard let key, try store.syncIsEnabled() else { return [] }
        return try store.syncConflicts(entity: "note", key: key).compactMap { conflict in
            guard conflict.field == "text", case .text(let text) = conflict.value else { return nil }
            return NoteRevision(text: text, writtenAt: Date(timeIntervalSince1970: Double(conflict.time.millis) / 1000))
        }
    }

}

/// A text of a note that lost to an edit made at the same time on another device.
public struct NoteRevision: Codable, Sendable, Hashable {
    /// The text that lost.
    public var text: String
    /// When it was written.
    public var writtenAt: Date
}

extension QuoteStore: SyncableStore {
    /// The store's log on a sync server.
    public static let syncLog = "quotes"

    /// What `SuiteSync`'s `SyncClient` syncs this store through.
    public var syncHandle: SyncHandle { SyncHandle(log: Self.syncLog, store: store) }
}
