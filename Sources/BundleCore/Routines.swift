import Foundation
import GRDB
import SuiteStorage

/// A bundle kept for reuse (the seed's "reusable routines"): its todos' words, to bring back as
/// new todos at a check-in.
public struct Routine: Codable, Sendable, Hashable, Identifiable {
    /// A routine's identifier in its store.
    public typealias ID = RecordID<Routine>
    /// Its number.
    public var id: ID
    /// Its name.
    public var name: String
    /// The icon of bundles made from it.
    public var icon: String
    /// Its todos, in order.
    public var items: [Item]
    /// When it was saved.
    public var createdAt: Date

    /// One todo of a routine.
    public struct Item: Codable, Sendable, Hashable {
        /// What to do.
        public var text: String
        /// Its notes.
        public var notes: String
    }
}

extension BundleStore {
    /// Saves the todos of a bundle (any outcome, in the bundle's order) as a routine.
    ///
    /// - Throws: ``BundleError/bundleNotFound(_:)``, ``BundleError/duplicateRoutine(_:)``,
    ///   ``BundleError/invalidText(_:)`` for the name.
    @discardableResult
    public func saveRoutine(named name: String, fromBundle bundleID: TodoBundle.ID) throws(BundleError) -> Routine {
        let name = try Self.validated(name: name, what: .routineName)
        let stamp = stamp
        return try write { db in
            let bundle = try Self.loadBundle(bundleID, db: db)
            let key = Self.matchKey(name)
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM routine WHERE key = ?", arguments: [key]) == true { throw BundleError.duplicateRoutine(name) }
            let items = bundle.items.map { Routine.Item(text: $0.todo.text, notes: $0.todo.notes) }
            let encoded = String(decoding: try JSONEncoder().encode(items), as: UTF8.self)
            try db.execute(sql: "INSERT INTO routine (name, key, icon, items, created_ms) VALUES (?, ?, ?, ?, ?)",
                           arguments: [name, key, bundle.icon, encoded, stamp])
            return try Self.loadRoutine(key: key, db: db)
        }
    }

    /// The routines, by name.
    public func routines() throws(BundleError) -> [Routine] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM routine ORDER BY key").map(Self.routine(from:)) }
    }

    /// Removes a routine (bundles made from it stay).
    ///
    /// - Returns: it, as it was.
    /// - Throws: ``BundleError/routineNotFound(_:)``.
    @discardableResult
    public func removeRoutine(named name: String) throws(BundleError) -> Routine {
        try write { db in
            let routine = try Self.loadRoutine(key: Self.matchKey(name), db: db, name: name)
            try db.execute(sql: "DELETE FROM routine WHERE id = ?", arguments: [routine.id])
            return routine
        }
    }

    /// Checks in with a routine: its todos come back as new todos of the event (before it when
    /// about to, after it when just finished) and make up a new bundle, in one step.
    ///
    /// - Throws: ``BundleError/routineNotFound(_:)``, ``BundleError/unknownEvent(_:suggestions:)``,
    ///   ``BundleError/invalidText(_:)`` for a title or icon.
    @discardableResult
    public func checkIn(event phrase: String, direction: CheckInDirection, routine name: String, title: String? = nil,
                        icon: String? = nil, timeZone: TimeZone) throws(BundleError) -> TodoBundle {
        var checkedTitle: String?
        if let title { checkedTitle = try Self.validated(name: title, what: .bundleTitle) }
        var checkedIcon: String?
        if let icon { checkedIcon = try Self.validated(icon: icon) }
        let title = checkedTitle, icon = checkedIcon
        let moment = now()
        return try write { db in
            let routine = try Self.loadRoutine(key: Self.matchKey(name), db: db, name: name)
            let event = try Self.resolveEvent(phrase, db: db)
            let stamp = Millis(moment).value
            let preposition: Preposition = direction == .aboutTo ? .before : .after
            try db.execute(sql: """
                INSERT INTO bundle (uuid, title, icon, event_id, direction, status, created_ms) VALUES (?, ?, ?, ?, ?, 'open', ?)
                """, arguments: [UUID().uuidString.lowercased(), title ?? "\(routine.name), \(Self.defaultTitle(event: event, direction: direction, at: moment, timeZone: timeZone))".prefix(Self.maximumNameLength).description,
                                 icon ?? routine.icon, event.id, direction.rawValue, stamp])
            let bundleID = TodoBundle.ID(db.lastInsertedRowID)
            for (position, item) in routine.items.enumerated() {
                try db.execute(sql: """
                    INSERT INTO todo (uuid, text, event_id, preposition, status, notes, created_ms, modified_ms)
                    VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)
                    """, arguments: [UUID().uuidString.lowercased(), item.text, event.id, preposition.rawValue, item.notes, stamp, stamp])
                try Self.addItem(todo: Todo.ID(db.lastInsertedRowID), bundle: bundleID, position: position, db: db, stamp: stamp)
            }
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    static func loadRoutine(key: String, db: Database, name: String? = nil) throws -> Routine {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM routine WHERE key = ?", arguments: [key]) else {
            throw BundleError.routineNotFound(name ?? key)
        }
        return routine(from: row)
    }

    static func routine(from row: Row) -> Routine {
        // Columns filled by sync are read leniently: a value of another type reads as empty, not a trap.
        let items = (try? JSONDecoder().decode([Routine.Item].self, from: Data((String.fromDatabaseValue(row["items"]) ?? "").utf8))) ?? []
        return Routine(id: Routine.ID(row["id"] as Int64), name: String.fromDatabaseValue(row["name"]) ?? "", icon: String.fromDatabaseValue(row["icon"]) ?? "",
                       items: items, createdAt: Millis(Int64.fromDatabaseValue(row["created_ms"]) ?? 0).date)
    }

    /// Routines (migration v5), synced by their name's match key.
    static func migrateToRoutines(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE routine (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                key TEXT NOT NULL UNIQUE,
                icon TEXT NOT NULL,
                items TEXT NOT NULL,
                created_ms INTEGER NOT NULL
            );
            """)
        try SyncLedger.installTriggers(db, schema: syncedBeforeAttachments)
    }
}
