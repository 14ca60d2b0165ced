import Foundation
import GRDB
import SuiteStorage

/// Provider data for one place, as fetched or imported, before it is stored.
public struct PlaceRecord: Codable, Sendable, Hashable {
    /// The place's name.
    public var name: String
    /// What kind of place it is.
    public var type: BusinessType
    /// Where it is.
    public var coordinate: Coordinate
    /// Its address, one line.
    public var address: String?
    /// Its phone number.
    public var phone: String?
    /// Its website.
    public var website: String?
    /// Opening hours in OSM `opening_hours` syntax.
    public var openingHours: String?
    /// Provider categories.
    public var categories: [String]
    /// Where the data came from.
    public var origin: PlaceOrigin
    /// The provider's id; places are matched on origin and this id.
    public var providerID: String?

    /// Creates a record.
    public init(name: String, type: BusinessType, coordinate: Coordinate, address: String? = nil, phone: String? = nil,
                website: String? = nil, openingHours: String? = nil, categories: [String] = [], origin: PlaceOrigin, providerID: String? = nil) {
        self.name = name; self.type = type; self.coordinate = coordinate; self.address = address; self.phone = phone
        self.website = website; self.openingHours = openingHours; self.categories = categories; self.origin = origin; self.providerID = providerID
    }
}

/// A partial change to a rating: nil leaves a field as it is.
public struct RatingChange: Sendable, Hashable {
    /// New values per dimension (0…5).
    public var values: [RatingDimension: Int] = [:]
    /// A new measured wifi speed.
    public var wifiMbps: Double?
    /// A new menu option.
    public var menu: MenuOption?
    /// New notes.
    public var notes: String?
    /// A new pin colour.
    public var pinColor: PinColor?
    /// The user's own view of what kind of place it is.
    public var type: BusinessType?

    /// Creates a change.
    public init(values: [RatingDimension: Int] = [:], wifiMbps: Double? = nil, menu: MenuOption? = nil, notes: String? = nil,
                pinColor: PinColor? = nil, type: BusinessType? = nil) {
        self.values = values; self.wifiMbps = wifiMbps; self.menu = menu; self.notes = notes; self.pinColor = pinColor; self.type = type
    }
}

/// What a fetch or import did.
public struct PlaceImportSummary: Codable, Sendable, Hashable {
    /// Places that were new.
    public var added: Int
    /// Places already known (same provider id) whose provider data was refreshed (a fetch), or
    /// that the file changed (an import).
    public var updated: Int
    /// Places already known that an import left as they were (the file said what the store
    /// holds); a fetch counts every known place as updated.
    public var unchanged: Int = 0
    /// What an imported file said that could not be used as given, one entry per feature
    /// (an unknown place type, stored as `other`).
    public var warnings: [String] = []
}

/// The places store: places with an R*Tree index, the user's ratings, and the current location.
public final class PlaceStore: Sendable {
    /// The conventional file name inside the Suite store folder.
    public static let fileName = "places.sqlite"

    let store: Store<WorkplaceError>
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
    /// - Throws: ``WorkplaceError`` when the file cannot be used (damaged, newer, busy, no R*Tree …).
    public init(url: URL, readOnly: Bool = false, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init) throws(WorkplaceError) {
        store = try Store.open(
            at: url, migrator: Self.migrator,
            configuration: StoreConfiguration(applicationID: Self.applicationID, busyTimeout: busyTimeout, requiredFeatures: [.rtree], sync: Self.syncSchema, clock: now), readOnly: readOnly)  // "SPLC"
        self.now = now
    }

    private init(store: Store<WorkplaceError>, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// A new, empty store in memory, with the same migrations (and the same R*Tree index) as a
    /// store file: for previews and tests. Nothing is written to disk, and no other process or
    /// store value can see it.
    ///
    /// - Parameter now: the clock used for timestamps.
    /// - Throws: ``WorkplaceError/store(_:)`` when SQLite cannot make the database (or lacks R*Tree).
    public static func inMemory(now: @escaping @Sendable () -> Date = Date.init) throws(WorkplaceError) -> PlaceStore {
        PlaceStore(store: try Store.inMemory(
            migrator: migrator, configuration: StoreConfiguration(applicationID: applicationID, requiredFeatures: [.rtree], sync: syncSchema, clock: now)), now: now)
    }

    /// Opens the store at `url` as ``init(url:readOnly:busyTimeout:now:)`` does, on a background
    /// thread: creating, checking or migrating the file (and waiting up to `busyTimeout` for
    /// another process) never blocks the caller's actor.
    public static func open(
        at url: URL, readOnly: Bool = false, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init
    ) async throws(WorkplaceError) -> PlaceStore {
        try await Background.run { () throws(WorkplaceError) in
            try PlaceStore(url: url, readOnly: readOnly, busyTimeout: busyTimeout, now: now)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerStoreMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE place (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    type TEXT NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    address TEXT,
                    phone TEXT,
                    website TEXT,
                    opening_hours TEXT,
                    categories TEXT NOT NULL DEFAULT '',
                    origin TEXT NOT NULL,
                    provider_id TEXT NOT NULL,
                    fetched_ms INTEGER,
                    created_ms INTEGER NOT NULL,
                    saved INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (origin, provider_id)
                );
                CREATE VIRTUAL TABLE place_index USING rtree(id, min_lat, max_lat, min_lon, max_lon);
                CREATE TRIGGER place_index_insert AFTER INSERT ON place BEGIN
                    INSERT INTO place_index VALUES (new.id, new.lat, new.lat, new.lon, new.lon);
                END;
                CREATE TRIGGER place_index_update AFTER UPDATE OF lat, lon ON place BEGIN
                    UPDATE place_index SET min_lat = new.lat, max_lat = new.lat, min_lon = new.lon, max_lon = new.lon WHERE id = new.id;
                END;
                CREATE TRIGGER place_index_delete AFTER DELETE ON place BEGIN
                    DELETE FROM place_index WHERE id = old.id;
                END;
                CREATE TABLE rating (
                    place_id INTEGER PRIMARY KEY REFERENCES place(id) ON DELETE CASCADE,
                    noise INTEGER, outlets INTEGER, wifi INTEGER, cost INTEGER, seating INTEGER,
                    wifi_mbps REAL, menu TEXT, notes TEXT NOT NULL DEFAULT '', pin_color TEXT, type_override TEXT,
                    updated_ms INTEGER NOT NULL
                );
                CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                """)
        }
        migrator.registerStoreMigration("v2-sync", migrate: migrateToSync)
        migrator.registerStoreMigration("v3-sync-conflicts", migrate: SyncLedger.addConflictLog)
        migrator.registerStoreMigration("v4-community", migrate: migrateToCommunity)
        migrator.registerStoreMigration("v5-sync-set-aside", migrate: SyncLedger.addSetAsideLog)
        return migrator
    }

    // MARK: - Transactions

    func read<T>(_ body: (Database) throws -> T) throws(WorkplaceError) -> T { try store.read(body) }

    func write<T>(_ body: (Database) throws -> T) throws(WorkplaceError) -> T { try store.write(body) }

    var stamp: Int64 { Millis(now()).value }

    // MARK: - Current location

    /// The "current location" (a machine without GPS keeps one the user set), or nil when none
    /// is stored.
    public func location() throws(WorkplaceError) -> CurrentLocation? {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'location'"),
                  let coordinate = try? Coordinate.parse(text) else { return nil }
            return CurrentLocation(
                coordinate: coordinate, label: try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'location_label'"))
        }
    }

    /// Sets the current location.
    public func setLocation(_ coordinate: Coordinate, label: String? = nil) throws(WorkplaceError) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('location', ?)", arguments: [coordinate.description])
            if let label {
                try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('location_label', ?)", arguments: [label])
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE key = 'location_label'")
            }
        }
    }

    // MARK: - Places

    /// Adds a place the user entered; it is saved (blue) from the start.
    @discardableResult
    public func add(_ record: PlaceRecord) throws(WorkplaceError) -> Place {
        var record = try Self.validated(record)
        record.origin = .user
        record.providerID = record.providerID ?? "user:\(UUID().uuidString.lowercased())"
        let checked = record
        return try write { db in
            let id = try Self.upsert(checked, db: db, stamp: stamp, fetched: false).id
            try db.execute(sql: "UPDATE place SET saved = 1 WHERE id = ?", arguments: [id])
            return try Self.load(id, db: db)
        }
    }

    /// Stores fetched or imported places: new ones are added, known ones (same origin and
    /// provider id) get their provider data refreshed. Ratings, notes and pin colours are never
    /// touched. One transaction.
    @discardableResult
    public func upsert(_ records: [PlaceRecord], fetched: Bool = true) throws(WorkplaceError) -> PlaceImportSummary {
        var checked: [PlaceRecord] = []
        for record in records { checked.append(try Self.validated(record)) }
        let all = checked
        return try write { db in
            var summary = PlaceImportSummary(added: 0, updated: 0)
            for record in all {
                if try Self.upsert(record, db: db, stamp: stamp, fetched: fetched).isNew { summary.added += 1 } else { summary.updated += 1 }
            }
            return summary
        }
    }

    /// The place with that id.
    ///
    /// - Throws: ``WorkplaceError/placeNotFound(_:)``.
    public func place(_ id: Place.ID) throws(WorkplaceError) -> Place {
        try read { db in try Self.load(id, db: db) }
    }

    /// How many places the store holds.
    public func count() throws(WorkplaceError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM place") ?? 0 }
    }

    /// Every place, by number.
    public func allPlaces() throws(WorkplaceError) -> [Place] {
        try read { db in try Self.fetch(db, "ORDER BY p.id", []) }
    }

    /// Every place, by number, handed to `body` one at a time from one read transaction (the
    /// store as of one moment), so that any number of places fits in little memory; for exports.
    ///
    /// - Throws: ``WorkplaceError`` for the store, or what `body` throws (which stops the walk).
    public func forEachPlace(_ body: (Place) throws -> Void) throws {
        var failure: (any Error)?
        try read { db in
            let rows = try Row.fetchCursor(db, sql: Self.columns + " ORDER BY p.id")
            while let row = try rows.next() {
                do {
                    try body(Self.place(from: row))
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
    }

    /// Removes a place and the user's rating of it.
    ///
    /// - Throws: ``WorkplaceError/placeNotFound(_:)``.
    public func remove(_ id: Place.ID) throws(WorkplaceError) {
        try write { db in
            _ = try Self.load(id, db: db)
            try db.execute(sql: "DELETE FROM place WHERE id = ?", arguments: [id])
        }
    }

    /// Rates a place: only the fields given change. The place becomes saved (blue). Provider data
    /// is never changed; `type` is kept as the user's own view of the place.
    ///
    /// - Throws: ``WorkplaceError/invalidRating(dimension:value:)``, ``WorkplaceError/invalidText(_:)``
    ///   (``FieldName/placeNote``), ``WorkplaceError/placeNotFound(_:)``.
    @discardableResult
    public func rate(_ id: Place.ID, _ change: RatingChange) throws(WorkplaceError) -> Place {
        var change = change
        if let notes = change.notes { change.notes = try Self.validated(notes: notes) }
        let checked = change
        return try write { db in
            let place = try Self.load(id, db: db)
            var rating = place.rating ?? Rating()
            for (dimension, value) in checked.values { rating.values[dimension] = value }
            if let mbps = checked.wifiMbps { rating.wifiMbps = mbps }
            if let menu = checked.menu { rating.menu = menu }
            if let notes = checked.notes { rating.notes = notes }
            if let pin = checked.pinColor { rating.pinColor = pin }
            try rating.validate()
            let override = try checked.type?.rawValue ?? String.fetchOne(db, sql: "SELECT type_override FROM rating WHERE place_id = ?", arguments: [id])
            // An UPSERT, never INSERT OR REPLACE: replacing deletes the row and inserts it again,
            // which sync would take for a change of every field, and a concurrent change of
            // another field on another device would be lost.
            try db.execute(sql: """
                INSERT INTO rating (place_id, noise, outlets, wifi, cost, seating, wifi_mbps, menu, notes, pin_color, type_override, updated_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (place_id) DO UPDATE SET noise = excluded.noise, outlets = excluded.outlets, wifi = excluded.wifi,
                    cost = excluded.cost, seating = excluded.seating, wifi_mbps = excluded.wifi_mbps, menu = excluded.menu,
                    notes = excluded.notes, pin_color = excluded.pin_color, type_override = excluded.type_override,
                    updated_ms = excluded.updated_ms
                """, arguments: [id, rating.values[.noise], rating.values[.outlets], rating.values[.wifi], rating.values[.cost],
                                 rating.values[.seating], rating.wifiMbps, rating.menu?.rawValue, rating.notes, rating.pinColor?.rawValue,
                                 override, stamp])
            try db.execute(sql: "UPDATE place SET saved = 1 WHERE id = ?", arguments: [id])
            return try Self.load(id, db: db)
        }
    }

    // MARK: - Plumbing

    /// The longest place name accepted, in characters.
    public static let maximumNameLength = 300
    /// The longest address, website or opening hours accepted, in characters.
    public static let maximumFieldLength = 2_000
    /// The longest rating notes accepted, in UTF-8 bytes.
    public static let maximumNotesLength = 10_000

    /// The record with every text field checked and normalised by the one text rule
    /// (SuiteStorage's `TextRule`): one line each, no control characters, within the limits; an
    /// empty optional field becomes nil.
    static func validated(_ record: PlaceRecord) throws(WorkplaceError) -> PlaceRecord {
        var record = record
        let line = TextField.line(limit: maximumFieldLength)
        func optional(_ value: String?, _ what: FieldName, _ field: TextField = line) throws(WorkplaceError) -> String? {
            guard let value else { return nil }
            let checked = try TextRule.check(value, field, allowEmpty: true).get(what, as: WorkplaceError.invalidText)
            return checked.isEmpty ? nil : checked
        }
        record.name = try TextRule.check(record.name, .line(limit: maximumNameLength)).get(.placeName, as: WorkplaceError.invalidText)
        record.address = try optional(record.address, .address)
        record.phone = try optional(record.phone, .phoneNumber, .line(limit: 100))
        record.website = try optional(record.website, .website)
        record.openingHours = try optional(record.openingHours, .openingHours)
        record.providerID = try optional(record.providerID, .providerID, .line(limit: 1_000))
        var categories: [String] = []
        for category in record.categories {
            if let checked = try optional(category, .category, .line(limit: 200)) { categories.append(checked) }
        }
        record.categories = categories
        _ = try Coordinate(latitude: record.coordinate.latitude, longitude: record.coordinate.longitude)
        return record
    }

    /// A record as a provider described it, with the optional fields the store would refuse
    /// (an over-long phone number, a control character in the hours) left out and a name it
    /// would refuse replaced by `fallbackName`: an odd answer from a service is not the user's
    /// bad input.
    static func keepingValidFields(_ record: PlaceRecord, fallbackName: String) -> PlaceRecord {
        if (try? validated(record)) != nil { return record }
        var kept = record
        kept.address = nil
        kept.phone = nil
        kept.website = nil
        kept.openingHours = nil
        kept.categories = []
        kept.providerID = nil
        if (try? validated(kept)) == nil { kept.name = fallbackName }
        let fields: [WritableKeyPath<PlaceRecord, String?>] = [\.address, \.phone, \.website, \.openingHours, \.providerID]
        for field in fields {
            var trial = kept
            trial[keyPath: field] = record[keyPath: field]
            if (try? validated(trial)) != nil { kept = trial }
        }
        for category in record.categories {
            var trial = kept
            trial.categories.append(category)
            if (try? validated(trial)) != nil { kept = trial }
        }
        return kept
    }

    /// Rating notes checked and normalised by the one text rule for multi-line text.
    static func validated(notes: String) throws(WorkplaceError) -> String {
        try TextRule.check(notes, .text(limit: maximumNotesLength), allowEmpty: true).get(.placeNote, as: WorkplaceError.invalidText)
    }

    /// Adds `record`, or refreshes the place with its origin and provider id. A known place is
    /// written only when something differs (so an unchanged place is not a change for sync or
    /// observers): `changed` says whether it was.
    static func upsert(_ record: PlaceRecord, db: Database, stamp: Int64, fetched: Bool) throws -> (id: Place.ID, isNew: Bool, changed: Bool) {
        let providerID = record.providerID ?? "\(record.origin.rawValue):\(UUID().uuidString.lowercased())"
        let existing = try Place.ID.fetchOne(db.cachedStatement(sql: "SELECT id FROM place WHERE origin = ? AND provider_id = ?"),
                                          arguments: [record.origin.rawValue, providerID])
        let arguments: StatementArguments = [
            record.name, record.type.rawValue, record.coordinate.latitude, record.coordinate.longitude, record.address, record.phone,
            record.website, record.openingHours, record.categories.joined(separator: ","), fetched ? stamp : nil,
        ]
        if let existing {
            try db.cachedStatement(sql: """
                UPDATE place SET name = ?1, type = ?2, lat = ?3, lon = ?4, address = ?5, phone = ?6, website = ?7,
                    opening_hours = coalesce(?8, opening_hours), categories = ?9, fetched_ms = coalesce(?10, fetched_ms)
                WHERE id = ?11 AND (name IS NOT ?1 OR type IS NOT ?2 OR lat IS NOT ?3 OR lon IS NOT ?4 OR address IS NOT ?5
                    OR phone IS NOT ?6 OR website IS NOT ?7 OR opening_hours IS NOT coalesce(?8, opening_hours) OR categories IS NOT ?9
                    OR fetched_ms IS NOT coalesce(?10, fetched_ms))
                """).execute(arguments: arguments + [existing])
            return (existing, false, db.changesCount > 0)
        }
        try db.cachedStatement(sql: """
            INSERT INTO place (name, type, lat, lon, address, phone, website, opening_hours, categories, fetched_ms, origin, provider_id, created_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: arguments + [record.origin.rawValue, providerID, stamp])
        return (Place.ID(db.lastInsertedRowID), true, true)
    }

    static let columns = """
        SELECT p.id, p.name, p.type, p.lat, p.lon, p.address, p.phone, p.website, p.opening_hours, p.categories, p.origin,
               p.provider_id, p.fetched_ms, p.saved, r.place_id AS rated, r.noise, r.outlets, r.wifi, r.cost, r.seating,
               r.wifi_mbps, r.menu, r.notes, r.pin_color, r.type_override, r.updated_ms
        FROM place p LEFT JOIN rating r ON r.place_id = p.id
        """

    static func fetch(_ db: Database, _ tail: String, _ arguments: StatementArguments) throws -> [Place] {
        var places = try Row.fetchAll(db, sql: columns + " " + tail, arguments: arguments).map(place(from:))
        try attachCommunity(&places, db: db)
        return places
    }

    static func place(from row: Row) -> Place {
        var rating: Rating?
        if row["rated"] as Int64? != nil {
            var values: [RatingDimension: Int] = [:]
            for dimension in RatingDimension.allCases {
                if let value = row[dimension.rawValue] as Int? { values[dimension] = value }
            }
            rating = Rating(values: values, wifiMbps: row["wifi_mbps"], menu: (row["menu"] as String?).flatMap(MenuOption.init(rawValue:)),
                            notes: row["notes"] ?? "", pinColor: (row["pin_color"] as String?).flatMap(PinColor.init(rawValue:)),
                            updatedAt: Millis(row["updated_ms"] as Int64? ?? 0).date)
        }
        let type = (row["type_override"] as String?).flatMap(BusinessType.init(rawValue:)) ?? BusinessType(rawValue: row["type"]) ?? .other
        let categories: String = row["categories"]
        return Place(
            id: row["id"], name: row["name"], type: type, coordinate: Coordinate(unchecked: row["lat"], row["lon"]),
            address: row["address"], phone: row["phone"], website: row["website"], openingHours: row["opening_hours"],
            categories: categories.isEmpty ? [] : categories.split(separator: ",").map(String.init),
            origin: PlaceOrigin(rawValue: row["origin"]) ?? .imported, providerID: row["provider_id"],
            fetchedAt: (row["fetched_ms"] as Int64?).map { Millis($0).date }, rating: rating, isSaved: row["saved"])
    }

    static func load(_ id: Place.ID, db: Database) throws -> Place {
        guard let place = try fetch(db, "WHERE p.id = ?", [id]).first else { throw WorkplaceError.placeNotFound(id) }
        return place
    }
}
