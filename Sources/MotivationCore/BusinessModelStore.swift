import Foundation
import GRDB
import SuiteStorage

/// The business-model store: several models, one of them current, with the history of every
/// section, in one SQLite file.
///
/// Every change is one durable transaction. The store is safe to use from several processes at
/// once.
public final class BusinessModelStore: Sendable {
    /// The conventional file name inside the Suite store folder.
    public static let fileName = "bmm.sqlite"
    /// The largest section text accepted, in UTF-8 bytes.
    public static let maximumTextLength = 1_000_000
    /// The longest business name accepted, in characters.
    public static let maximumNameLength = 200

    let store: Store<MotivationError>
    private let now: @Sendable () -> Date

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
    /// - Throws: ``MotivationError`` when the file cannot be used (damaged, newer, busy, …).
    public init(url: URL, readOnly: Bool = false, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init) throws(MotivationError) {
        store = try Store.open(
            at: url, migrator: Self.migrator,
            configuration: StoreConfiguration(applicationID: Self.applicationID, busyTimeout: busyTimeout, sync: Self.syncSchema, clock: now), readOnly: readOnly)  // "SBMM"
        self.now = now
    }

    private init(store: Store<MotivationError>, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// A new, empty store in memory, with the same migrations as a store file: for previews and
    /// tests. Nothing is written to disk, and no other process or store value can see it.
    ///
    /// - Parameter now: the clock used for timestamps.
    /// - Throws: ``MotivationError/store(_:)`` when SQLite cannot make the database.
    public static func inMemory(now: @escaping @Sendable () -> Date = Date.init) throws(MotivationError) -> BusinessModelStore {
        BusinessModelStore(
            store: try Store.inMemory(migrator: migrator, configuration: StoreConfiguration(applicationID: applicationID, sync: syncSchema, clock: now)), now: now)
    }

    /// Opens the store at `url` as ``init(url:readOnly:busyTimeout:now:)`` does, on a background
    /// thread: creating, checking or migrating the file (and waiting up to `busyTimeout` for
    /// another process) never blocks the caller's actor.
    public static func open(
        at url: URL, readOnly: Bool = false, busyTimeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = Date.init
    ) async throws(MotivationError) -> BusinessModelStore {
        try await Background.run { () throws(MotivationError) in
            try BusinessModelStore(url: url, readOnly: readOnly, busyTimeout: busyTimeout, now: now)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerStoreMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE model (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    created_ms INTEGER NOT NULL,
                    updated_ms INTEGER NOT NULL
                );
                CREATE TABLE section_entry (
                    model_id TEXT NOT NULL REFERENCES model(id) ON DELETE CASCADE,
                    section TEXT NOT NULL,
                    text TEXT NOT NULL,
                    confidence TEXT,
                    updated_ms INTEGER NOT NULL,
                    PRIMARY KEY (model_id, section)
                ) WITHOUT ROWID;
                CREATE TABLE section_version (
                    model_id TEXT NOT NULL REFERENCES model(id) ON DELETE CASCADE,
                    section TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    text TEXT NOT NULL,
                    confidence TEXT,
                    saved_ms INTEGER NOT NULL,
                    PRIMARY KEY (model_id, section, version)
                ) WITHOUT ROWID;
                CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                """)
        }
        migrator.registerStoreMigration("v2-sync", migrate: migrateToSync)
        migrator.registerStoreMigration("v3-sync-set-aside", migrate: SyncLedger.addSetAsideLog)
        return migrator
    }

    // MARK: - Models

    /// Creates a model named `name`.
    ///
    /// - Parameters:
    ///   - name: the business name.
    ///   - makeCurrent: make the new model current; when false it becomes current only if no
    ///     model is.
    /// - Returns: the new model.
    /// - Throws: ``MotivationError/invalidText(_:)`` (``FieldName/businessName``),
    ///   ``MotivationError/duplicateName(_:)``.
    @discardableResult
    public func create(name: String, makeCurrent: Bool = true) throws(MotivationError) -> BusinessModel {
        let name = try Self.validated(name: name)
        let stamp = Millis(now())
        let model = BusinessModel(name: name, createdAt: stamp.date, updatedAt: stamp.date)
        try write { db in
            try Self.insert(model, db: db)
            let hasCurrent = try Self.currentID(db) != nil
            if makeCurrent || !hasCurrent { try Self.setCurrentID(model.id, db: db) }
        }
        return model
    }

    /// All models, by name.
    public func models() throws(MotivationError) -> [BusinessModelSummary] {
        try read { db in
            let current = try Self.currentID(db)
            // Answered as SectionEntry.isAnswered says. A text that starts with a printable ASCII
            // character other than space is answered: only the others are read and decided there.
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT model_id, CASE WHEN unicode(text) BETWEEN 33 AND 126 THEN NULL ELSE text END AS text FROM section_entry
                """) {
                if let text = row["text"] as String?, !SectionEntry.isAnswered(text) { continue }
                counts[row["model_id"], default: 0] += 1
            }
            return try Row.fetchAll(db, sql: "SELECT id, name, updated_ms FROM model ORDER BY name COLLATE NOCASE")
                .compactMap { row -> BusinessModelSummary? in
                    guard let id = UUID(uuidString: row["id"]) else { return nil }
                    let answered = counts[row["id"]] ?? 0
                    return BusinessModelSummary(
                        id: id, name: row["name"], percent: answered * 100 / SectionCatalogue.sections.count,
                        updatedAt: Millis(row["updated_ms"] as Int64).date, isCurrent: id == current)
                }
        }
    }

    /// The model named `name` (case-insensitive, white space at the ends ignored).
    ///
    /// - Throws: ``MotivationError/noModelNamed(_:)``.
    public func model(named name: String) throws(MotivationError) -> BusinessModel {
        try read { db in try Self.load(named: name, db: db) }
    }

    /// The model with that id.
    ///
    /// - Throws: ``MotivationError/modelNotFound(_:)``.
    public func model(_ id: BusinessModel.ID) throws(MotivationError) -> BusinessModel {
        try read { db in try Self.load(id: id, db: db) }
    }

    /// The current model.
    ///
    /// - Throws: ``MotivationError/noCurrentModel`` when there is none.
    public func current() throws(MotivationError) -> BusinessModel {
        try read { db in
            guard let id = try Self.currentID(db) else { throw MotivationError.noCurrentModel }
            return try Self.load(id: id, db: db)
        }
    }

    /// The current model, or nil when there is none (what `current()` returns, for a screen
    /// that shows an empty state rather than an error).
    public func currentIfAny() throws(MotivationError) -> BusinessModel? {
        try read { db in try Self.currentID(db).map { id in try Self.load(id: id, db: db) } }
    }

    /// Makes the model named `name` current.
    ///
    /// - Throws: ``MotivationError/noModelNamed(_:)``.
    @discardableResult
    public func use(named name: String) throws(MotivationError) -> BusinessModel {
        try write { db in
            let model = try Self.load(named: name, db: db)
            try Self.setCurrentID(model.id, db: db)
            return model
        }
    }

    /// Makes the model with that id current.
    ///
    /// - Throws: ``MotivationError/modelNotFound(_:)``.
    @discardableResult
    public func use(_ id: BusinessModel.ID) throws(MotivationError) -> BusinessModel {
        try write { db in
            let model = try Self.load(id: id, db: db)
            try Self.setCurrentID(model.id, db: db)
            return model
        }
    }

    /// Renames a model.
    ///
    /// - Throws: ``MotivationError/invalidText(_:)`` (``FieldName/businessName``),
    ///   ``MotivationError/duplicateName(_:)``, ``MotivationError/modelNotFound(_:)``.
    @discardableResult
    public func rename(_ id: BusinessModel.ID, to newName: String) throws(MotivationError) -> BusinessModel {
        let newName = try Self.validated(name: newName)
        return try write { db in
            var model = try Self.load(id: id, db: db)
            if model.name != newName, let other = try String.fetchOne(
                db, sql: "SELECT id FROM model WHERE name = ? COLLATE NOCASE", arguments: [newName]),
                other != id.uuidString {
                throw MotivationError.duplicateName(newName)
            }
            let stamp = Millis(now())
            try db.execute(sql: "UPDATE model SET name = ?, updated_ms = ? WHERE id = ?",
                           arguments: [newName, stamp.value, id.uuidString])
            model.name = newName
            model.updatedAt = stamp.date
            return model
        }
    }

    /// Copies a model, with its sections and their history, under a new name; the copy becomes
    /// current.
    @discardableResult
    public func duplicate(_ id: BusinessModel.ID, as newName: String) throws(MotivationError) -> BusinessModel {
        let newName = try Self.validated(name: newName)
        return try write { db in
            let source = try Self.load(id: id, db: db)
            let stamp = Millis(now())
            var copy = source
            copy.id = UUID()
            copy.name = newName
            copy.createdAt = stamp.date
            copy.updatedAt = stamp.date
            try Self.insert(copy, db: db)
            // The copy's history is the same graph under new keys: it is another model's now.
            let rows = try Row.fetchAll(db, sql: """
                SELECT section, version, text, confidence, saved_ms, sync_key, parents FROM section_version WHERE model_id = ?
                """, arguments: [id.uuidString])
            var keys: [String: String] = [:]
            for row in rows { keys[row["sync_key"]] = UUID().uuidString.lowercased() }
            for row in rows {
                let parents = Self.decodeParents(row["parents"]).compactMap { keys[$0] }
                try db.execute(sql: """
                    INSERT INTO section_version (model_id, section, version, text, confidence, saved_ms, sync_key, parents)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [copy.id.uuidString, row["section"], row["version"], row["text"], row["confidence"], row["saved_ms"],
                                     keys[row["sync_key"]], Self.encodeParents(parents)])
            }
            try Self.setCurrentID(copy.id, db: db)
            return copy
        }
    }

    /// Deletes the model named `name` and its history. When it was current, the first remaining
    /// model by name becomes current.
    ///
    /// - Throws: ``MotivationError/noModelNamed(_:)``.
    public func delete(named name: String) throws(MotivationError) {
        try write { db in try Self.delete(Self.load(named: name, db: db).id, db: db) }
    }

    /// Deletes the model with that id and its history. When it was current, the first remaining
    /// model by name becomes current.
    ///
    /// - Throws: ``MotivationError/modelNotFound(_:)``.
    public func delete(_ id: BusinessModel.ID) throws(MotivationError) {
        try write { db in try Self.delete(Self.load(id: id, db: db).id, db: db) }
    }

    private static func delete(_ id: BusinessModel.ID, db: Database) throws {
        try db.execute(sql: "DELETE FROM model WHERE id = ?", arguments: [id.uuidString])
        if try currentID(db) == id {
            if let next = try String.fetchOne(db, sql: "SELECT id FROM model ORDER BY name COLLATE NOCASE LIMIT 1"),
               let nextID = UUID(uuidString: next) {
                try setCurrentID(nextID, db: db)
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE key = 'current'")
            }
        }
    }

    // MARK: - Sections

    /// Saves the text (and optionally the confidence) of a section; the save is kept in history.
    ///
    /// - Parameters:
    ///   - text: the new text; empty clears the section.
    ///   - confidence: the new confidence, or nil to keep the current one.
    ///   - section: the section.
    ///   - id: the model.
    /// - Returns: the model after the change.
    /// - Throws: ``MotivationError/textTooLong(length:limit:)``, ``MotivationError/invalidText(_:)``
    ///   (``FieldName/sectionText``), ``MotivationError/modelNotFound(_:)``.
    @discardableResult
    public func save(
        text: String, confidence: Confidence? = nil, section: SectionID, in id: BusinessModel.ID
    ) throws(MotivationError) -> BusinessModel {
        let text = try Self.validated(text: text)
        return try write { db in
            var model = try Self.load(id: id, db: db)
            let entry = SectionEntry(
                text: text, confidence: confidence ?? model.entries[section]?.confidence, updatedAt: Millis(now()).date)
            try Self.record(entry, section: section, model: &model, db: db)
            return model
        }
    }

    /// Sets only the confidence of a section, keeping its text.
    @discardableResult
    public func setConfidence(
        _ confidence: Confidence?, section: SectionID, in id: BusinessModel.ID
    ) throws(MotivationError) -> BusinessModel {
        try write { db in
            var model = try Self.load(id: id, db: db)
            let entry = SectionEntry(text: model.text(of: section), confidence: confidence, updatedAt: Millis(now()).date)
            try Self.record(entry, section: section, model: &model, db: db)
            return model
        }
    }

    /// Every saved version of a section, oldest first; the last one is the current text.
    public func history(of section: SectionID, in id: BusinessModel.ID) throws(MotivationError) -> [SectionVersion] {
        try read { db in
            _ = try Self.load(id: id, db: db)
            return try Self.versions(of: section, model: id, db: db)
        }
    }

    /// Makes version `version` of a section's history its current text (kept as a new version).
    ///
    /// - Throws: ``MotivationError/versionNotFound(section:version:)``, ``MotivationError/modelNotFound(_:)``.
    @discardableResult
    public func restore(section: SectionID, version: Int, in id: BusinessModel.ID) throws(MotivationError) -> BusinessModel {
        try write { db in
            var model = try Self.load(id: id, db: db)
            guard let old = try Self.versions(of: section, model: id, db: db).first(where: { $0.version == version }) else {
                throw MotivationError.versionNotFound(section: section, version: version)
            }
            let entry = SectionEntry(text: old.text, confidence: old.confidence, updatedAt: Millis(now()).date)
            try Self.record(entry, section: section, model: &model, db: db)
            return model
        }
    }

    // MARK: - Documents

    /// The model and the history of its sections as an interchange document.
    public func document(for id: BusinessModel.ID) throws(MotivationError) -> BusinessModelDocument {
        try read { db in
            let model = try Self.load(id: id, db: db)
            var history: [SectionID: [SectionVersion]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT section, version, text, confidence, saved_ms FROM section_version
                WHERE model_id = ? ORDER BY section, version
                """, arguments: [id.uuidString]) {
                guard let section = SectionID(rawValue: row["section"]) else { continue }
                history[section, default: []].append(Self.version(row))
            }
            return BusinessModelDocument(model: model, history: history)
        }
    }

    /// Imports a document as a new model (which becomes current).
    ///
    /// - Parameters:
    ///   - document: the document.
    ///   - newName: a name to use instead of the document's; the copy then gets a new id.
    /// - Throws: ``MotivationError/duplicateName(_:)`` when the name (or id) exists.
    @discardableResult
    public func importDocument(_ document: BusinessModelDocument, as newName: String? = nil) throws(MotivationError) -> BusinessModel {
        var model = document.model
        if let newName {
            model.name = try Self.validated(name: newName)
            model.id = UUID()
        } else {
            model.name = try Self.validated(name: model.name)
        }
        func checked(_ text: String, _ section: SectionID, version: Int?) throws(MotivationError) -> String {
            do {
                return try Self.validated(text: text)
            } catch {
                let place = version.map { "\(section.title), version \($0)" } ?? section.title
                let reason: String
                switch error {
                case .invalidText(let invalid): reason = "invalid section text: \(invalid.problem.describe("text"))"
                default: reason = error.description
                }
                throw .malformedDocument(reason: "\(place): \(reason)")
            }
        }
        for (section, entry) in model.entries {
            model.entries[section]?.text = try checked(entry.text, section, version: nil)
        }
        var history: [SectionID: [SectionVersion]] = [:]
        for (section, versions) in document.history {
            var normalised = versions
            for index in normalised.indices {
                normalised[index].text = try checked(normalised[index].text, section, version: normalised[index].version)
            }
            // A history that contradicts itself would show one text and restore another.
            let numbers = normalised.map(\.version)
            guard numbers == Array(1...max(1, numbers.count)) || numbers.isEmpty else {
                throw .malformedDocument(reason: "\(section.title): versions must be numbered 1 to \(numbers.count) in order")
            }
            if let last = normalised.last, let current = model.entries[section], last.text != current.text || last.confidence != current.confidence {
                throw .malformedDocument(reason: "\(section.title): the text differs from its last saved version (\(last.version))")
            }
            history[section] = normalised
        }
        let imported = model, importedHistory = history
        return try write { db in
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM model WHERE name = ? COLLATE NOCASE)", arguments: [imported.name]) == true {
                throw MotivationError.duplicateName(imported.name)
            }
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM model WHERE id = ?)", arguments: [imported.id.uuidString]) == true {
                throw MotivationError.duplicateName(imported.name)
            }
            try Self.insert(imported, db: db)
            var history = importedHistory
            for (section, entry) in imported.entries where (history[section] ?? []).isEmpty {
                // Every shown text is a version, so that another device can show it too.
                history[section] = [SectionVersion(version: 1, text: entry.text, confidence: entry.confidence, savedAt: entry.updatedAt)]
            }
            for (section, versions) in history {
                var parent: String?
                for version in versions {
                    let key = UUID().uuidString.lowercased()
                    try db.execute(sql: """
                        INSERT INTO section_version (model_id, section, version, text, confidence, saved_ms, sync_key, parents)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [imported.id.uuidString, section.rawValue, version.version, version.text,
                                         version.confidence?.rawValue, Millis(version.savedAt).value, key, Self.encodeParents(parent.map { [$0] } ?? [])])
                    parent = key
                }
            }
            try Self.setCurrentID(imported.id, db: db)
            return imported
        }
    }

    // MARK: - Validation

    /// Checks a business name with the one text rule for one-line names and returns it trimmed.
    ///
    /// - Throws: ``MotivationError/invalidText(_:)`` with ``FieldName/businessName``.
    public static func validated(name: String) throws(MotivationError) -> String {
        try TextRule.check(name, .line(limit: maximumNameLength)).get(.businessName, as: MotivationError.invalidText)
    }

    /// Checks a section text with the one text rule for multi-line text: at most
    /// ``maximumTextLength`` UTF-8 bytes, line breaks as LF (CRLF and a lone CR become LF), no
    /// control characters but tab. Returns it normalised and trimmed; empty text is allowed (it
    /// clears the section).
    ///
    /// - Throws: ``MotivationError/textTooLong(length:limit:)``, ``MotivationError/invalidText(_:)``
    ///   with ``FieldName/sectionText``.
    public static func validated(text: String) throws(MotivationError) -> String {
        switch TextRule.check(text, .text(limit: maximumTextLength), allowEmpty: true) {
        case .success(let checked): return checked
        case .failure(.tooLong(let length, let limit, _)): throw .textTooLong(length: length, limit: limit)
        case .failure(let problem): throw .invalidText(InvalidText(field: .sectionText, problem: problem))
        }
    }

    /// Checks a section text as ``validated(text:)`` does.
    public static func validate(text: String) throws(MotivationError) {
        _ = try validated(text: text)
    }

    // MARK: - Plumbing

    func read<T>(_ body: (Database) throws -> T) throws(MotivationError) -> T { try store.read(body) }

    func write<T>(_ body: (Database) throws -> T) throws(MotivationError) -> T { try store.write(body) }

    private static func insert(_ model: BusinessModel, db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM model WHERE name = ? COLLATE NOCASE)", arguments: [model.name]) == true {
            throw MotivationError.duplicateName(model.name)
        }
        try db.execute(sql: "INSERT INTO model (id, name, created_ms, updated_ms) VALUES (?, ?, ?, ?)",
                       arguments: [model.id.uuidString, model.name, Millis(model.createdAt).value, Millis(model.updatedAt).value])
        for (section, entry) in model.entries {
            try db.execute(sql: """
                INSERT INTO section_entry (model_id, section, text, confidence, updated_ms) VALUES (?, ?, ?, ?, ?)
                """, arguments: [model.id.uuidString, section.rawValue, entry.text, entry.confidence?.rawValue,
                                 Millis(entry.updatedAt).value])
        }
    }

    private static func record(_ entry: SectionEntry, section: SectionID, model: inout BusinessModel, db: Database) throws {
        let stamp = Millis(entry.updatedAt)
        try db.execute(sql: """
            INSERT INTO section_entry (model_id, section, text, confidence, updated_ms) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (model_id, section) DO UPDATE SET
                text = excluded.text, confidence = excluded.confidence, updated_ms = excluded.updated_ms
            """, arguments: [model.id.uuidString, section.rawValue, entry.text, entry.confidence?.rawValue, stamp.value])
        let next = (try Int.fetchOne(db, sql: """
            SELECT max(version) FROM section_version WHERE model_id = ? AND section = ?
            """, arguments: [model.id.uuidString, section.rawValue]) ?? 0) + 1
        // A save descends from every head the section has: it settles versions that disagreed.
        let parents = heads(try nodes(model: model.id.uuidString, section: section.rawValue, db: db)).map(\.key)
        try db.execute(sql: """
            INSERT INTO section_version (model_id, section, version, text, confidence, saved_ms, sync_key, parents) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [model.id.uuidString, section.rawValue, next, entry.text, entry.confidence?.rawValue, stamp.value,
                             UUID().uuidString.lowercased(), encodeParents(parents)])
        try db.execute(sql: "UPDATE model SET updated_ms = ? WHERE id = ?", arguments: [stamp.value, model.id.uuidString])
        model.entries[section] = SectionEntry(text: entry.text, confidence: entry.confidence, updatedAt: stamp.date)
        model.updatedAt = stamp.date
    }

    private static func versions(of section: SectionID, model id: BusinessModel.ID, db: Database) throws -> [SectionVersion] {
        try Row.fetchAll(db, sql: """
            SELECT version, text, confidence, saved_ms FROM section_version
            WHERE model_id = ? AND section = ? ORDER BY version
            """, arguments: [id.uuidString, section.rawValue]).map(version)
    }

    static func version(_ row: Row) -> SectionVersion {
        SectionVersion(
            version: row["version"], text: row["text"],
            confidence: (row["confidence"] as String?).flatMap(Confidence.init(rawValue:)),
            savedAt: Millis(row["saved_ms"] as Int64).date)
    }

    private static func currentID(_ db: Database) throws -> BusinessModel.ID? {
        try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'current'").flatMap(UUID.init(uuidString:))
    }

    private static func setCurrentID(_ id: BusinessModel.ID, db: Database) throws {
        try db.execute(sql: """
            INSERT INTO setting (key, value) VALUES ('current', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, arguments: [id.uuidString])
    }

    private static func load(named name: String, db: Database) throws -> BusinessModel {
        let key = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let idText = try String.fetchOne(db, sql: "SELECT id FROM model WHERE name = ? COLLATE NOCASE", arguments: [key]),
              let id = UUID(uuidString: idText) else {
            throw MotivationError.noModelNamed(name)
        }
        return try load(id: id, db: db)
    }

    static func load(id: BusinessModel.ID, db: Database) throws -> BusinessModel {
        guard let row = try Row.fetchOne(db, sql: "SELECT name, created_ms, updated_ms FROM model WHERE id = ?",
                                         arguments: [id.uuidString]) else {
            throw MotivationError.modelNotFound(id)
        }
        var entries: [SectionID: SectionEntry] = [:]
        for entry in try Row.fetchAll(db, sql: """
            SELECT section, text, confidence, updated_ms FROM section_entry WHERE model_id = ?
            """, arguments: [id.uuidString]) {
            guard let section = SectionID(rawValue: entry["section"]) else { continue }
            entries[section] = SectionEntry(
                text: entry["text"], confidence: (entry["confidence"] as String?).flatMap(Confidence.init(rawValue:)),
                updatedAt: Millis(entry["updated_ms"] as Int64).date)
        }
        return BusinessModel(
            id: id, name: row["name"], entries: entries,
            createdAt: Millis(row["created_ms"] as Int64).date, updatedAt: Millis(row["updated_ms"] as Int64).date)
    }
}
