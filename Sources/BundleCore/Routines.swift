import Foundation
import GRDB
import SuiteStorage

/// A bundle kept for reuse (the seed's "reusable routines"): its todos, to bring back at a
/// check-in (the same todos each time, not copies).
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
        /// The todo it brings back (its interchange uuid); nil in a routine saved before routines
        /// kept their todos, until its first check-in makes one.
        public var todo: UUID?

        public init(text: String, notes: String, todo: UUID? = nil) {
            self.text = text
            self.notes = notes
            self.todo = todo
        }
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
            let items = bundle.items.map { Routine.Item(text: $0.todo.text, notes: $0.todo.notes, todo: $0.todo.uuid) }
            try db.execute(sql: "INSERT INTO routine (name, key, icon, items, created_ms) VALUES (?, ?, ?, ?, ?)",
                           arguments: [name, key, bundle.icon, try Self.encoded(items), stamp])
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

    /// Checks in with a routine: its own todos come back (pending ones as they are, done or
    /// dropped ones reopened) as todos of the event (before it when about to, after it when just
    /// finished) and make up a new bundle, in one step. A routine todo that no longer exists (or
    /// one saved before routines kept their todos) is made again, once: the routine keeps the new
    /// one. So checking in with a routine never piles up copies.
    ///
    /// - Throws: ``BundleError/routineNotFound(_:)``, ``BundleError/unknownEvent(_:suggestions:)``,
    ///   ``BundleError/invalidText(_:)`` for a title or icon, ``BundleError/Conflict/routineTodoInOpenBundle(_:bundle:routine:)``
    ///   when one of its todos is still in an open bundle (nothing changes then).
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
            // The routine's todos that still exist, checked before anything is written.
            var existing: [Int: Todo] = [:]
            for (index, item) in routine.items.enumerated() {
                guard let uuid = item.todo,
                      let id = try Todo.ID.fetchOne(db, sql: "SELECT id FROM todo WHERE uuid = ?", arguments: [uuid.uuidString.lowercased()]) else { continue }
                let todo = try Self.loadTodo(id, db: db)
                if todo.status == .inBundle {
                    throw BundleError.conflict(.routineTodoInOpenBundle(todo.id, bundle: todo.bundleID ?? 0, routine: routine.name))
                }
                existing[index] = todo
            }
            try db.execute(sql: """
                INSERT INTO bundle (uuid, title, icon, event_id, direction, status, created_ms) VALUES (?, ?, ?, ?, ?, 'open', ?)
                """, arguments: [UUID().uuidString.lowercased(), title ?? "\(routine.name), \(Self.defaultTitle(event: event, direction: direction, at: moment, timeZone: timeZone))".prefix(Self.maximumNameLength).description,
                                 icon ?? routine.icon, event.id, direction.rawValue, stamp])
            let bundleID = TodoBundle.ID(db.lastInsertedRowID)
            var items = routine.items
            var added = Set<Todo.ID>()
            for (index, item) in routine.items.enumerated() {
                let id: Todo.ID
                if let todo = existing[index] {
                    guard added.insert(todo.id).inserted else { continue }
                    id = todo.id
                    // Back in the pile (a finished one reopened), tied to this check-in's event.
                    try db.execute(sql: """
                        UPDATE todo SET status = 'pending', bundle_id = NULL, completed_ms = NULL, event_id = ?, preposition = ?, modified_ms = ? WHERE id = ?
                        """, arguments: [event.id, preposition.rawValue, stamp, id])
                } else {
                    let uuid = UUID()
                    try db.execute(sql: """
                        INSERT INTO todo (uuid, text, event_id, preposition, status, notes, created_ms, modified_ms)
                        VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)
                        """, arguments: [uuid.uuidString.lowercased(), item.text, event.id, preposition.rawValue, item.notes, stamp, stamp])
                    id = Todo.ID(db.lastInsertedRowID)
                    added.insert(id)
                    items[index].todo = uuid
                }
                try Self.addItem(todo: id, bundle: bundleID, position: added.count - 1, db: db, stamp: stamp)
            }
            if items != routine.items {
                try db.execute(sql: "UPDATE routine SET items = ? WHERE id = ?", arguments: [try Self.encoded(items), routine.id])
            }
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    static func encoded(_ items: [Routine.Item]) throws -> String {
        String(decoding: try JSONEncoder().encode(items), as: UTF8.self)
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
