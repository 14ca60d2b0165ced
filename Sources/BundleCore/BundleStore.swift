import Foundation
import GRDB
import SuiteStorage

/// The bundle store: trigger events, todos, bundles and their history, in one SQLite file.
///
/// Every operation is one durable transaction; the store is safe to use from several processes.
public final class BundleStore: Sendable {
    /// The conventional file name inside the Suite store folder.
    public static let fileName = "bundle.sqlite"
    /// The longest todo text or note accepted, in UTF-8 bytes.
    public static let maximumTextLength = 10_000
    /// The longest event phrase, alias or bundle title accepted, in characters.
    public static let maximumNameLength = 200
    /// The longest bundle icon accepted, in characters.
    public static let maximumIconLength = 8

    let store: Store<BundleError>
    let now: @Sendable () -> Date

    /// The store file's path.
    public var path: String { store.path }

    /// Opens the store at `url`, creating it when missing.
    ///
    /// - Parameters:
    ///   - url: the store file.
    ///   - readOnly: read without writing anything to the file, for queries: no log set-up, no
    ///     migration (a store that needs creating or migrating is brought up to date first). Writes
    ///     through such a store fail.
    ///   - busyTimeout: how long to wait for another process holding the store.
    ///   - now: the clock used for timestamps.
    /// - Throws: ``BundleError`` when the file cannot be used (damaged, newer, busy, …).
    public init(url: URL, readOnly: Bool = false, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init) throws(BundleError) {
        store = try Store.open(at: url, migrator: Self.migrator, configuration: StoreConfiguration(applicationID: Self.applicationID, busyTimeout: busyTimeout, sync: Self.syncSchema, clock: now), readOnly: readOnly)  // "SBND"
        self.now = now
    }

    private init(store: Store<BundleError>, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// A new, empty store in memory, with the same schema as a store file: for previews and
    /// tests. Nothing touches the disk; it lives as long as the value.
    public static func inMemory(now: @escaping @Sendable () -> Date = Date.init) throws(BundleError) -> BundleStore {
        BundleStore(store: try Store.inMemory(migrator: migrator, configuration: StoreConfiguration(applicationID: applicationID, sync: syncSchema, clock: now)), now: now)
    }

    /// Opens the store at `url` as ``init(url:readOnly:busyTimeout:now:)`` does, without blocking
    /// the caller: opening may wait up to `busyTimeout` for another process's lock.
    public static func open(
        at url: URL, readOnly: Bool = false, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init
    ) async throws(BundleError) -> BundleStore {
        try await Background.run { () throws(BundleError) -> BundleStore in
            try BundleStore(url: url, readOnly: readOnly, busyTimeout: busyTimeout, now: now)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerStoreMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE event (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    archived INTEGER NOT NULL DEFAULT 0,
                    created_ms INTEGER NOT NULL
                );
                CREATE TABLE event_name (
                    key TEXT PRIMARY KEY NOT NULL,
                    phrase TEXT NOT NULL,
                    event_id INTEGER NOT NULL REFERENCES event(id) ON DELETE CASCADE,
                    is_alias INTEGER NOT NULL
                );
                CREATE INDEX event_name_event ON event_name(event_id);
                CREATE TABLE bundle (
                    id INTEGER PRIMARY KEY,
                    uuid TEXT NOT NULL UNIQUE,
                    title TEXT NOT NULL,
                    icon TEXT NOT NULL,
                    event_id INTEGER NOT NULL REFERENCES event(id),
                    direction TEXT NOT NULL,
                    status TEXT NOT NULL,
                    created_ms INTEGER NOT NULL,
                    finished_ms INTEGER
                );
                CREATE INDEX bundle_status ON bundle(status, finished_ms);
                CREATE INDEX bundle_event ON bundle(event_id, created_ms);
                CREATE TABLE todo (
                    id INTEGER PRIMARY KEY,
                    uuid TEXT NOT NULL UNIQUE,
                    text TEXT NOT NULL,
                    event_id INTEGER REFERENCES event(id),
                    preposition TEXT NOT NULL,
                    deadline TEXT,
                    status TEXT NOT NULL,
                    bundle_id INTEGER REFERENCES bundle(id),
                    notes TEXT NOT NULL DEFAULT '',
                    created_ms INTEGER NOT NULL,
                    modified_ms INTEGER NOT NULL,
                    completed_ms INTEGER,
                    reminded_ms INTEGER,
                    foreign_fields TEXT
                );
                CREATE INDEX todo_event_status ON todo(event_id, status);
                CREATE INDEX todo_status ON todo(status);
                CREATE INDEX todo_deadline ON todo(deadline) WHERE deadline IS NOT NULL;
                CREATE TABLE bundle_item (
                    bundle_id INTEGER NOT NULL REFERENCES bundle(id) ON DELETE CASCADE,
                    todo_id INTEGER NOT NULL REFERENCES todo(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    outcome TEXT NOT NULL,
                    PRIMARY KEY (bundle_id, todo_id)
                ) WITHOUT ROWID;
                CREATE INDEX bundle_item_todo ON bundle_item(todo_id);
                """)
        }
        migrator.registerStoreMigration("v2-sync", migrate: migrateToSync)
        migrator.registerStoreMigration("v3-sync-conflicts", migrate: SyncLedger.addConflictLog)
        migrator.registerStoreMigration("v4-event-times", migrate: migrateToEventTimes)
        migrator.registerStoreMigration("v5-routines", migrate: migrateToRoutines)
        migrator.registerStoreMigration("v6-attachments", migrate: migrateToAttachments)
        migrator.registerStoreMigration("v7-sync-set-aside", migrate: SyncLedger.addSetAsideLog)
        return migrator
    }

    // MARK: - Transactions

    func read<T>(_ body: (Database) throws -> T) throws(BundleError) -> T { try store.read(body) }

    func write<T>(_ body: (Database) throws -> T) throws(BundleError) -> T { try store.write(body) }

    var stamp: Int64 { Millis(now()).value }

    // MARK: - Validation

    /// Checks todo text or a note with the one text rule (``SuiteStorage/TextRule``): not empty
    /// (unless `allowEmpty`), at most ``maximumTextLength`` bytes, line breaks as LF, no control
    /// characters but tab. Returns it normalised and trimmed.
    static func validated(text: String, what: FieldName, allowEmpty: Bool = false) throws(BundleError) -> String {
        try TextRule.check(text, .text(limit: maximumTextLength), allowEmpty: allowEmpty).get(what, as: BundleError.invalidText)
    }

    /// Checks a one-line name (event phrase, alias, bundle title): at most ``maximumNameLength``
    /// characters, no line break or control character.
    static func validated(name: String, what: FieldName) throws(BundleError) -> String {
        try TextRule.check(name, .line(limit: maximumNameLength)).get(what, as: BundleError.invalidText)
    }

    /// Checks a bundle icon: one line of at most ``maximumIconLength`` characters (an emoji or a
    /// short symbol).
    static func validated(icon: String) throws(BundleError) -> String {
        try TextRule.check(icon, .line(limit: maximumIconLength)).get(.icon, as: BundleError.invalidText)
    }
}
