import Foundation
import GRDB

/// The schema a store file should have, compared with the one it has: a copied, restored or
/// hand-edited file may carry triggers, views, tables or indexes that Suite never made (a trigger
/// runs its SQL inside every write of the store), or lack some it needs.
///
/// The expected schema is what the store's own migrations make, run in memory up to the ones the
/// file says it has applied (so an older store is compared with its own version). Every object is
/// compared by kind and name; triggers and views, whose SQL runs, are compared by their SQL too
/// (whitespace aside). SQLite's internal tables and indexes (`sqlite_…`) are left out.
package enum StoreSchema {
    /// One object of a schema.
    package struct Object: Hashable, Sendable {
        package var type: String
        package var name: String
        package var sql: String

        /// Triggers and views are compared by their SQL, other objects by kind and name.
        var comparesSQL: Bool { type == "trigger" || type == "view" }
    }

    /// The query listing a schema's objects, as type, name and SQL separated by U+001F.
    static let listing = """
        SELECT type || char(31) || name || char(31) || ifnull(sql, '') FROM sqlite_schema
        WHERE NOT (type IN ('table', 'index') AND name LIKE 'sqlite\\_%' ESCAPE '\\')
        """

    static func objects(_ lines: [String]) -> [Object] {
        lines.map { line in
            let parts = line.split(separator: "\u{1F}", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            return Object(type: parts[0], name: parts.count > 1 ? parts[1] : "", sql: parts.count > 2 ? parts[2] : "")
        }
    }

    /// The schema `migrator` makes when it runs the migrations `applied` names (in its order),
    /// on an empty database in memory; nil when `applied` is not a beginning of the migrator's
    /// list (a store of a newer version, or of something else, which opening reports).
    package static func expected(migrator: DatabaseMigrator, applied: Set<String>) throws -> [Object]? {
        let known = migrator.migrations
        guard applied.count <= known.count, Set(known.prefix(applied.count)) == applied else { return nil }
        guard let last = known.prefix(applied.count).last else { return [] }
        var configuration = Configuration()
        configuration.prepareDatabase { db in try FTS5Ranking.register(db) }
        let queue = try DatabaseQueue(configuration: configuration)
        try migrator.migrate(queue, upTo: last)
        return objects(try queue.read { db in try String.fetchAll(db, sql: listing) })
    }

    /// What differs between `actual` and `expected`, one line each, naming the object:
    /// "an unexpected trigger 'x' (Suite does not make it)", "the index 'y' is missing",
    /// "the trigger 'z' is not the one Suite makes".
    package static func differences(actual: [Object], expected: [Object]) -> [String] {
        struct Key: Hashable { var type: String; var name: String }
        let wanted = Dictionary(expected.map { (Key(type: $0.type, name: $0.name), $0) }, uniquingKeysWith: { first, _ in first })
        let present = Dictionary(actual.map { (Key(type: $0.type, name: $0.name), $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for object in actual.sorted(by: { ($0.type, $0.name) < ($1.type, $1.name) }) {
            let label = Self.shown(object.name)
            guard let expected = wanted[Key(type: object.type, name: object.name)] else {
                lines.append("an unexpected \(object.type) \(label) (Suite does not make it)")
                continue
            }
            if object.comparesSQL, normalized(object.sql) != normalized(expected.sql) {
                lines.append("the \(object.type) \(label) is not the one Suite makes")
            }
        }
        for object in expected.sorted(by: { ($0.type, $0.name) < ($1.type, $1.name) }) where present[Key(type: object.type, name: object.name)] == nil {
            lines.append("the \(object.type) \(Self.shown(object.name)) is missing")
        }
        return lines
    }

    /// A name as one safe line, quoted: at most 80 characters, controls and line breaks as U+FFFD.
    static func shown(_ name: String) -> String {
        let plain = Markup.plain(String(name.prefix(80))).replacingOccurrences(of: "\n", with: "\u{FFFD}").replacingOccurrences(of: "\t", with: " ")
        return "'" + plain + "'" + (name.count > 80 ? "…" : "")
    }

    /// SQL with every run of white space made one space.
    static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The schema differences of the store file open on `connection` (nil `migrator`: none).
    static func differences(connection: ReadOnlyConnection, migrator: DatabaseMigrator) throws(StoreFailure) -> [String] {
        let hasMigrations = try connection.strings("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'grdb_migrations'") == ["1"]
        let applied = hasMigrations ? Set(try connection.strings("SELECT identifier FROM grdb_migrations")) : []
        let expected: [Object]?
        do {
            expected = try Self.expected(migrator: migrator, applied: applied)
        } catch {
            throw .unavailable(path: connection.path, reason: "cannot build the schema to compare with: \(error)")
        }
        guard let expected else { return [] }
        return differences(actual: objects(try connection.strings(listing)), expected: expected)
    }
}
