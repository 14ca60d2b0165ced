import Foundation
import GRDB
import SuiteStorage

/// The promise README's Sync section makes — each field merges on its own, so concurrent changes
/// of different fields of one row all survive — checked for every synced entity of a store, as
/// its ``SyncSchema`` lists them (a new entity or field is covered without touching a test).
///
/// The first device holds the data (at least one row of every synced entity, and a second row
/// wherever a reference needs another row to point at); every device gets it through an
/// in-memory server. Then, before any of them syncs again, device `j % n` changes field `j` of
/// one row of each entity (every field but the row's identity; half of them by writing the whole
/// row again, where nothing refers to the row), with a value the store's own constraints and triggers accept. After
/// two rounds of syncing, every device must hold every one of those changes, and the same
/// winners for every field.
package enum ConcurrentFieldEdits {
    /// One field changed on one device.
    package struct Edit: Sendable, CustomStringConvertible {
        package var entity: String
        package var key: String
        package var field: String
        package var device: Int
        package var value: SyncValue
        package var description: String { "\(entity) \(key) \(field) = \(value) (device \(device))" }
    }

    /// What a run checked and what broke.
    package struct Report: Sendable {
        /// Entities whose fields were changed concurrently.
        package var entitiesChecked: [String] = []
        /// Entities with one field that can change (besides existence and identity fields):
        /// nothing concurrent to merge.
        package var singleField: [String] = []
        package var edits: [Edit] = []
        /// Each broken promise, one line.
        package var failures: [String] = []
    }

    package static func check<Failure>(
        devices: [Store<Failure>], log: String = "model", rounds: Int = 2
    ) async throws -> Report {
        precondition(devices.count >= 2, "at least two devices")
        guard let schema = devices[0].sync else { return Report(failures: ["the store does not sync"]) }
        let server = InMemorySyncServer()
        func syncAll() async throws {
            for store in devices { _ = try await SyncSession(store: store, log: log, transport: server).run() }
        }
        try await syncAll()
        try await syncAll()
        var report = Report()
        // One row of each entity, the same on every device.
        var rows: [String: String] = [:]
        for entity in schema.entities {
            let key = try devices[0].read { db in
                try String.fetchOne(db, sql: "SELECT \(entity.keyColumn.quotedDatabaseIdentifier) FROM \(entity.table.quotedDatabaseIdentifier) WHERE \(entity.keyColumn.quotedDatabaseIdentifier) IS NOT NULL ORDER BY \(entity.keyColumn.quotedDatabaseIdentifier) LIMIT 1")
            }
            guard let key else {
                report.failures.append("no row of \(entity.name) to change: the data must hold one")
                continue
            }
            rows[entity.name] = key
            if changeable(entity).count < 2 { report.singleField.append(entity.name) } else { report.entitiesChecked.append(entity.name) }
        }
        // The concurrent changes: field j of each row on device j % n. The odd fields first, as
        // an UPDATE of the field; then the even ones, on a row nothing refers to by deleting it
        // and inserting it again with the field changed (as a whole-row write does), so that
        // with clocks that move on these writes come later and would win every field they
        // rewrote if the ledger took a field left as it was for a change.
        for pass in [1, 0] {
            for entity in schema.entities where changeable(entity).count >= 2 {
                guard let key = rows[entity.name] else { continue }
                let leaf = !schema.entities.contains { $0.fields.contains { $0.reference == entity.name } }
                for (index, field) in changeable(entity).enumerated() where index % 2 == pass {
                    let device = index % devices.count
                    let value = try devices[device].write { db in
                        try change(db, schema: schema, entity: entity, field: field, key: key, rewrite: leaf && pass == 0)
                    }
                    guard let value else {
                        report.failures.append("\(entity.name).\(field.name): no new value the store accepts on device \(device)")
                        continue
                    }
                    report.edits.append(Edit(entity: entity.name, key: key, field: field.name, device: device, value: value))
                }
            }
        }
        for _ in 0..<rounds { try await syncAll() }
        // Every change on every device, and the same winners everywhere.
        for (number, store) in devices.enumerated() {
            let values = try store.read { db in
                try report.edits.map { edit -> SyncValue? in
                    guard let entity = schema.entity(named: edit.entity), let field = entity.field(named: edit.field) else { return nil }
                    return try SyncLedger.currentValue(db, schema: schema, entity: entity, field: field, key: edit.key)
                }
            }
            for (edit, value) in zip(report.edits, values) where value != edit.value {
                report.failures.append("device \(number) lost \(edit): it holds \(value.map { "\($0)" } ?? "no row")")
            }
        }
        func winners(_ store: Store<Failure>) throws -> [String] {
            try store.syncWinners().map { "\($0.entity) \($0.key) \($0.field) \($0.value) \($0.id)" }
        }
        let first = try winners(devices[0])
        for (number, store) in devices.enumerated().dropFirst() where try winners(store) != first {
            report.failures.append("device \(number) has other winners than device 0")
        }
        return report
    }

    /// The fields of an entity that can change once the row exists: all but its identity
    /// (``SyncField/identity``).
    package static func changeable(_ entity: SyncEntity) -> [SyncField] {
        entity.fields.filter { !$0.identity }
    }

    /// The number of changes ``check(devices:log:rounds:)`` makes for a schema.
    package static func editCount(_ schema: SyncSchema) -> Int {
        schema.entities.map { changeable($0).count }.filter { $0 >= 2 }.reduce(0, +)
    }

    /// Changes one field of one row to a new value the store accepts (its constraints, triggers
    /// and the field's rank), and returns the value as sync sees it; nil when none was found.
    /// With `rewrite`, the row is deleted and inserted again with the new value.
    private static func change(_ db: Database, schema: SyncSchema, entity: SyncEntity, field: SyncField, key: String, rewrite: Bool) throws -> SyncValue? {
        guard let old = try SyncLedger.currentValue(db, schema: schema, entity: entity, field: field, key: key) else { return nil }
        let table = entity.table.quotedDatabaseIdentifier, keyColumn = entity.keyColumn.quotedDatabaseIdentifier
        let current = try Row.fetchOne(db, sql: "SELECT \(field.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")) FROM \(table) WHERE \(keyColumn) = ?", arguments: [key])
        guard let current else { return nil }
        let oldValues = (0..<field.columns.count).map { current[$0] as DatabaseValue }
        for candidate in try candidates(db, schema: schema, entity: entity, field: field, old: oldValues) {
            var accepted: SyncValue?
            try db.inSavepoint {
                do {
                    if rewrite, let whole = try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE \(keyColumn) = ?", arguments: [key]) {
                        var values = Dictionary(uniqueKeysWithValues: whole.columnNames.map { ($0, whole[$0] as DatabaseValue) })
                        for (column, value) in zip(field.columns, candidate) { values[column] = value }
                        let columns = Array(whole.columnNames)
                        try db.execute(sql: "DELETE FROM \(table) WHERE \(keyColumn) = ?", arguments: [key])
                        try db.execute(
                            sql: "INSERT INTO \(table) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                            arguments: StatementArguments(columns.map { values[$0] ?? .null }))
                    } else {
                        try db.execute(
                            sql: "UPDATE \(table) SET \(field.columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")) WHERE \(keyColumn) = ?",
                            arguments: StatementArguments(candidate + [key.databaseValue]))
                    }
                } catch is DatabaseError {
                    return .rollback
                }
                guard let new = try SyncLedger.currentValue(db, schema: schema, entity: entity, field: field, key: key), new != old,
                      (field.rank?(new) ?? 0) >= (field.rank?(old) ?? 0) else { return .rollback }
                accepted = new
                return .commit
            }
            if let accepted { return accepted }
        }
        return nil
    }

    /// New values to try, most plausible first: another row's value, then small changes of the
    /// value there, one column at a time.
    private static func candidates(_ db: Database, schema: SyncSchema, entity: SyncEntity, field: SyncField, old: [DatabaseValue]) throws -> [[DatabaseValue]] {
        let table = entity.table.quotedDatabaseIdentifier
        if let referenced = field.reference.flatMap(schema.entity(named:)) {
            let ids = try DatabaseValue.fetchAll(db, sql: """
                SELECT \(referenced.idColumn.quotedDatabaseIdentifier) FROM \(referenced.table.quotedDatabaseIdentifier)
                WHERE \(referenced.keyColumn.quotedDatabaseIdentifier) IS NOT NULL AND \(referenced.idColumn.quotedDatabaseIdentifier) IS NOT ?
                ORDER BY \(referenced.keyColumn.quotedDatabaseIdentifier) LIMIT 8
                """, arguments: [old[0]])
            return ids.map { [$0] } + (field.required ? [] : [[.null]])
        }
        let columns = field.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        var result = try Row.fetchAll(db, sql: "SELECT DISTINCT \(columns) FROM \(table) LIMIT 8")
            .map { row in (0..<field.columns.count).map { row[$0] as DatabaseValue } }
            .filter { $0 != old }
        for index in old.indices {
            for variant in variants(of: old[index]) {
                var values = old
                values[index] = variant
                result.append(values)
            }
        }
        return result
    }

    private static func variants(of value: DatabaseValue) -> [DatabaseValue] {
        switch value.storage {
        case .int64(let number):
            return [number &+ 1, number &- 1, 1, 0, number &+ 86_400_000].map(\.databaseValue)
        case .double(let number):
            return [number + 0.5, number - 0.5, 1.0].map(\.databaseValue)
        case .string(let text):
            var results = [text + " (changed)", "changed", "changed-" + UUID().uuidString.lowercased()].map(\.databaseValue)
            if text.hasPrefix("[") || text.hasPrefix("{") { results.insert(text == "[]" ? "[\"changed\"]".databaseValue : "[]".databaseValue, at: 0) }
            return results
        case .blob:
            return [Data("changed".utf8).databaseValue]
        case .null:
            return [1.databaseValue, "changed".databaseValue, 1.5.databaseValue, "[]".databaseValue]
        }
    }
}
