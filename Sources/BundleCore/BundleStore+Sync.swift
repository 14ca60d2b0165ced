import Foundation
import GRDB
import SuiteStorage
import SuiteSyncProtocol

/// What of the bundle store syncs, and how (see `SyncLedger` in SuiteStorage and README's Sync
/// section): every trigger event, name, calendar time, todo, bundle and bundle item, each field
/// merged on its own.
///
/// - Trigger events are known by a content key, their phrase when created as `matchKey` makes it
///   (the same event typed on two devices is one); names by their match key.
/// - Todos and bundles by their UUID; a bundle's items by bundle and todo UUID.
/// - A todo's status moves forward only (see ``statusRank(_:)``): a reopen (or an import that
///   moves a finished todo back) raises its generation, a throw-back or abandon its cycle, so a
///   stale status from a device that did not see a completion cannot undo it.
/// - When a todo was last reminded is the device's own and does not sync.
extension BundleStore {
    /// The order of a todo's status values (generation, cycle, status): a reopen raises the
    /// generation and wins over everything before it; within a generation done or dropped wins
    /// over any pending or in-bundle state (a stale throw-back cannot undo a completion); before
    /// that, each throw-back raises the cycle, so it wins over the check-in it undoes, and a
    /// check-in (in a bundle) wins over the pending state of its cycle.
    @Sendable static func statusRank(_ value: SyncValue) -> Int64 {
        let parts = value.elements
        guard parts.count == 3, case .integer(let generation) = parts[0], case .integer(let cycle) = parts[1],
              case .text(let status) = parts[2] else { return 0 }
        let span: Int64 = 1 << 32
        let base = min(max(generation, 0), Int64(Int32.max)) * span
        if status == "done" || status == "dropped" { return base + span - 1 }
        return base + min(max(cycle, 0) * 2 + (status == "in-bundle" ? 1 : 0), span - 2)
    }

    static let syncSchema = SyncSchema(entities: syncedBeforeAttachments.entities + [
        SyncEntity(name: "todo-link", table: "todo_attachment", keyColumn: "sync_key", fields: [
            SyncField("todo", columns: ["todo_id"], reference: "todo", required: true), SyncField("kind"), SyncField("link"),
            SyncField("created", columns: ["created_ms"]),
        ]),
    ])

    /// What synced before attachments existed: migration v5 installs this much.
    static let syncedBeforeAttachments = SyncSchema(entities: syncedBeforeRoutines.entities + [
        SyncEntity(name: "routine", table: "routine", keyColumn: "key", fields: [
            SyncField.text("name"), SyncField("icon"), SyncField("items"), SyncField("created", columns: ["created_ms"]),
        ]),
    ])

    /// What synced before routines existed: migration v4 installs this much.
    static let syncedBeforeRoutines = SyncSchema(entities: syncedBeforeEventTimes.entities + [
        SyncEntity(name: "event-time", table: "event_time", keyColumn: "sync_key", fields: [
            SyncField("event", columns: ["event_id"], reference: "event", required: true), SyncField("calendar", columns: ["calendar_uid"]),
            SyncField("start", columns: ["start_ms"]), SyncField("end", columns: ["end_ms"]), SyncField("all-day", columns: ["all_day"]),
        ]),
    ])

    /// What synced before calendar times existed: the sync migration (v2) installs this much.
    static let syncedBeforeEventTimes = SyncSchema(entities: [
        SyncEntity(name: "event", table: "event", keyColumn: "sync_key", fields: [
            SyncField.text("name"), SyncField("archived"), SyncField("created", columns: ["created_ms"]),
        ]),
        SyncEntity(name: "event-name", table: "event_name", idColumn: "rowid", keyColumn: "key", fields: [
            SyncField("phrase"), SyncField("event", columns: ["event_id"], reference: "event", required: true), SyncField("alias", columns: ["is_alias"]),
        ]),
        SyncEntity(name: "bundle", table: "bundle", keyColumn: "uuid", fields: [
            SyncField.text("title"), SyncField("icon"), SyncField("event", columns: ["event_id"], reference: "event", required: true),
            SyncField("direction"),
            SyncField("status", rank: { value in value == .text("open") ? 0 : 1 }),
            SyncField("created", columns: ["created_ms"]), SyncField("finished", columns: ["finished_ms"]),
        ]),
        SyncEntity(name: "todo", table: "todo", keyColumn: "uuid", fields: [
            SyncField.text("text"), SyncField("event", columns: ["event_id"], reference: "event"), SyncField("preposition"),
            SyncField("deadline"),
            SyncField("status", columns: ["generation", "cycle", "status"], rank: statusRank),
            SyncField("bundle", columns: ["bundle_id"], reference: "bundle"), SyncField.text("notes"),
            SyncField("created", columns: ["created_ms"]), SyncField("modified", columns: ["modified_ms"]),
            SyncField("completed", columns: ["completed_ms"]), SyncField("foreign", columns: ["foreign_fields"]),
        ]),
        SyncEntity(name: "bundle-item", table: "bundle_item", idColumn: "rowid", keyColumn: "sync_key", fields: [
            SyncField("bundle", columns: ["bundle_id"], reference: "bundle", required: true, identity: true),
            SyncField("todo", columns: ["todo_id"], reference: "todo", required: true, identity: true),
            SyncField("position"), SyncField("outcome"),
        ]),
    ])

    /// The migration that makes the store ready to sync: global keys where rows had none, the
    /// todo's generation and cycle, the ledger, and the rules that raise them on a move back.
    static func migrateToSync(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE event ADD COLUMN sync_key TEXT;
            UPDATE event SET sync_key = coalesce(
                (SELECT key FROM event_name WHERE event_id = event.id AND is_alias = 0 ORDER BY key LIMIT 1), 'event/' || lower(hex(randomblob(8))));
            CREATE UNIQUE INDEX event_sync_key ON event(sync_key);
            ALTER TABLE todo ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE todo ADD COLUMN cycle INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE bundle_item ADD COLUMN sync_key TEXT;
            UPDATE bundle_item SET sync_key = (SELECT uuid FROM bundle WHERE id = bundle_id) || '/' || (SELECT uuid FROM todo WHERE id = todo_id);
            CREATE UNIQUE INDEX bundle_item_sync_key ON bundle_item(sync_key);
            """)
        try SyncLedger.install(db, schema: syncedBeforeEventTimes)
        try db.execute(sql: """
            CREATE TRIGGER todo_reopen AFTER UPDATE OF status ON todo
            WHEN NEW.generation = OLD.generation AND OLD.status IN ('done', 'dropped') AND NEW.status IN ('pending', 'in-bundle')
                AND (SELECT NOT applying FROM sync_control)
            BEGIN
                UPDATE todo SET generation = OLD.generation + 1, cycle = 0 WHERE id = NEW.id;
            END;
            CREATE TRIGGER todo_throw_back AFTER UPDATE OF status ON todo
            WHEN NEW.cycle = OLD.cycle AND OLD.status = 'in-bundle' AND NEW.status = 'pending'
                AND (SELECT NOT applying FROM sync_control)
            BEGIN
                UPDATE todo SET cycle = OLD.cycle + 1 WHERE id = NEW.id;
            END;
            """)
    }

    /// The SQL for a new bundle item's key, from `?1` (the bundle's id) and `?2` (the todo's).
    static let itemKeySQL = "(SELECT uuid FROM bundle WHERE id = ?1) || '/' || (SELECT uuid FROM todo WHERE id = ?2)"
}

extension BundleStore: SyncableStore {
    /// The store's log on a sync server.
    public static let syncLog = "bundle"

    /// What `SuiteSync`'s `SyncClient` syncs this store through.
    public var syncHandle: SyncHandle { SyncHandle(log: Self.syncLog, store: store) }
}
