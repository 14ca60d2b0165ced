import Foundation
import GRDB
import SuiteStorage
import SuiteSyncProtocol

/// What of the business-model store syncs (see `SyncLedger` in SuiteStorage and README's Sync
/// section):
///
/// - **Models**, by their UUIDs: the name and creation time, the last writer wins. Two models
///   with the same name (made on two devices) both stay; the one with the greater id shows with
///   a suffix, " (2)", on every device, until one is renamed.
/// - **Section history** is a graph of immutable versions, each naming its parents (the heads
///   of the section when it was saved). When a section has several heads (saved on two devices
///   at once), they are merged line-wise against their nearest common ancestor if the lines
///   each changed do not touch; the merge is a version whose key is a digest of its parents and
///   text, so every device makes the same one. Otherwise the heads stay, ``BusinessModelStore/heads(of:in:)``
///   shows them all, and the next save of the section (or a restore) has them all as parents.
/// - **Confidence** of a section: the last writer wins.
/// - Which model is current is the device's own.
extension BusinessModelStore {
    static let syncSchema = SyncSchema(entities: [
        SyncEntity(name: "model", table: "model", idColumn: "id", keyColumn: "id", fields: [
            SyncField.text("name", columns: ["synced_name"]), SyncField("created", columns: ["created_ms"]),
        ], insertDefaults: [("name", "'\u{1}' || lower(hex(randomblob(16)))"), ("updated_ms", "0")]),
        SyncEntity(name: "section", table: "section_entry", idColumn: "sync_key", keyColumn: "sync_key", fields: [
            SyncField("model", columns: ["model_id"], reference: "model", required: true, identity: true), SyncField("section", identity: true),
            SyncField("confidence"),
        ], insertDefaults: [("text", "''"), ("updated_ms", "0")]),
        SyncEntity(name: "version", table: "section_version", idColumn: "sync_key", keyColumn: "sync_key", fields: [
            SyncField("model", columns: ["model_id"], reference: "model", required: true), SyncField("section"),
            SyncField("text"), SyncField("confidence"), SyncField("saved", columns: ["saved_ms"]), SyncField("parents"),
        ], insertDefaults: [("version", "-1 - abs(random() % 1000000000000)"), ("parents", "NULL")]),
    ], afterApply: { db, touched in try afterApply(db, touched: touched) })

    /// The migration that makes the store ready to sync: the synced name beside the shown one,
    /// keys for section entries and versions, the history as a chain of versions with parents,
    /// and the ledger.
    static func migrateToSync(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE model ADD COLUMN synced_name TEXT;
            UPDATE model SET synced_name = name;
            CREATE TRIGGER model_synced_name_insert AFTER INSERT ON model WHEN NEW.synced_name IS NULL BEGIN
                UPDATE model SET synced_name = NEW.name WHERE id = NEW.id;
            END;
            ALTER TABLE section_entry ADD COLUMN sync_key TEXT;
            UPDATE section_entry SET sync_key = model_id || '/' || section;
            CREATE UNIQUE INDEX section_entry_sync_key ON section_entry(sync_key);
            CREATE TRIGGER section_entry_sync_key AFTER INSERT ON section_entry WHEN NEW.sync_key IS NULL BEGIN
                UPDATE section_entry SET sync_key = NEW.model_id || '/' || NEW.section
                WHERE model_id = NEW.model_id AND section = NEW.section;
            END;
            ALTER TABLE section_version ADD COLUMN sync_key TEXT;
            ALTER TABLE section_version ADD COLUMN parents TEXT NOT NULL DEFAULT '[]';
            UPDATE section_version SET sync_key = lower(hex(randomblob(16)));
            UPDATE section_version SET parents = json_array((
                SELECT p.sync_key FROM section_version AS p
                WHERE p.model_id = section_version.model_id AND p.section = section_version.section AND p.version = section_version.version - 1
            )) WHERE version > 1;
            INSERT INTO section_version (model_id, section, version, text, confidence, saved_ms, sync_key, parents)
            SELECT e.model_id, e.section, 1, e.text, e.confidence, e.updated_ms, lower(hex(randomblob(16))), '[]' FROM section_entry AS e
            WHERE NOT EXISTS (SELECT 1 FROM section_version AS v WHERE v.model_id = e.model_id AND v.section = e.section);
            CREATE UNIQUE INDEX section_version_sync_key ON section_version(sync_key);
            """)
        try SyncLedger.install(db, schema: syncSchema)
        // A rename made here is the model's synced name; the suffix given to a name two models
        // share (written while changes are applied) is not.
        try db.execute(sql: """
            CREATE TRIGGER model_synced_name_update AFTER UPDATE OF name ON model
            WHEN NEW.name IS NOT OLD.name AND NOT (SELECT applying FROM sync_control) BEGIN
                UPDATE model SET synced_name = NEW.name WHERE id = NEW.id;
            END;
            """)
    }

    /// The versions of a section that no later version descends from, oldest first: one
    /// normally; several when the section was saved on two devices at once and the two could
    /// not be merged line by line. The section shows the latest of them until the next save or
    /// restore, which descends from them all.
    public func heads(of section: SectionID, in id: BusinessModel.ID) throws(MotivationError) -> [SectionVersion] {
        try read { db in
            _ = try Self.load(id: id, db: db)
            let keys = Set(Self.heads(try Self.nodes(model: id.uuidString, section: section.rawValue, db: db)).map(\.key))
            return try Row.fetchAll(db, sql: """
                SELECT version, text, confidence, saved_ms, sync_key FROM section_version
                WHERE model_id = ? AND section = ? ORDER BY version
                """, arguments: [id.uuidString, section.rawValue]).filter { keys.contains($0["sync_key"]) }.map(Self.version)
        }
    }

    /// The sections of a model whose versions disagree (see ``heads(of:in:)``), with their heads.
    public func disagreements(in id: BusinessModel.ID) throws(MotivationError) -> [SectionID: [SectionVersion]] {
        var result: [SectionID: [SectionVersion]] = [:]
        for section in SectionID.allCases {
            let heads = try heads(of: section, in: id)
            if heads.count > 1 { result[section] = heads }
        }
        return result
    }

    // MARK: - The version graph

    /// One version of a section as the graph knows it.
    struct Node {
        var key: String
        var text: String
        var confidence: String?
        var saved: Int64
        var parents: [String]
    }

    static func nodes(model: String, section: String, db: Database) throws -> [String: Node] {
        var nodes: [String: Node] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT sync_key, text, confidence, saved_ms, parents FROM section_version WHERE model_id = ? AND section = ?
            """, arguments: [model, section]) {
            guard let key = row["sync_key"] as String? else { continue }
            nodes[key] = Node(key: key, text: row["text"], confidence: row["confidence"], saved: row["saved_ms"],
                              parents: decodeParents(row["parents"]))
        }
        return nodes
    }

    static func decodeParents(_ json: String?) -> [String] {
        guard let json, let parents = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) else { return [] }
        return parents
    }

    static func encodeParents(_ parents: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(parents.sorted())) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// The versions no other version names as a parent, by key.
    static func heads(_ nodes: [String: Node]) -> [Node] {
        let parents = Set(nodes.values.flatMap(\.parents))
        return nodes.values.filter { !parents.contains($0.key) }.sorted { $0.key < $1.key }
    }

    /// The head shown as the section's text while several disagree: the latest saved.
    static func shown(_ heads: [Node]) -> Node? {
        heads.max { ($0.saved, $0.key) < ($1.saved, $1.key) }
    }

    /// `node` and every version it descends from; nil when one of them is not here yet.
    static func ancestry(of node: String, in nodes: [String: Node]) -> Set<String>? {
        var seen: Set<String> = [], queue = [node]
        while let key = queue.popLast() {
            guard seen.insert(key).inserted else { continue }
            guard let found = nodes[key] else { return nil }
            queue += found.parents
        }
        return seen
    }

    /// The merge of two heads: their texts merged line-wise against their nearest common
    /// ancestor (the latest saved, if several are equally near), or nil when they share none,
    /// part of their history is not here yet, or their changes touch.
    static func merge(_ a: Node, _ b: Node, in nodes: [String: Node]) -> Node? {
        guard let left = ancestry(of: a.key, in: nodes), let right = ancestry(of: b.key, in: nodes) else { return nil }
        let common = left.intersection(right)
        // Everything an ancestor in common descends from is in common too, and not nearest.
        var farther: Set<String> = [], queue = common.flatMap { nodes[$0]?.parents ?? [] }
        while let key = queue.popLast() {
            guard farther.insert(key).inserted else { continue }
            queue += nodes[key]?.parents ?? []
        }
        let nearest = common.subtracting(farther)
        guard let base = nearest.compactMap({ nodes[$0] }).max(by: { ($0.saved, $0.key) < ($1.saved, $1.key) }),
              let text = LineMerge.merge(base: base.text, ours: a.text, theirs: b.text) else { return nil }
        let parents = [a.key, b.key].sorted()
        let later = [a, b].max { ($0.saved, $0.key) < ($1.saved, $1.key) }!   // two elements
        return Node(key: ContentDigest.key(parents.joined(separator: "\n") + "\n\n" + text), text: text,
                    confidence: later.confidence, saved: max(a.saved, b.saved), parents: parents)
    }

    /// Brings a section's shown text up to date with its history: merges the heads that can be
    /// merged (recording the merges as this device's changes when `capture`), and shows the
    /// latest head.
    static func settle(model: String, section: String, db: Database, capture: Bool) throws {
        var nodes = try nodes(model: model, section: section, db: db)
        guard !nodes.isEmpty else { return }
        try number(model: model, section: section, nodes: nodes, db: db)
        var current = heads(nodes)
        merging: while current.count > 1 {
            for i in current.indices {
                for j in current.indices where j > i {
                    guard let merged = merge(current[i], current[j], in: nodes) else { continue }
                    if nodes[merged.key] == nil {
                        let insert = {
                            try db.execute(sql: """
                                INSERT INTO section_version (model_id, section, version, text, confidence, saved_ms, sync_key, parents)
                                VALUES (?, ?, (SELECT coalesce(max(version), 0) + 1 FROM section_version WHERE model_id = ? AND section = ?), ?, ?, ?, ?, ?)
                                """, arguments: [model, section, model, section, merged.text, merged.confidence, merged.saved,
                                                 merged.key, encodeParents(merged.parents)])
                        }
                        if capture { try SyncLedger.capturing(db, insert) } else { try insert() }
                        nodes[merged.key] = merged
                    }
                    current = heads(nodes)
                    continue merging
                }
            }
            break
        }
        guard let head = shown(current) else { return }
        try db.execute(sql: """
            INSERT INTO section_entry (model_id, section, text, confidence, updated_ms) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (model_id, section) DO UPDATE SET text = excluded.text, updated_ms = excluded.updated_ms
            """, arguments: [model, section, head.text, head.confidence, head.saved])
    }

    /// Gives the versions that arrived (numbered below zero until now) the next local numbers:
    /// a version after the versions it descends from, otherwise in the order they were saved.
    static func number(model: String, section: String, nodes: [String: Node], db: Database) throws {
        let arrived = try String.fetchAll(db, sql: """
            SELECT sync_key FROM section_version WHERE model_id = ? AND section = ? AND version < 0
            """, arguments: [model, section])
        guard !arrived.isEmpty else { return }
        var next = (try Int.fetchOne(db, sql: """
            SELECT max(version) FROM section_version WHERE model_id = ? AND section = ? AND version > 0
            """, arguments: [model, section]) ?? 0) + 1
        var waiting = Set(arrived)
        let order = { (a: String, b: String) -> Bool in (nodes[a]?.saved ?? 0, a) < (nodes[b]?.saved ?? 0, b) }
        while !waiting.isEmpty {
            let ready = waiting.filter { key in !(nodes[key]?.parents ?? []).contains(where: waiting.contains) }
            for key in (ready.isEmpty ? waiting : ready).sorted(by: order) {
                try db.execute(sql: "UPDATE section_version SET version = ? WHERE sync_key = ?", arguments: [next, key])
                next += 1
                waiting.remove(key)
            }
        }
    }

    /// What follows other devices' changes: merged sections, names made unique, each touched
    /// model's last change, and a current model that still exists.
    static func afterApply(_ db: Database, touched: [String: Set<String>]) throws {
        var sections: Set<[String]> = []
        var models = touched["model"] ?? []
        for key in touched["version"] ?? [] {
            if let row = try Row.fetchOne(db, sql: "SELECT model_id, section FROM section_version WHERE sync_key = ?", arguments: [key]) {
                sections.insert([row["model_id"], row["section"]])
            }
        }
        for key in touched["section"] ?? [] {
            if let row = try Row.fetchOne(db, sql: "SELECT model_id, section FROM section_entry WHERE sync_key = ?", arguments: [key]) {
                sections.insert([row["model_id"], row["section"]])
            }
        }
        for pair in sections.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            try settle(model: pair[0], section: pair[1], db: db, capture: true)
            models.insert(pair[0])
        }
        for model in models {
            try db.execute(sql: """
                UPDATE model SET updated_ms = max(created_ms, coalesce((SELECT max(saved_ms) FROM section_version WHERE model_id = model.id), 0))
                WHERE id = ?
                """, arguments: [model])
        }
        if !models.isEmpty { try showUniqueNames(db) }
        // A device with no current model (a new one) takes the first that arrives; one whose
        // current model was deleted elsewhere takes the first remaining, as a delete here does.
        let current = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'current'")
        if try current == nil || Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM model WHERE id = ?)", arguments: [current]) != true {
            if let next = try String.fetchOne(db, sql: "SELECT id FROM model ORDER BY name COLLATE NOCASE, id LIMIT 1") {
                try db.execute(sql: """
                    INSERT INTO setting (key, value) VALUES ('current', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """, arguments: [next])
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE key = 'current'")
            }
        }
    }

    /// The names shown, from the synced names: a name several models share goes to the one with
    /// the smallest id; the others get the first free " (n)" suffix, by id. The same on every
    /// device that has the same models.
    static func showUniqueNames(_ db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, name, synced_name FROM model ORDER BY id")
        var taken = Set(rows.map { ($0["synced_name"] as String? ?? $0["name"] as String).lowercased() })
        var owner: [String: String] = [:]
        var wanted: [(id: String, name: String, shown: String)] = []
        for row in rows {
            let id: String = row["id"], shown: String = row["name"]
            let synced = row["synced_name"] as String? ?? shown
            let folded = synced.lowercased()
            if owner[folded] == nil {
                owner[folded] = id
                wanted.append((id, synced, shown))
                continue
            }
            var number = 2
            while taken.contains("\(synced) (\(number))".lowercased()) { number += 1 }
            let name = "\(synced) (\(number))"
            taken.insert(name.lowercased())
            wanted.append((id, name, shown))
        }
        let changes = wanted.filter { $0.name != $0.shown }
        guard !changes.isEmpty else { return }
        // Two steps, so that no name is held by two rows in between.
        for change in changes {
            try db.execute(sql: "UPDATE model SET name = ? WHERE id = ?", arguments: ["\u{1}" + change.id, change.id])
        }
        for change in changes {
            try db.execute(sql: "UPDATE model SET name = ? WHERE id = ?", arguments: [change.name, change.id])
        }
    }
}

extension BusinessModelStore: SyncableStore {
    /// The store's log on a sync server.
    public static let syncLog = "bmm"

    /// What `SuiteSync`'s `SyncClient` syncs this store through.
    public var syncHandle: SyncHandle { SyncHandle(log: Self.syncLog, store: store) }
}
