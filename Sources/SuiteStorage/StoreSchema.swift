import Foundation
import SuiteMarkup
import GRDB

/// The schema a store file should have, compared with the one it has: a copied, restored or
/// hand-edited file may carry triggers, views, tables or indexes that Suite never made (a trigger
/// runs its SQL inside every write of the store), or lack some it needs.
///
/// The expected schema is what the store's own migrations make, run in memory up to the ones the
/// file says it has applied (so an older store is compared with its own version). Every object is
/// compared by kind, name and SQL (whitespace aside; a virtual table's own tables by kind and
/// name). SQLite's internal tables and indexes (`sqlite_…`) are left out. The migrations the file
/// records must be ones Suite makes, as many as its `user_version` says.
package enum StoreSchema {
    /// One object of a schema.
    package struct Object: Hashable, Sendable {
        package var type: String
        package var name: String
        package var sql: String

        /// Whether this object is one a virtual table keeps (FTS5's `quote_fts_data`, R*Tree's
        /// `place_index_node`): SQLite writes their SQL, which its versions may word differently.
        func isShadow(of virtualTables: [String]) -> Bool {
            type == "table" && virtualTables.contains { name.hasPrefix($0 + "_") }
        }
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
        // Every object is compared by its SQL too (whitespace aside): a table's foreign keys
        // (`ON DELETE CASCADE`), checks and defaults, an index's columns and conditions, and a
        // trigger's or view's statements all change what the store does. A virtual table's own
        // tables are compared by kind and name.
        let virtualTables = expected.filter { $0.type == "table" && normalized($0.sql).uppercased().hasPrefix("CREATE VIRTUAL TABLE") }.map(\.name)
        var lines: [String] = []
        for object in actual.sorted(by: { ($0.type, $0.name) < ($1.type, $1.name) }) {
            let label = Self.shown(object.name)
            guard let expected = wanted[Key(type: object.type, name: object.name)] else {
                lines.append("an unexpected \(object.type) \(label) (Suite does not make it)")
                continue
            }
            if !object.isShadow(of: virtualTables), normalized(object.sql) != normalized(expected.sql) {
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

    /// The schema differences of the store file open on `connection`. The migrations it records
    /// must be a beginning of the migrator's list, as many as its `user_version` says: a list
    /// with a migration this build does not know (a newer Suite's store, or a forged one, which
    /// would otherwise escape the comparison), or a `user_version` that disagrees (which lets an
    /// open skip reading the list), is a difference itself.
    static func differences(connection: ReadOnlyConnection, migrator: DatabaseMigrator) throws(StoreFailure) -> [String] {
        let hasMigrations = try connection.strings("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'grdb_migrations'") == ["1"]
        let recorded = hasMigrations ? try connection.strings("SELECT identifier FROM grdb_migrations") : []
        let applied = Set(recorded)
        let version = Int(try connection.strings("PRAGMA user_version").first ?? "0") ?? 0
        let expected: [Object]?
        do {
            expected = try Self.expected(migrator: migrator, applied: applied)
        } catch {
            throw .unavailable(path: connection.path, reason: "cannot build the schema to compare with: \(error)")
        }
        guard let expected, applied.count == recorded.count else {
            let unknown = applied.subtracting(migrator.migrations).sorted().prefix(3).map(shown)
            let missing = migrator.migrations.prefix(applied.count).filter { !applied.contains($0) }.prefix(3).map(shown)
            return ["the migrations it records are not a sequence Suite makes"
                    + (unknown.isEmpty ? "" : " (unknown: \(unknown.joined(separator: ", ")); a store of a newer Suite?)")
                    + (missing.isEmpty ? "" : " (missing: \(missing.joined(separator: ", ")))")]
        }
        var lines = differences(actual: objects(try connection.strings(listing)), expected: expected)
        // A store from before migrations counted themselves has user_version 0, and is brought
        // up to date when opened; any other count must be the number of migrations recorded.
        if version != 0 && version != applied.count {
            lines.insert("its user_version (\(version)) is not the number of migrations it records (\(applied.count))", at: 0)
        }
        return lines
    }
}
