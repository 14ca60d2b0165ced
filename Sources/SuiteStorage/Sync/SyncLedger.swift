import Foundation
import GRDB

/// Change capture and merging for a store's synced tables, in SQL inside the store's own
/// transactions.
///
/// - **Capture**: triggers on every synced table note which fields of which rows a transaction
///   changed (`sync_dirty`); before the transaction commits, ``stamp(_:schema:now:)`` gives them
///   one hybrid-clock reading and records each field's new value as the change to push
///   (`sync_field`, `pending = 1`). Every write path of a core is covered, imports included,
///   and a change is recorded exactly when the write commits. Triggers do nothing until sync is
///   turned on for the store (``enable(_:schema:now:)``), so a store that never syncs pays one
///   tiny look-up per written row.
/// - **State**: `sync_field` keeps, for each field of each row, the value that won and its stamp
///   (clock reading, device, rank). The rows of the synced tables are always what those winners
///   say, so merging is a maximum per field: deterministic, independent of the order changes
///   arrive in, and idempotent.
/// - **Merge**: ``apply(_:schema:changes:limit:oneByOne:)`` keeps a remote change only if it
///   beats the field's winner (rank, then clock, then device id), then rewrites the rows it
///   touched from their winners, with capture off. A row whose reference is not here yet waits
///   (`sync_waiting`) and is written when it can be.
package enum SyncLedger {
    // MARK: - Schema

    /// Creates the ledger's tables and the capture triggers: run from a store migration.
    package static func install(_ db: Database, schema: SyncSchema) throws {
        try db.execute(sql: """
            CREATE TABLE sync_control (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                capture INTEGER NOT NULL DEFAULT 0,
                applying INTEGER NOT NULL DEFAULT 0,
                device TEXT NOT NULL,
                last_time INTEGER NOT NULL DEFAULT 0,
                server_epoch TEXT,
                server_cursor INTEGER NOT NULL DEFAULT 0,
                server_anchor TEXT
            );
            INSERT INTO sync_control (id, device) VALUES (1, lower(hex(randomblob(8))));
            CREATE TABLE sync_dirty (
                entity TEXT NOT NULL, key TEXT NOT NULL, field TEXT NOT NULL,
                PRIMARY KEY (entity, key, field)
            ) WITHOUT ROWID;
            CREATE TABLE sync_field (
                entity TEXT NOT NULL, key TEXT NOT NULL, field TEXT NOT NULL,
                value TEXT NOT NULL,
                time INTEGER NOT NULL,
                device TEXT NOT NULL,
                rank INTEGER NOT NULL,
                op TEXT NOT NULL,
                pending INTEGER NOT NULL,
                PRIMARY KEY (entity, key, field)
            ) WITHOUT ROWID;
            CREATE INDEX sync_field_pending ON sync_field(time) WHERE pending = 1;
            CREATE TABLE sync_waiting (
                entity TEXT NOT NULL, key TEXT NOT NULL,
                PRIMARY KEY (entity, key)
            ) WITHOUT ROWID;
            """)
        try installTriggers(db, schema: schema)
        try addConflictLog(db)
    }

    /// Adds what the conflict log needs to a ledger installed before it existed (nothing when
    /// it is there): each winner's base operation, and the log of texts that lost.
    package static func addConflictLog(_ db: Database) throws {
        let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(sync_field)").map { $0["name"] as String }
        guard !columns.contains("base") else { return }
        try db.execute(sql: """
            ALTER TABLE sync_field ADD COLUMN base TEXT;
            CREATE TABLE sync_conflict (
                op TEXT PRIMARY KEY NOT NULL,
                entity TEXT NOT NULL, key TEXT NOT NULL, field TEXT NOT NULL,
                value TEXT NOT NULL,
                time INTEGER NOT NULL,
                device TEXT NOT NULL,
                winner TEXT NOT NULL,
                noted_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX sync_conflict_row ON sync_conflict(entity, key);
            """)
    }

    /// (Re)creates the capture triggers for `schema`: a later migration that syncs another field
    /// calls this again. A row whose key a core's own trigger sets just after the insert is
    /// recorded whole when its key goes from NULL to a value.
    package static func installTriggers(_ db: Database, schema: SyncSchema) throws {
        for entity in schema.entities {
            let key = entity.keyColumn.quotedIdentifier
            // A row without a key yet (none of ours) records nothing rather than failing the write.
            let when = "WHEN (SELECT capture AND NOT applying FROM sync_control)"
            let newKey = "AND NEW.\(key) IS NOT NULL", oldKey = "AND OLD.\(key) IS NOT NULL"
            let name = entity.name.quotedLiteral
            for kind in ["insert", "update", "delete"] {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \("sync_\(entity.table)_\(kind)".quotedIdentifier)")
            }
            let allFields = [SyncField.existence] + entity.fields.map(\.name)
            let triggerSQL = """
                CREATE TRIGGER \("sync_\(entity.table)_insert".quotedIdentifier) AFTER INSERT ON \(entity.table.quotedIdentifier) \(when) \(newKey)
                BEGIN
                    INSERT OR IGNORE INTO sync_dirty (entity, key, field) VALUES
                    \(allFields.map { "(\(name), NEW.\(entity.keyColumn.quotedIdentifier), \($0.quotedLiteral))" }.joined(separator: ",\n"));
                END;
                CREATE TRIGGER \("sync_\(entity.table)_update".quotedIdentifier) AFTER UPDATE ON \(entity.table.quotedIdentifier) \(when) \(newKey)
                BEGIN
                    INSERT OR IGNORE INTO sync_dirty (entity, key, field) SELECT \(name), NEW.\(key), f.value
                    FROM json_each('\(jsonArray(allFields))') AS f WHERE OLD.\(key) IS NULL;
                    \(entity.fields.map { (field: SyncField) -> String in
                        let changed = field.columns.map { "OLD.\($0.quotedIdentifier) IS NOT NEW.\($0.quotedIdentifier)" }.joined(separator: " OR ")
                        return "INSERT OR IGNORE INTO sync_dirty (entity, key, field) SELECT \(name), NEW.\(entity.keyColumn.quotedIdentifier), \(field.name.quotedLiteral) WHERE \(changed);"
                    }.joined(separator: "\n"))
                END;
                CREATE TRIGGER \("sync_\(entity.table)_delete".quotedIdentifier) AFTER DELETE ON \(entity.table.quotedIdentifier) \(when) \(oldKey)
                BEGIN
                    INSERT OR IGNORE INTO sync_dirty (entity, key, field) VALUES (\(name), OLD.\(entity.keyColumn.quotedIdentifier), \(SyncField.existence.quotedLiteral));
                END;
                """
            try db.execute(sql: triggerSQL)
        }
    }

    /// A JSON array of the names, for `json_each` in a trigger (names are plain: no quotes).
    private static func jsonArray(_ names: [String]) -> String {
        "[" + names.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    // MARK: - State

    /// This store's device id (random, made when the ledger was installed).
    package static func device(_ db: Database) throws -> String {
        try String.fetchOne(cached: db, sql: "SELECT device FROM sync_control") ?? ""
    }

    /// Whether changes are captured (sync was turned on).
    package static func isEnabled(_ db: Database) throws -> Bool {
        try Bool.fetchOne(cached: db, sql: "SELECT capture FROM sync_control") ?? false
    }

    /// Turns capture on and records every row that exists now as changes to push: the store's
    /// first sync sends its whole state. These baseline changes carry the earliest clock
    /// reading, so an edit made anywhere since wins over them (a device that joins an account
    /// with old data of its own does not overwrite newer data), and fields already pulled from
    /// the server keep their winners.
    package static func enable(_ db: Database, schema: SyncSchema, now: Int64) throws {
        guard try !isEnabled(db) else { return }
        try db.executeCached(sql: "UPDATE sync_control SET capture = 1")
        for entity in schema.entities {
            for field in [SyncField.existence] + entity.fields.map(\.name) {
                try db.executeCached(sql: """
                    INSERT OR IGNORE INTO sync_dirty (entity, key, field)
                    SELECT ?, \(entity.keyColumn.quotedIdentifier), ? FROM \(entity.table.quotedIdentifier)
                    WHERE \(entity.keyColumn.quotedIdentifier) IS NOT NULL
                    """, arguments: [entity.name, field])
            }
        }
        try stamp(db, schema: schema, now: now, baseline: true)
    }

    /// Number of changes not yet acknowledged by the server.
    package static func pendingCount(_ db: Database) throws -> Int {
        try Int.fetchOne(cached: db, sql: "SELECT count(*) FROM sync_field WHERE pending = 1") ?? 0
    }

    /// Up to `limit` changes to push, oldest first.
    package static func pending(_ db: Database, limit: Int) throws -> [SyncChange] {
        try Row.fetchAll(cached: db, sql: """
            SELECT op, entity, key, field, value, time, device, base FROM sync_field
            WHERE pending = 1 ORDER BY time, entity, key, field LIMIT ?
            """, arguments: [limit]).map(change(from:))
    }

    /// Marks pushed changes as on the server (a change superseded meanwhile, which has a new
    /// operation id, stays pending).
    package static func acknowledge(_ db: Database, operations: [String]) throws {
        for chunk in stride(from: 0, to: operations.count, by: 500).map({ Array(operations[$0..<min($0 + 500, operations.count)]) }) {
            try db.execute(
                sql: "UPDATE sync_field SET pending = 0 WHERE pending = 1 AND op IN (\(chunk.map { _ in "?" }.joined(separator: ",")))",
                arguments: StatementArguments(chunk))
        }
    }

    /// Marks every field's winning change as to be pushed again, with its original stamp and
    /// operation id: after the server lost data, the store sends everything it knows. Nothing
    /// local is deleted or changed.
    package static func pushEverythingAgain(_ db: Database) throws {
        try db.executeCached(sql: "UPDATE sync_field SET pending = 1 WHERE pending = 0")
    }

    /// Every field's winner, for comparing replicas.
    package static func winners(_ db: Database) throws -> [SyncChange] {
        try Row.fetchAll(cached: db, sql: "SELECT op, entity, key, field, value, time, device, base FROM sync_field ORDER BY entity, key, field")
            .map(change(from:))
    }

    /// A value as `sync_field` keeps it (JSON).
    private static func json(_ value: SyncValue) throws -> String {
        try value.jsonText()
    }

    private static func change(from row: Row) throws -> SyncChange {
        let json: String = row["value"]
        let value = SyncValue(jsonText: json) ?? .null
        return SyncChange(id: row["op"], entity: row["entity"], key: row["key"], field: row["field"], value: value,
                          time: HybridTime(rawValue: row["time"]), device: row["device"], base: row["base"])
    }

    /// Where this store is in the server's log: the log's epoch (nil before the first sync), the
    /// position of the last operation pulled and that operation's id (the anchor: a log restored
    /// from an older copy and pushed to again has another operation there).
    package static func serverPosition(_ db: Database) throws -> SyncPosition {
        guard let row = try Row.fetchOne(cached: db, sql: "SELECT server_epoch, server_cursor, server_anchor FROM sync_control") else { return SyncPosition() }
        return SyncPosition(epoch: row["server_epoch"], cursor: row["server_cursor"], anchor: row["server_anchor"])
    }

    package static func setServerPosition(_ db: Database, _ position: SyncPosition) throws {
        try db.executeCached(sql: "UPDATE sync_control SET server_epoch = ?, server_cursor = ?, server_anchor = ?",
                       arguments: [position.epoch, position.cursor, position.anchor])
    }

    // MARK: - Capture

    /// Turns the fields the triggers noted in this transaction into changes: one clock reading
    /// for the whole transaction, each field's value as it is now. Called by ``Store`` before
    /// every write commits; costs one look-up when nothing was noted.
    package static func stamp(_ db: Database, schema: SyncSchema, now: Int64) throws {
        try stamp(db, schema: schema, now: now, baseline: false)
    }

    /// ``stamp(_:schema:now:)``; with `baseline`, the changes record what was there before sync
    /// was turned on: they carry the earliest clock reading, so any edit made anywhere since
    /// wins over them, and a field that already has a winner (pulled from the server) keeps it.
    private static func stamp(_ db: Database, schema: SyncSchema, now: Int64, baseline: Bool) throws {
        let dirty = try Row.fetchAll(cached: db, sql: "SELECT entity, key, field FROM sync_dirty")
        guard !dirty.isEmpty else { return }
        guard let control = try Row.fetchOne(cached: db, sql: "SELECT device, last_time FROM sync_control") else { return }
        let device: String = control["device"]
        let time: HybridTime
        if baseline {
            time = HybridTime(rawValue: 1)
        } else {
            time = SyncClock.send(last: HybridTime(rawValue: control["last_time"]), now: now)
            try db.executeCached(sql: "UPDATE sync_control SET last_time = ?", arguments: [time.rawValue])
        }
        var outranked = Set<RowKey>()
        for row in dirty {
            let entityName: String = row["entity"], key: String = row["key"], fieldName: String = row["field"]
            guard let entity = schema.entity(named: entityName) else { continue }
            let value: SyncValue
            if fieldName == SyncField.existence {
                value = .integer(try rowExists(db, entity: entity, key: key) ? 1 : 0)
            } else if let field = entity.field(named: fieldName), let current = try currentValue(db, schema: schema, entity: entity, field: field, key: key) {
                value = current
            } else {
                continue   // the row was deleted later in the same transaction
            }
            let rank = entity.field(named: fieldName)?.rank?(value) ?? 0
            var base: String?
            var fieldTime = time
            if let winner = try Row.fetchOne(cached: db, sql: "SELECT rank, op, value, time FROM sync_field WHERE entity = ? AND key = ? AND field = ?",
                                             arguments: [entityName, key, fieldName]) {
                base = winner["op"]
                // A field that already has a winner keeps it for the baseline; a local change
                // that ranks below the winner would lose on every other device, so it is undone
                // here too (the row is rewritten from its winners below).
                if baseline { continue }
                // A write that left a field as it was (a whole row written again, or deleted and
                // inserted again) is no change of it: stamping it would make it beat another
                // device's concurrent change of that field, which this device never touched.
                // Values are compared as they travel (JSON: a REAL 3.0 is the 3 that arrived).
                // Existence is always stamped: a row inserted again may be one that another
                // device's change removed here without a stamp (a cascade, a deleted reference),
                // and the other devices must learn that it is back.
                if fieldName != SyncField.existence, winner["value"] as String == (try Self.json(value)) { continue }
                if rank < winner["rank"] as Int64 {
                    outranked.insert(RowKey(entity: entityName, key: key))
                    continue
                }
                // An edit made after seeing the winner comes after it, even when the clock did
                // not take the winner's reading (one past the bound of ``SyncClock/maximumLead``):
                // otherwise it would win here and lose everywhere else.
                let replaced = HybridTime(rawValue: winner["time"])
                if replaced >= fieldTime { fieldTime = SyncClock.send(last: replaced, now: 0) }
            }
            try record(db, SyncChange(id: UUID().uuidString.lowercased(), entity: entityName, key: key, field: fieldName, value: value,
                                      time: fieldTime, device: device, base: base), rank: rank, pending: true)
        }
        try db.executeCached(sql: "DELETE FROM sync_dirty")
        if !outranked.isEmpty {
            try db.executeCached(sql: "UPDATE sync_control SET applying = 1")
            let statements = Statements(db)
            for entity in schema.entities {
                for row in outranked where row.entity == entity.name {
                    _ = try materialize(statements, schema: schema, entity: entity, key: row.key)
                }
            }
            try db.executeCached(sql: "UPDATE sync_control SET applying = 0")
            try db.executeCached(sql: "DELETE FROM sync_dirty")
        }
    }

    private static func rowExists(_ db: Database, entity: SyncEntity, key: String) throws -> Bool {
        try Bool.fetchOne(cached: db, sql: "SELECT EXISTS (SELECT 1 FROM \(entity.table.quotedIdentifier) WHERE \(entity.keyColumn.quotedIdentifier) = ?)", arguments: [key]) ?? false
    }

    /// A field's value in its row, references as the referenced row's key; nil when the row is gone.
    package static func currentValue(_ db: Database, schema: SyncSchema, entity: SyncEntity, field: SyncField, key: String) throws -> SyncValue? {
        guard let row = try Row.fetchOne(cached: db, sql: """
            SELECT \(field.columns.map(\.quotedIdentifier).joined(separator: ", ")) FROM \(entity.table.quotedIdentifier)
            WHERE \(entity.keyColumn.quotedIdentifier) = ?
            """, arguments: [key]) else { return nil }
        let values = (0..<field.columns.count).map { SyncValue(row[$0] as DatabaseValue) }
        if let referenced = field.reference.flatMap(schema.entity(named:)) {
            let id = row[0] as DatabaseValue
            guard !id.isNull else { return .null }
            let referencedKey = try String.fetchOne(cached: db, sql: """
                SELECT \(referenced.keyColumn.quotedIdentifier) FROM \(referenced.table.quotedIdentifier) WHERE \(referenced.idColumn.quotedIdentifier) = ?
                """, arguments: [id])
            return referencedKey.map(SyncValue.text) ?? .null
        }
        return values.count == 1 ? values[0] : .list(values)
    }

    private static func record(_ db: Database, _ change: SyncChange, rank: Int64, pending: Bool) throws {
        let json = try json(change.value)
        try db.executeCached(sql: """
            INSERT INTO sync_field (entity, key, field, value, time, device, rank, op, pending, base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (entity, key, field) DO UPDATE SET
                value = excluded.value, time = excluded.time, device = excluded.device, rank = excluded.rank,
                op = excluded.op, pending = excluded.pending, base = excluded.base
            """, arguments: [change.entity, change.key, change.field, json, change.time.rawValue, change.device, rank, change.id, pending, change.base])
    }

    // MARK: - Merge

    /// What applying a batch did.
    package struct ApplyOutcome: Sendable, Equatable {
        /// Changes that won their field and were applied.
        package var applied = 0
        /// Changes already here, or beaten by what is here.
        package var ignored = 0
        /// The latest clock reading seen (for showing skew).
        package var latest = HybridTime.zero
        /// Operations set aside that were not set aside before (see ``setAside(_:log:envelope:reason:now:)``).
        package var setAside = 0
        /// Set-aside operations that were applied (or lost to what is here) on a retry.
        package var recovered = 0
        /// Of the changes applied, those recorded in bulk (the only change of their field in the
        /// batch, for a field with no winner here: see ``apply(_:schema:changes:limit:oneByOne:)``).
        package var bulk = 0
    }

    /// Merges changes from other devices: each one wins its field or is ignored, and the rows
    /// touched are rewritten from their winners, with capture off (applying is not a local edit).
    /// The clock moves past every reading seen, so an edit made here afterwards wins over them;
    /// with a `limit` (``SyncClock/limit(serverTime:)``), not past it: a reading from a clock
    /// too far ahead still merges by its stamp, but does not drag this device's clock.
    ///
    /// Fields are merged independently of each other, so a change that is the only one of its
    /// field in the batch, for a field with no winner here (nothing to merge against, no
    /// conflict possible: it simply wins), is recorded in bulk, through statements prepared once
    /// for the batch: a new device's first sync receives nearly nothing else. The others are
    /// merged one by one, in their order. `oneByOne` merges every change one by one (the same
    /// result, slower: for tests that compare the two).
    @discardableResult
    package static func apply(_ db: Database, schema: SyncSchema, changes: [SyncChange], limit: HybridTime? = nil, oneByOne: Bool = false) throws -> ApplyOutcome {
        var outcome = ApplyOutcome()
        guard let control = try Row.fetchOne(cached: db, sql: "SELECT last_time FROM sync_control") else { return outcome }
        var last = HybridTime(rawValue: control["last_time"])
        for change in changes {
            last = SyncClock.receive(last: last, remote: change.time, limit: limit)
            outcome.latest = max(outcome.latest, change.time)
        }
        var touched = Set<RowKey>()
        var merged = changes
        let statements = Statements(db)
        if !oneByOne {
            let fresh = try freshChanges(statements, changes)
            if !fresh.isEmpty {
                try recordNew(statements, schema: schema, fresh.map { changes[$0] })
                for index in fresh { touched.insert(RowKey(entity: changes[index].entity, key: changes[index].key)) }
                outcome.applied += fresh.count
                outcome.bulk += fresh.count
                let recorded = Set(fresh)
                merged = changes.indices.filter { !recorded.contains($0) }.map { changes[$0] }
            }
        }
        for change in merged where try merge(db, schema: schema, change, into: &outcome) {
            touched.insert(RowKey(entity: change.entity, key: change.key))
        }
        try db.executeCached(sql: "UPDATE sync_control SET last_time = ?, applying = 1", arguments: [last.rawValue])
        defer { try? db.executeCached(sql: "UPDATE sync_control SET applying = 0") }
        let waiting = Set(try Row.fetchAll(cached: db, sql: "SELECT entity, key FROM sync_waiting").map { RowKey(entity: $0["entity"], key: $0["key"]) })
        touched.formUnion(waiting)
        // Rows are written referenced entities first, so that a row's references exist when it
        // is written; deleted last, referencing entities first, so that nothing still points to
        // a row when it goes.
        var deletions: [(SyncEntity, String)] = []
        for entity in schema.entities {
            for row in touched.filter({ $0.entity == entity.name }).sorted(by: { $0.key < $1.key }) {
                if try !materialize(statements, schema: schema, entity: entity, key: row.key, waiting: waiting.contains(row)) { deletions.append((entity, row.key)) }
            }
        }
        for (entity, key) in deletions.reversed() {
            try delete(db, entity: entity, key: key)
        }
        if let afterApply = schema.afterApply {
            var keys: [String: Set<String>] = [:]
            for row in touched { keys[row.entity, default: []].insert(row.key) }
            try afterApply(db, keys)
        }
        try db.executeCached(sql: "UPDATE sync_control SET applying = 0")
        return outcome
    }

    /// Merges one change into its field: true when it won (it is the field's winner now).
    private static func merge(_ db: Database, schema: SyncSchema, _ change: SyncChange, into outcome: inout ApplyOutcome) throws -> Bool {
        let rank = schema.entity(named: change.entity)?.field(named: change.field)?.rank?(change.value) ?? 0
        let current = try Row.fetchOne(cached: db, sql: """
            SELECT op, time, device, rank, base, value FROM sync_field WHERE entity = ? AND key = ? AND field = ?
            """, arguments: [change.entity, change.key, change.field])
        if let current {
            let op: String = current["op"]
            let here = (current["rank"] as Int64, current["time"] as Int64, current["device"] as String)
            if op == change.id {
                outcome.ignored += 1
                return false
            }
            let keepsLosers = schema.entity(named: change.entity)?.field(named: change.field)?.keepsLosers ?? false
            if (rank, change.time.rawValue, change.device) <= here {
                // The change lost. Made without seeing the winner, and the winner was made without seeing it: a conflict.
                if keepsLosers, current["base"] as String? != change.id {
                    try noteConflict(db, loser: change, winner: nil, winningOp: op)
                }
                outcome.ignored += 1
                return false
            }
            if keepsLosers, change.base != op {
                let json: String = current["value"]
                let loser = SyncChange(
                    id: op, entity: change.entity, key: change.key, field: change.field,
                    value: SyncValue(jsonText: json) ?? .null,
                    time: HybridTime(rawValue: current["time"]), device: current["device"], base: current["base"])
                try noteConflict(db, loser: loser, winner: change.value, winningOp: change.id)
            }
        }
        try record(db, change, rank: rank, pending: false)
        outcome.applied += 1
        return true
    }

    /// The fields of a batch, by entity, key and field.
    private struct FieldKey: Hashable {
        var entity: String
        var key: String
        var field: String
    }

    /// The positions in `changes` of those that are the only change of their field in the batch
    /// and whose field has no winner here, in their order.
    private static func freshChanges(_ statements: Statements, _ changes: [SyncChange]) throws -> [Int] {
        var count: [FieldKey: Int] = [:]
        for change in changes { count[FieldKey(entity: change.entity, key: change.key, field: change.field), default: 0] += 1 }
        // The fields of each row that have a winner, looked up once per row (a row's fields
        // usually come together).
        let fields = try statements(.init(.rowFields), { "SELECT field FROM sync_field WHERE entity = ? AND key = ?" })
        var known: [RowKey: Set<String>] = [:]
        return try changes.indices.filter { index in
            let change = changes[index]
            guard count[FieldKey(entity: change.entity, key: change.key, field: change.field)] == 1 else { return false }
            let row = RowKey(entity: change.entity, key: change.key)
            if known[row] == nil {
                var names = Set<String>()
                fields.reset().bind(change.entity, at: 1).bind(change.key, at: 2)
                while try fields.step() { names.insert(fields.columns.text(0)) }
                known[row] = names
            }
            // (A name equal to a known one only by Unicode equivalence goes the slow way: the
            // same result.)
            return known[row]?.contains(change.field) == false
        }
    }

    /// Records changes whose fields have no winner yet, as ``record(_:_:rank:pending:)`` would
    /// (applied: not pending), with one statement prepared for all of them.
    private static func recordNew(_ statements: Statements, schema: SyncSchema, _ changes: [SyncChange]) throws {
        let insert = try statements(.init(.record)) {
            "INSERT INTO sync_field (entity, key, field, value, time, device, rank, op, pending, base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)"
        }
        for change in changes {
            let rank = schema.entity(named: change.entity)?.field(named: change.field)?.rank?(change.value) ?? 0
            try insert.reset().bind(change.entity, at: 1).bind(change.key, at: 2).bind(change.field, at: 3).bind(try change.value.jsonText(), at: 4)
                .bind(change.time.rawValue, at: 5).bind(change.device, at: 6).bind(rank, at: 7).bind(change.id, at: 8).bind(change.base, at: 9)
                .run()
        }
    }

    /// Keeps a text that lost to a concurrent edit (not when it says the same as the winner).
    private static func noteConflict(_ db: Database, loser: SyncChange, winner: SyncValue?, winningOp: String) throws {
        var winning = winner
        if winning == nil, let json = try String.fetchOne(cached: db, sql: """
            SELECT value FROM sync_field WHERE entity = ? AND key = ? AND field = ?
            """, arguments: [loser.entity, loser.key, loser.field]) {
            winning = SyncValue(jsonText: json)
        }
        let json = try loser.value.jsonText()
        let winner = winningOp
        guard loser.value != .null, loser.value != .text(""), loser.value != winning else { return }
        try db.executeCached(sql: """
            INSERT OR IGNORE INTO sync_conflict (op, entity, key, field, value, time, device, winner, noted_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [loser.id, loser.entity, loser.key, loser.field, json, loser.time.rawValue, loser.device, winner,
                             Int64(Date().timeIntervalSince1970 * 1000)])
    }

    /// Texts that lost to a concurrent edit, newest first (see ``SyncField/keepsLosers``).
    package static func conflicts(_ db: Database, entity: String? = nil, key: String? = nil, limit: Int = 1000) throws -> [SyncConflict] {
        try Row.fetchAll(db, sql: """
            SELECT op, entity, key, field, value, time, device, winner, noted_ms FROM sync_conflict
            WHERE (?1 IS NULL OR entity = ?1) AND (?2 IS NULL OR key = ?2)
            ORDER BY time DESC, op LIMIT ?3
            """, arguments: [entity, key, limit]).map { row in
            let json: String = row["value"]
            return SyncConflict(
                entity: row["entity"], key: row["key"], field: row["field"],
                value: SyncValue(jsonText: json) ?? .null,
                time: HybridTime(rawValue: row["time"]), device: row["device"], notedAt: Millis(row["noted_ms"] as Int64).date)
        }
    }

    /// Runs `body` with capture on, from a schema's `afterApply`: what it writes is recorded as
    /// this device's changes and pushed.
    package static func capturing<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.executeCached(sql: "UPDATE sync_control SET applying = 0")
        defer { try? db.executeCached(sql: "UPDATE sync_control SET applying = 1") }
        return try body()
    }

    /// Whether changes are being applied from other devices now (capture is off).
    package static func isApplying(_ db: Database) throws -> Bool {
        try Bool.fetchOne(cached: db, sql: "SELECT applying FROM sync_control") ?? false
    }

    private struct RowKey: Hashable {
        var entity: String
        var key: String
    }

    /// Deletes a row whose existence lost. A row something still refers to (a foreign key
    /// refuses) waits.
    private static func delete(_ db: Database, entity: SyncEntity, key: String) throws {
        var deleted = false
        try db.inSavepoint {
            do {
                try db.executeCached(sql: "DELETE FROM \(entity.table.quotedIdentifier) WHERE \(entity.keyColumn.quotedIdentifier) = ?", arguments: [key])
                deleted = true
                return .commit
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                return .rollback
            }
        }
        if deleted {
            try db.executeCached(sql: "DELETE FROM sync_waiting WHERE entity = ? AND key = ?", arguments: [entity.name, key])
        } else {
            try db.executeCached(sql: "INSERT OR IGNORE INTO sync_waiting (entity, key) VALUES (?, ?)", arguments: [entity.name, key])
        }
    }

    /// Rewrites one row from its fields' winners: creates or updates it, and returns true; returns
    /// false, writing nothing, when its existence lost (the caller deletes it). A reference to a
    /// row not here yet is written as NULL, or, where the column cannot be NULL, the row waits;
    /// a reference to a deleted row is NULL, or, where it cannot be, the row is deleted too.
    ///
    /// `waiting` false says the row is known not to wait (`sync_waiting` does not hold it): it is
    /// not looked for there.
    private static func materialize(_ statements: Statements, schema: SyncSchema, entity: SyncEntity, key: String, waiting: Bool = true) throws -> Bool {
        var winners: [String: SyncValue] = [:]
        let fields = try statements(.init(.winners), { "SELECT field, value FROM sync_field WHERE entity = ? AND key = ?" }).bind(entity.name, at: 1).bind(key, at: 2)
        while try fields.step() {
            winners[fields.columns.text(0)] = SyncValue(jsonText: fields.columns.text(1)) ?? .null
        }
        let table = entity.table.quotedIdentifier, keyColumn = entity.keyColumn.quotedIdentifier
        func stopWaiting() throws {
            if waiting {
                try statements(.init(.stopWaiting), { "DELETE FROM sync_waiting WHERE entity = ? AND key = ?" }).bind(entity.name, at: 1).bind(key, at: 2).run()
            }
        }
        func wait() throws {
            try statements(.init(.wait), { "INSERT OR IGNORE INTO sync_waiting (entity, key) VALUES (?, ?)" }).bind(entity.name, at: 1).bind(key, at: 2).run()
        }
        func deleteRow() throws {
            try statements(.init(.deleteRow, entity.name), { "DELETE FROM \(table) WHERE \(keyColumn) = ?" }).bind(key, at: 1).run()
        }
        guard winners[SyncField.existence] == .integer(1) else {
            if winners[SyncField.existence] != nil { return false }
            // Fields of a row whose creation has not arrived: nothing to write yet.
            try stopWaiting()
            return true
        }
        var columns: [String] = [], values: [DatabaseValue] = []
        // Which fields have a winner (the columns written): names the statement that writes them.
        var present = 0
        var unresolved = false, referenceDeleted = false, requiredMissing = false, requiredGone = false
        for (index, field) in entity.fields.enumerated() {
            guard let value = winners[field.name] else {
                if field.required { requiredMissing = true }
                continue
            }
            present |= 1 << min(index, Int.bitWidth - 1)
            if let referenced = field.reference.flatMap(schema.entity(named:)) {
                var id: DatabaseValue = .null
                if case .text(let referencedKey) = value {
                    let found = try statements(.init(.lookup, referenced.name)) {
                        "SELECT \(referenced.idColumn.quotedIdentifier) FROM \(referenced.table.quotedIdentifier) WHERE \(referenced.keyColumn.quotedIdentifier) = ?"
                    }.bind(referencedKey, at: 1)
                    if try found.step(), !found.columns.isNull(0) {
                        id = found.columns.databaseValue(0)
                    } else if try statements(.init(.fieldValue), { "SELECT value FROM sync_field WHERE entity = ? AND key = ? AND field = ?" })
                        .bind(referenced.name, at: 1).bind(referencedKey, at: 2).bind(SyncField.existence, at: 3).firstText() == "0" {
                        // The row referred to was deleted: it will not come back, so nothing waits for it.
                        referenceDeleted = true
                        if field.required { requiredGone = true }
                    } else {
                        unresolved = true
                        if field.required { requiredMissing = true }
                    }
                } else if field.required {
                    requiredMissing = true
                }
                columns.append(field.columns[0])
                values.append(id)
            } else {
                let parts = field.columns.count == 1 ? [value] : value.elements
                for (index, column) in field.columns.enumerated() {
                    columns.append(column)
                    values.append(index < parts.count ? parts[index].databaseValue : .null)
                }
            }
        }
        if requiredGone {
            try deleteRow()
            try stopWaiting()
            return true
        }
        if requiredMissing {
            try wait()
            return true
        }
        // An entity with more fields than bits names its statements by their SQL.
        let variant = entity.fields.count < Int.bitWidth - 1 ? present : nil
        // One statement writes the row: one that breaks a constraint is undone whole by SQLite,
        // with whatever its triggers wrote, and the transaction goes on (no savepoint needed).
        var written = false
        do {
            if try statements(.init(.rowExists, entity.name), { "SELECT EXISTS (SELECT 1 FROM \(table) WHERE \(keyColumn) = ?)" }).bind(key, at: 1).firstInt64() == 1 {
                if !columns.isEmpty {
                    let sql = { "UPDATE \(table) SET \(columns.map { "\($0.quotedIdentifier) = ?" }.joined(separator: ", ")) WHERE \(keyColumn) = ?" }
                    let update = try statements(.init(.update, variant.map { _ in entity.name } ?? sql(), variant ?? 0), sql)
                    for (index, value) in values.enumerated() { update.bind(value, at: Int32(index + 1)) }
                    try update.bind(key, at: Int32(values.count + 1)).run()
                }
            } else {
                let sql = {
                    let defaults = entity.insertDefaults.filter { d in !columns.contains(d.column) }
                    let names = [entity.keyColumn] + columns + defaults.map(\.column)
                    let placeholders = Array(repeating: "?", count: 1 + columns.count) + defaults.map(\.expression)
                    return "INSERT INTO \(table) (\(names.map(\.quotedIdentifier).joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
                }
                let insert = try statements(.init(.insert, variant.map { _ in entity.name } ?? sql(), variant ?? 0), sql)
                insert.bind(key, at: 1)
                for (index, value) in values.enumerated() { insert.bind(value, at: Int32(index + 2)) }
                try insert.run()
            }
            written = true
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            written = false
        }
        if !written && referenceDeleted && !unresolved {
            // A row that cannot be without a row that was deleted goes with it, as a cascade would.
            try deleteRow()
            try stopWaiting()
        } else if written && !unresolved {
            try stopWaiting()
        } else {
            try wait()
        }
        return true
    }

    /// The statements one apply runs for every change or row, prepared once each (with SQLite's
    /// C API, as ``DirectConnection`` does inside a GRDB write) and run again and again: a
    /// page of a new device's first sync writes a thousand fields and dozens to a thousand
    /// rows, and GRDB's binding and cursors cost more than SQLite's work.
    private final class Statements {
        /// What a statement does, for which entity (its name), and in which variant (which
        /// columns it writes): found without making or comparing its SQL.
        struct Key: Hashable {
            enum Purpose { case rowFields, record, winners, fieldValue, stopWaiting, wait, lookup, rowExists, deleteRow, update, insert }
            var purpose: Purpose
            var entity = ""
            var variant = 0

            init(_ purpose: Purpose, _ entity: String = "", _ variant: Int = 0) {
                self.purpose = purpose
                self.entity = entity
                self.variant = variant
            }
        }

        private let connection: DirectConnection
        private var prepared: [Key: DirectStatement] = [:]

        init(_ db: Database) {
            connection = DirectConnection(borrowing: db)
        }

        /// The statement for `key`, ready to bind; `sql` makes its SQL the first time.
        func callAsFunction(_ key: Key, _ sql: () -> String) throws -> DirectStatement {
            if let statement = prepared[key] { return statement.reset() }
            let statement = try connection.prepare(sql())
            prepared[key] = statement
            return statement
        }
    }
}

extension String {
    /// The string as an SQL identifier, in double quotes. (Applying builds its statements' SQL
    /// for every row it writes: names without quotes, all of ours, are not searched twice.)
    fileprivate var quotedIdentifier: String {
        utf8.contains(UInt8(ascii: "\"")) ? "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\"" : "\"" + self + "\""
    }
    /// The string as an SQL text literal, in single quotes.
    fileprivate var quotedLiteral: String { "'" + replacingOccurrences(of: "'", with: "''") + "'" }
}

/// A store's place in the server's log (see ``SyncLedger/serverPosition(_:)``).
package struct SyncPosition: Sendable, Hashable {
    package var epoch: String?
    package var cursor: Int64 = 0
    package var anchor: String?

    package init(epoch: String? = nil, cursor: Int64 = 0, anchor: String? = nil) {
        self.epoch = epoch
        self.cursor = cursor
        self.anchor = anchor
    }
}

extension Database {
    /// Runs one statement, compiled once per connection: the ledger runs the same few
    /// statements for every change, and compiling them again each time costs more than running them.
    fileprivate func executeCached(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}

extension Row {
    fileprivate static func fetchOne(cached db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    fileprivate static func fetchAll(cached db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }
}

extension DatabaseValueConvertible {
    fileprivate static func fetchOne(cached db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> Self? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }
}

/// A text that lost to an edit made at the same time on another device, kept so that nothing a
/// person wrote disappears silently.
package struct SyncConflict: Sendable, Hashable {
    package var entity: String
    package var key: String
    package var field: String
    /// The text that lost.
    package var value: SyncValue
    /// When it was written (hybrid clock), and on which device.
    package var time: HybridTime
    package var device: String
    /// When this device noticed.
    package var notedAt: Date
}
