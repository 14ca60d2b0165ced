import Foundation
import GRDB
import SuiteStorage

extension BundleStore {
    /// The key an event phrase is matched by: lower case, runs of white space as one space.
    public static func matchKey(_ phrase: String) -> String {
        phrase.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Trigger events by name; archived ones only when asked.
    public func events(includeArchived: Bool = false) throws(BundleError) -> [TriggerEvent] {
        try read { db in try Self.loadEvents(db, includeArchived: includeArchived) }
    }

    /// The event whose name or alias matches `phrase` (case- and space-insensitive).
    ///
    /// - Throws: ``BundleError/unknownEvent(_:suggestions:)`` with the nearest existing events.
    public func event(matching phrase: String) throws(BundleError) -> TriggerEvent {
        try read { db in try Self.resolveEvent(phrase, db: db) }
    }

    /// Creates an event.
    ///
    /// - Throws: ``BundleError/duplicateEvent(_:)`` when the phrase names an event already.
    @discardableResult
    public func addEvent(_ name: String) throws(BundleError) -> TriggerEvent {
        let name = try Self.validated(name: name, what: .eventPhrase)
        return try write { db in
            if try Self.findEvent(name, db: db) != nil { throw BundleError.duplicateEvent(name) }
            return try Self.insertEvent(name, db: db, stamp: stamp)
        }
    }

    /// Renames an event; its old name stays as an alias.
    @discardableResult
    public func renameEvent(_ phrase: String, to newName: String) throws(BundleError) -> TriggerEvent {
        let newName = try Self.validated(name: newName, what: .eventPhrase)
        return try write { db in
            let event = try Self.resolveEvent(phrase, db: db)
            if let other = try Self.findEvent(newName, db: db), other != event.id { throw BundleError.duplicateEvent(newName) }
            try db.execute(sql: "UPDATE event SET name = ? WHERE id = ?", arguments: [newName, event.id])
            try db.execute(sql: "UPDATE event_name SET is_alias = 1 WHERE event_id = ?", arguments: [event.id])
            try db.execute(sql: """
                INSERT INTO event_name (key, phrase, event_id, is_alias) VALUES (?, ?, ?, 0)
                ON CONFLICT (key) DO UPDATE SET phrase = excluded.phrase, is_alias = 0
                """, arguments: [Self.matchKey(newName), newName, event.id])
            return try Self.loadEvent(event.id, db: db)
        }
    }

    /// Adds another phrase that means the same event.
    @discardableResult
    public func addAlias(_ alias: String, to phrase: String) throws(BundleError) -> TriggerEvent {
        let alias = try Self.validated(name: alias, what: .alias)
        return try write { db in
            let event = try Self.resolveEvent(phrase, db: db)
            if try Self.findEvent(alias, db: db) != nil { throw BundleError.duplicateEvent(alias) }
            try db.execute(sql: "INSERT INTO event_name (key, phrase, event_id, is_alias) VALUES (?, ?, ?, 1)",
                           arguments: [Self.matchKey(alias), alias, event.id])
            return try Self.loadEvent(event.id, db: db)
        }
    }

    /// Merges `source` into `target`: its todos and bundles move over, its names become aliases.
    @discardableResult
    public func mergeEvent(_ source: String, into target: String) throws(BundleError) -> TriggerEvent {
        try write { db in
            let from = try Self.resolveEvent(source, db: db)
            let into = try Self.resolveEvent(target, db: db)
            guard from.id != into.id else { throw BundleError.conflict(.sameEvent(source, target)) }
            try db.execute(sql: "UPDATE todo SET event_id = ?, modified_ms = ? WHERE event_id = ?", arguments: [into.id, stamp, from.id])
            try db.execute(sql: "UPDATE bundle SET event_id = ? WHERE event_id = ?", arguments: [into.id, from.id])
            try db.execute(sql: "UPDATE event_name SET event_id = ?, is_alias = 1 WHERE event_id = ?", arguments: [into.id, from.id])
            try db.execute(sql: "DELETE FROM event WHERE id = ?", arguments: [from.id])
            return try Self.loadEvent(into.id, db: db)
        }
    }

    /// Archives (or brings back) an event.
    @discardableResult
    public func archiveEvent(_ phrase: String, archived: Bool = true) throws(BundleError) -> TriggerEvent {
        try write { db in
            let event = try Self.resolveEvent(phrase, db: db)
            try db.execute(sql: "UPDATE event SET archived = ? WHERE id = ?", arguments: [archived, event.id])
            return try Self.loadEvent(event.id, db: db)
        }
    }

    /// How often and when each event was checked in.
    public func activity(includeArchived: Bool = false) throws(BundleError) -> [EventActivity] {
        try read { db in
            let events = try Self.loadEvents(db, includeArchived: includeArchived)
            var stats: [TriggerEvent.ID: (Int, Int, Int64?)] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT event_id, count(*) AS n, sum(status = 'completed') AS done, max(created_ms) AS last
                FROM bundle GROUP BY event_id
                """) {
                stats[row["event_id"]] = (row["n"], row["done"], row["last"])
            }
            var pending: [TriggerEvent.ID: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT event_id, count(*) AS n FROM todo WHERE status IN ('pending', 'in-bundle') AND event_id IS NOT NULL GROUP BY event_id") {
                pending[row["event_id"]] = row["n"]
            }
            return events.map { event in
                let stat = stats[event.id]
                return EventActivity(
                    event: event, checkIns: stat?.0 ?? 0, completed: stat?.1 ?? 0,
                    lastCheckIn: stat?.2.map { Millis($0).date }, pendingTodos: pending[event.id] ?? 0)
            }
        }
    }

    // MARK: - Plumbing

    static func findEvent(_ phrase: String, db: Database) throws -> TriggerEvent.ID? {
        try TriggerEvent.ID.fetchOne(db.cachedStatement(sql: "SELECT event_id FROM event_name WHERE key = ?"), arguments: [matchKey(phrase)])
    }

    static func resolveEvent(_ phrase: String, db: Database) throws -> TriggerEvent {
        if let id = try findEvent(phrase, db: db) { return try loadEvent(id, db: db) }
        let key = matchKey(phrase)
        if key.isEmpty { throw BundleError.invalidText(InvalidText(field: .eventPhrase, problem: .empty)) }
        throw BundleError.unknownEvent(phrase, suggestions: try suggestions(for: phrase, db: db))
    }

    /// The nearest event names: those containing the phrase or contained in it, then the closest
    /// by edit distance, at most three.
    static func suggestions(for phrase: String, db: Database) throws -> [String] {
        let key = matchKey(phrase)
        guard !key.isEmpty else { return [] }
        let names = try Row.fetchAll(db, sql: """
            SELECT n.key, e.name FROM event_name n JOIN event e ON e.id = n.event_id WHERE e.archived = 0
            """).map { (key: $0["key"] as String, name: $0["name"] as String) }
        var scored: [(Int, String)] = []
        for candidate in names {
            let distance = editDistance(key, candidate.key)
            let related = candidate.key.contains(key) || key.contains(candidate.key)
            let limit = max(2, min(key.count, candidate.key.count) / 3)
            if related || distance <= limit { scored.append((related ? 0 : distance, candidate.name)) }
        }
        var seen: Set<String> = []
        return scored.sorted { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
            .map(\.1).filter { seen.insert($0).inserted }.prefix(3).map { $0 }
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    static func insertEvent(_ name: String, db: Database, stamp: Int64) throws -> TriggerEvent {
        try db.execute(sql: "INSERT INTO event (name, created_ms, sync_key) VALUES (?, ?, ?)", arguments: [name, stamp, matchKey(name)])
        let id = TriggerEvent.ID(db.lastInsertedRowID)
        try db.execute(sql: "INSERT INTO event_name (key, phrase, event_id, is_alias) VALUES (?, ?, ?, 0)",
                       arguments: [matchKey(name), name, id])
        return TriggerEvent(id: id, name: name, aliases: [], isArchived: false, createdAt: Millis(stamp).date)
    }

    static func loadEvent(_ id: TriggerEvent.ID, db: Database) throws -> TriggerEvent {
        guard let row = try Row.fetchOne(db, sql: "SELECT id, name, archived, created_ms FROM event WHERE id = ?", arguments: [id]) else {
            throw BundleError.eventNotFound(id)
        }
        let aliases = try String.fetchAll(db, sql: "SELECT phrase FROM event_name WHERE event_id = ? AND is_alias = 1 ORDER BY phrase", arguments: [id])
        return TriggerEvent(id: row["id"], name: row["name"], aliases: aliases, isArchived: row["archived"], createdAt: Millis(row["created_ms"] as Int64).date)
    }

    static func loadEvents(_ db: Database, includeArchived: Bool) throws -> [TriggerEvent] {
        var aliases: [TriggerEvent.ID: [String]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT event_id, phrase FROM event_name WHERE is_alias = 1 ORDER BY phrase") {
            aliases[row["event_id"], default: []].append(row["phrase"])
        }
        return try Row.fetchAll(db, sql: """
            SELECT id, name, archived, created_ms FROM event \(includeArchived ? "" : "WHERE archived = 0") ORDER BY name COLLATE NOCASE
            """).map {
            TriggerEvent(id: $0["id"], name: $0["name"], aliases: aliases[$0["id"]] ?? [], isArchived: $0["archived"],
                         createdAt: Millis($0["created_ms"] as Int64).date)
        }
    }
}
