import Foundation
import GRDB
import SuiteStorage
import SuiteSyncProtocol

/// What of the places store syncs (see `SyncLedger` in SuiteStorage and README's Sync section):
/// every place and every rating, each field merged on its own (the last writer wins).
///
/// - A place is known everywhere by its origin and id there (`yelp:…`, `osm:node/…`, or the
///   UUID of a place added by hand): the same provider place fetched on two devices is one.
/// - A rating by its place's key.
/// - The current location is the device's own and does not sync.
extension PlaceStore {
    static let syncSchema = SyncSchema(entities: [
        SyncEntity(name: "place", table: "place", keyColumn: "sync_key", fields: [
            SyncField.text("name"), SyncField("type"), SyncField("lat"), SyncField("lon"), SyncField.text("address"), SyncField("phone"),
            SyncField("website"), SyncField.text("hours", columns: ["opening_hours"]), SyncField("categories"), SyncField("origin", identity: true),
            SyncField("provider-id", columns: ["provider_id"], identity: true), SyncField("fetched", columns: ["fetched_ms"]),
            SyncField("created", columns: ["created_ms"]), SyncField("saved"),
        ]),
        SyncEntity(name: "rating", table: "rating", idColumn: "place_id", keyColumn: "sync_key", fields: [
            SyncField("place", columns: ["place_id"], reference: "place", required: true, identity: true),
            SyncField("noise"), SyncField("outlets"), SyncField("wifi"), SyncField("cost"), SyncField("seating"),
            SyncField("wifi-mbps", columns: ["wifi_mbps"]), SyncField.text("menu"), SyncField.text("notes"), SyncField("pin-color", columns: ["pin_color"]),
            SyncField("type-override", columns: ["type_override"]), SyncField("updated", columns: ["updated_ms"]),
        ]),
    ])

    /// The migration that makes the store ready to sync: the keys (set by triggers as rows are
    /// added, so no write path can forget them) and the ledger.
    static func migrateToSync(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE place ADD COLUMN sync_key TEXT;
            UPDATE place SET sync_key = origin || ':' || provider_id;
            CREATE UNIQUE INDEX place_sync_key ON place(sync_key);
            CREATE TRIGGER place_sync_key AFTER INSERT ON place WHEN NEW.sync_key IS NULL BEGIN
                UPDATE place SET sync_key = NEW.origin || ':' || NEW.provider_id WHERE id = NEW.id;
            END;
            ALTER TABLE rating ADD COLUMN sync_key TEXT;
            UPDATE rating SET sync_key = (SELECT sync_key FROM place WHERE id = place_id);
            CREATE UNIQUE INDEX rating_sync_key ON rating(sync_key);
            CREATE TRIGGER rating_sync_key AFTER INSERT ON rating WHEN NEW.sync_key IS NULL BEGIN
                UPDATE rating SET sync_key = (SELECT sync_key FROM place WHERE id = NEW.place_id) WHERE place_id = NEW.place_id;
            END;
            """)
        try SyncLedger.install(db, schema: syncSchema)
    }
}

extension PlaceStore: SyncableStore {
    /// The store's log on a sync server.
    public static let syncLog = "places"

    /// What `SuiteSync`'s `SyncClient` syncs this store through.
    public var syncHandle: SyncHandle { SyncHandle(log: Self.syncLog, store: store) }
}
