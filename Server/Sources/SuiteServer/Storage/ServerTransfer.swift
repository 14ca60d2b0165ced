import Foundation

/// What `suite-server migrate` copies: every table of the schema, column by column, in an order
/// where a row's parents come first. Both backends' schemas have these tables and columns
/// (``ServerTransfer/tables``); a test compares this list with both schemas, so a migration that
/// adds a column cannot be forgotten here.
package enum ServerTransfer {
    /// How a column is stored: SQLite keeps dates as GRDB's text and booleans as integers,
    /// PostgreSQL as `TIMESTAMPTZ` and `BOOLEAN`.
    package enum Kind: Sendable {
        case text, integer, blob, date, boolean
    }

    /// One value on its way between backends.
    package enum Value: Sendable, Equatable {
        case null
        case text(String)
        case integer(Int64)
        case blob(Data)
        case date(Date)
        case boolean(Bool)

        /// About how much memory it takes (for batches of bounded size).
        var byteCount: Int {
            switch self {
            case .null, .integer, .date, .boolean: 8
            case .text(let text): text.utf8.count
            case .blob(let data): data.count
            }
        }
    }

    /// A table and how its rows are read in order.
    package struct Table: Sendable {
        package var name: String
        package var columns: [(name: String, kind: Kind)]
        /// The primary key: rows are read in its order, a page after the last row read.
        package var key: [String]
        /// Rows the destination's own opening already made (the server secret, the community
        /// counters): the source's replace them.
        package var replaces = false

        /// The key columns' places in ``columns``.
        var keyIndices: [Int] {
            key.map { name in columns.firstIndex { $0.name == name }! }
        }
    }

    /// Every table, parents first.
    package static let tables: [Table] = [
        Table(name: "server_settings", columns: [("key", .text), ("value", .blob)], key: ["key"], replaces: true),
        Table(name: "accounts", columns: [
            ("id", .text), ("name", .text), ("password_hash", .text), ("salt", .blob), ("rounds", .integer),
            ("wrapped_key", .blob), ("recovery_wrapped_key", .blob), ("epoch", .text), ("created_at", .date),
            ("recovery_hash", .text), ("disabled_at", .date),
        ], key: ["id"]),
        Table(name: "devices", columns: [
            ("id", .text), ("account_id", .text), ("name", .text), ("token_hash", .text), ("created_at", .date), ("last_seen_at", .date),
        ], key: ["id"]),
        Table(name: "logs", columns: [
            ("account_id", .text), ("name", .text), ("head", .integer), ("compacted_through", .integer), ("compacted_kept", .integer),
        ], key: ["account_id", "name"]),
        Table(name: "operations", columns: [
            ("account_id", .text), ("log", .text), ("position", .integer), ("op_id", .text), ("slot", .text), ("payload", .blob),
            ("kept", .integer), ("removed_ms", .integer),
        ], key: ["account_id", "log", "position"]),
        Table(name: "community_settings", columns: [
            ("account_id", .text), ("favourites", .boolean), ("ratings", .boolean), ("rating_notes", .boolean),
        ], key: ["account_id"]),
        Table(name: "community_counters", columns: [("kind", .text), ("seq", .integer), ("purged", .integer)], key: ["kind"], replaces: true),
        Table(name: "community_items", columns: [
            ("kind", .text), ("key", .text), ("text", .text), ("source", .text), ("votes", .integer), ("seq", .integer), ("zeroed_at", .integer),
        ], key: ["kind", "key"]),
        Table(name: "community_votes", columns: [
            ("kind", .text), ("account_id", .text), ("key", .text), ("payload", .text), ("updated_at", .integer),
        ], key: ["kind", "account_id", "key"]),
        Table(name: "shared_lists", columns: [
            ("id", .text), ("account_id", .text), ("title", .text), ("body", .blob), ("count", .integer), ("created_at", .date),
        ], key: ["id"]),
        Table(name: "invites", columns: [
            ("code_hash", .text), ("created_at", .date), ("expires_at", .date), ("used_at", .date), ("used_by", .text),
        ], key: ["code_hash"]),
        Table(name: "account_usage", columns: [("account_id", .text), ("bytes", .integer)], key: ["account_id"]),
    ]

    /// How many rows of a table a page starts with; later pages hold about
    /// ``pageBytes`` (at most ``maximumPageRows`` rows).
    static let firstPageRows = 64
    static let maximumPageRows = 2_000
    static let pageBytes = 8 << 20

    /// The next page's row count, from the size of the rows of the last one.
    static func nextPageRows(after rows: [[Value]]) -> Int {
        guard !rows.isEmpty else { return firstPageRows }
        let bytes = rows.reduce(0) { $0 + $1.reduce(0) { $0 + $1.byteCount + 8 } }
        let perRow = max(1, bytes / rows.count)
        return min(maximumPageRows, max(1, pageBytes / perRow))
    }

    /// The SQL that reads a page: the columns, after the key `after` (if any), in key order.
    ///
    /// - Parameter placeholder: The backend's placeholder for the n-th value (from 1).
    static func pageSQL(_ table: Table, after: Bool, placeholder: (Int) -> String) -> String {
        let columns = table.columns.map(\.name).joined(separator: ", ")
        let key = table.key.joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(table.name)"
        var next = 1
        if after {
            sql += " WHERE (\(key)) > (\(table.key.indices.map { _ in defer { next += 1 }; return placeholder(next) }.joined(separator: ", ")))"
        }
        sql += " ORDER BY \(key) LIMIT \(placeholder(next))"
        return sql
    }

    /// What must be the same in the source at the start and at the end of a migration, and in
    /// the destination: the rows of every table, every log's head added up, the operations a
    /// compaction removed, and the stored bytes.
    static var fingerprintSQL: String {
        let counts = tables.map { "(SELECT count(*) FROM \($0.name))" }
        let sums = [
            "CAST((SELECT coalesce(sum(head), 0) FROM logs) AS BIGINT)",
            "(SELECT count(*) FROM operations WHERE removed_ms IS NOT NULL)",
            "(SELECT count(*) FROM invites WHERE used_at IS NOT NULL)",
            "(SELECT count(*) FROM accounts WHERE disabled_at IS NOT NULL)",
            "CAST((SELECT coalesce(sum(bytes), 0) FROM account_usage) AS BIGINT)",
        ]
        return "SELECT " + (counts + sums).joined(separator: ", ")
    }

    /// The fingerprint's parts, named for a message.
    static var fingerprintNames: [String] {
        tables.map { "\($0.name) rows" } + ["log heads", "removed operations", "used invites", "disabled accounts", "stored bytes"]
    }

    /// The first difference between two fingerprints, named, or nil.
    static func difference(_ before: [Int64], _ after: [Int64]) -> String? {
        for (index, name) in fingerprintNames.enumerated() where before[index] != after[index] {
            return "\(name): \(before[index]) then \(after[index])"
        }
        return nil
    }
}
