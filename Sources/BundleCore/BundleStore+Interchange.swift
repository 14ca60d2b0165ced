import Foundation
import GRDB
import SuiteStorage

extension BundleStore {
    /// Every todo (and, in Suite JSON, every event and bundle) in `format`.
    ///
    /// - Parameters:
    ///   - format: the file format.
    ///   - timeZone: the user's time zone, for whole-day dates.
    /// - Returns: the file's bytes.
    public func export(_ format: InterchangeFormat, timeZone: TimeZone) throws(BundleError) -> Data {
        let stamp = now()
        return try read { db in
            var data = Data()
            try Self.writeExport(format, timeZone: timeZone, stamp: stamp, db: db) { data += $0 }
            return data
        }
    }

    /// ``export(_:timeZone:)`` handed to `write` piece by piece, as the todos are read from one
    /// read transaction (the store as of one moment): any number of todos takes little memory
    /// (Suite JSON's events and bundles are read first, whole). The same bytes.
    ///
    /// - Throws: ``BundleError`` for the store, or what `write` throws (which stops the export).
    public func export(_ format: InterchangeFormat, timeZone: TimeZone, to write: (Data) throws -> Void) throws {
        struct Stopped: Error {}
        var failure: (any Error)?
        let stamp = now()
        do {
            try read { db in
                try Self.writeExport(format, timeZone: timeZone, stamp: stamp, db: db) { piece in
                    do { try write(piece) } catch {
                        failure = error
                        throw Stopped()
                    }
                }
            }
        } catch {
            throw failure ?? error
        }
    }

    /// Writes the export of `format` to `write`: the start of the document, each todo as its row
    /// is read (by id), then the end.
    static func writeExport(
        _ format: InterchangeFormat, timeZone: TimeZone, stamp: Date, db: Database, _ write: (Data) throws -> Void
    ) throws {
        switch format {
        case .taskwarrior: try write(Data(TaskwarriorFormat.arrayStart.utf8))
        case .ics: try write(Data(ICalendarFormat.start.utf8))
        case .todotxt: break
        case .json:
            let (events, bundles) = try eventsAndBundles(db)
            try write(SuiteJSONFormat.start(events: events, bundles: bundles))
        }
        var first = true
        try forEachInterchangeTodo(db) { todo in
            switch format {
            case .taskwarrior: try write(TaskwarriorFormat.item(todo, first: first, timeZone: timeZone))
            case .ics: try write(ICalendarFormat.item(todo, stamp: stamp))
            case .todotxt: try write(TodoTxtFormat.item(todo, timeZone: timeZone))
            case .json: try write(SuiteJSONFormat.item(todo, first: first))
            }
            first = false
        }
        switch format {
        case .taskwarrior: try write(Data(TaskwarriorFormat.arrayEnd.utf8))
        case .ics: try write(Data(ICalendarFormat.end.utf8))
        case .todotxt: break
        case .json: try write(Data(SuiteJSONFormat.end.utf8))
        }
    }

    /// Imports a file: all of it or, when anything in it is malformed, none of it. Todos are
    /// matched by id (upserted); events by name (created when new); bundles by id.
    ///
    /// What the file holds that Suite has no place for (an iCalendar RRULE or VALARM, say) is
    /// not imported and listed in ``ImportSummary/dropped``.
    ///
    /// - Throws: ``BundleError/malformedImport(format:line:reason:)`` naming the line where it can.
    @discardableResult
    public func importData(_ data: Data, format: InterchangeFormat, timeZone: TimeZone) throws(BundleError) -> ImportSummary {
        var document: InterchangeDocument
        switch format {
        case .taskwarrior:
            if TaskwarriorFormat.isArray(data.prefix(4096)) {
                var reader = TaskwarriorFormat.ArrayReader(JSONArrayStream(data: data, arrayKeys: []))
                return try importTodos(format: .taskwarrior) { () throws(BundleError) in try reader.next() }
            }
            if TaskwarriorFormat.startsWithObjectLine(LineStream(data: data)) {
                var reader = TaskwarriorFormat.LinesReader(LineStream(data: data))
                return try importTodos(format: .taskwarrior) { () throws(BundleError) in try reader.next() }
            }
            document = InterchangeDocument(todos: try TaskwarriorFormat.decode(data))
        case .ics:
            return try importCalendar(LineStream(data: data), timeZone: timeZone)
        case .todotxt:
            return try importTodoTxt(LineStream(data: data), timeZone: timeZone)
        case .json:
            if let reader = try SuiteJSONFormat.StreamReader(JSONArrayStream(data: data, arrayKeys: ["todos"], memberLimit: Self.suiteJSONMemberLimit)) {
                return try importSuiteJSON(reader)
            }
            document = try SuiteJSONFormat.decode(data)
        }
        document = try Self.validated(document, format: format)
        try Self.checkConsistency(document, format: format)
        return try store.bulkWrite { db in try Self.apply(document, db: db, stamp: stamp) }
    }

    // MARK: - Export

    /// Every todo as an interchange record, by id, handed to `body` as its row is read; its links
    /// and files come from a second cursor over the attachments in the same order.
    static func forEachInterchangeTodo(_ db: Database, _ body: (InterchangeTodo) throws -> Void) throws {
        var bundleUUIDs: [TodoBundle.ID: UUID] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, uuid FROM bundle") {
            bundleUUIDs[row["id"]] = UUID(uuidString: row["uuid"])
        }
        let attachments = try Row.fetchCursor(db, sql: "SELECT * FROM todo_attachment ORDER BY todo_id, id")
        var nextAttachment = try attachments.next().map(attachment(from:))
        let rows = try Row.fetchCursor(db, sql: todoColumns + " ORDER BY t.id")
        while let row = try rows.next() {
            let todo = todo(from: row)
            var uris: [String] = []
            while let attachment = nextAttachment, attachment.todoID <= todo.id {
                if attachment.todoID == todo.id, let uri = exportedURI(attachment) { uris.append(uri) }
                nextAttachment = try attachments.next().map(Self.attachment(from:))
            }
            try body(InterchangeTodo(
                uuid: todo.uuid, text: todo.text, eventName: todo.eventName, preposition: todo.preposition,
                deadline: todo.deadline, status: todo.status, bundleUUID: todo.bundleID.flatMap { bundleUUIDs[$0] },
                notes: todo.notes, createdAt: todo.createdAt, modifiedAt: todo.modifiedAt, completedAt: todo.completedAt,
                foreignFields: todo.foreignFields, attachments: uris))
        }
    }

    /// The events (archived ones too) and bundles of a Suite JSON export.
    static func eventsAndBundles(_ db: Database) throws -> (events: [InterchangeEvent], bundles: [InterchangeBundle]) {
        let events = try loadEvents(db, includeArchived: true).map {
            InterchangeEvent(name: $0.name, aliases: $0.aliases, archived: $0.isArchived, createdAt: $0.createdAt)
        }
        let bundles = try TodoBundle.ID.fetchAll(db, sql: "SELECT id FROM bundle ORDER BY id").map { id in
            let bundle = try loadBundle(id, db: db)
            return InterchangeBundle(
                uuid: bundle.uuid, title: bundle.title, icon: bundle.icon, event: bundle.eventName, direction: bundle.direction,
                status: bundle.status, createdAt: bundle.createdAt, finishedAt: bundle.finishedAt,
                items: bundle.items.map { .init(todo: $0.todo.uuid, outcome: $0.outcome) })
        }
        return (events, bundles)
    }

    // MARK: - Import

    /// The document with every field checked and normalised by the same rules as the store's own
    /// operations; the first refused field names its record and the field.
    static func validated(_ document: InterchangeDocument, format: InterchangeFormat) throws(BundleError) -> InterchangeDocument {
        let name = format.displayName
        var document = document
        document.events = try validated(events: document.events, format: format)
        var seen: Set<UUID> = []
        for index in document.todos.indices {
            let todo = document.todos[index]
            guard seen.insert(todo.uuid).inserted else { throw twice(todo, number: index + 1, format: name) }
            document.todos[index] = try validated(todo, number: index + 1, format: name)
        }
        let ids = Set(document.todos.map(\.uuid))
        for bundle in document.bundles {
            for item in bundle.items where !ids.contains(item.todo) { throw missing(item.todo, from: bundle, format: format) }
        }
        document.bundles = try validated(bundles: document.bundles, format: format)
        return document
    }

    /// A file's events checked and normalised (see ``validated(_:format:)``).
    static func validated(events: [InterchangeEvent], format: InterchangeFormat) throws(BundleError) -> [InterchangeEvent] {
        var events = events
        for index in events.indices {
            let event = events[index]
            do {
                events[index].name = try validated(name: event.name, what: .eventPhrase)
                var aliases: [String] = []
                for alias in event.aliases { aliases.append(try validated(name: alias, what: .alias)) }
                events[index].aliases = aliases
            } catch {
                throw .malformedImport(format: format.displayName, line: nil, reason: "event \(index + 1): \(error.description)")
            }
        }
        return events
    }

    /// A file's bundles checked and normalised (see ``validated(_:format:)``), but for whether
    /// their todos are in the file.
    static func validated(bundles: [InterchangeBundle], format: InterchangeFormat) throws(BundleError) -> [InterchangeBundle] {
        var bundles = bundles
        for index in bundles.indices {
            let bundle = bundles[index]
            do {
                bundles[index].title = try validated(name: bundle.title, what: .bundleTitle)
                bundles[index].icon = try validated(icon: bundle.icon)
                bundles[index].event = try validated(name: bundle.event, what: .eventPhrase)
            } catch {
                throw .malformedImport(format: format.displayName, line: nil, reason: "bundle \(bundle.uuid.uuidString.lowercased()): \(error.description)")
            }
        }
        return bundles
    }

    /// The refusal of a file whose `bundle` names a todo the file does not hold.
    static func missing(_ todo: UUID, from bundle: InterchangeBundle, format: InterchangeFormat) -> BundleError {
        .malformedImport(format: format.displayName, line: nil,
                         reason: "bundle \(bundle.uuid.uuidString.lowercased()) names todo \(todo.uuidString.lowercased()), which the file does not hold")
    }

    /// The refusal of a file that holds one todo id twice (`todo` being the second).
    static func twice(_ todo: InterchangeTodo, number: Int, format name: String) -> BundleError {
        .malformedImport(format: name, line: nil, reason: "todo \(number) (\(todo.uuid.uuidString.lowercased())): the id appears twice")
    }

    /// One todo of a file checked and normalised (see ``validated(_:format:)``); the caller has
    /// made sure no todo before it has its id.
    static func validated(_ todo: InterchangeTodo, number: Int, format name: String) throws(BundleError) -> InterchangeTodo {
        func fail(_ reason: String) -> BundleError {
            .malformedImport(format: name, line: nil, reason: "todo \(number) (\(todo.uuid.uuidString.lowercased())): \(reason)")
        }
        var todo = todo
        do {
            todo.text = try validated(text: todo.text, what: .todoText)
            todo.notes = try validated(text: todo.notes, what: .note, allowEmpty: true)
            if let event = todo.eventName { todo.eventName = try validated(name: event, what: .eventPhrase) }
        } catch {
            throw fail(error.description)
        }
        if todo.status == .inBundle && todo.bundleUUID == nil { throw fail("it is in a bundle but names none") }
        return todo
    }

    /// The most a Suite JSON file's events or bundles may take (their bytes) to be read while
    /// its todos stream: they are kept in memory. Past it the file is read whole (and refused
    /// when larger than a whole read allows).
    static let suiteJSONMemberLimit = 256 << 20

    /// Imports a Suite JSON document todo by todo into one transaction: its events and bundles
    /// are checked and written first, each todo as it is read (those naming a bundle the file
    /// does not describe are kept aside, as ``importTodos(format:_:)`` does), then the bundles'
    /// items. Every check of ``importData(_:format:timeZone:)`` runs; a problem anywhere rolls
    /// everything back.
    private func importSuiteJSON(_ reader: SuiteJSONFormat.StreamReader) throws(BundleError) -> ImportSummary {
        var reader = reader
        let format = InterchangeFormat.json, name = format.displayName
        let events = try Self.validated(events: reader.events, format: format)
        let bundles = try Self.validated(bundles: reader.bundles, format: format)
        let consistency = try ImportConsistency(events: events, bundles: bundles, format: format)
        let stamp = stamp
        return try store.bulkWrite(scratch: true) { db in
            // The ids seen so far are kept in the scratch database, on disk.
            try db.execute(sql: "CREATE TABLE scratch.import_seen (uuid BLOB PRIMARY KEY NOT NULL) WITHOUT ROWID")
            let remember = try db.makeStatement(sql: "INSERT OR IGNORE INTO scratch.import_seen (uuid) VALUES (?)")
            var applier = Applier(db: db, stamp: stamp, described: Set(bundles.map(\.uuid)))
            try applier.events(events)
            try applier.bundles(bundles)
            var aside: [InterchangeTodo] = []
            var number = 0
            while let todo = try reader.next() {
                number += 1
                try remember.execute(arguments: [todo.uuid])
                if db.changesCount == 0 { throw Self.twice(todo, number: number, format: name) }
                let checked = try Self.validated(todo, number: number, format: name)
                try consistency.check(checked, number: number)
                if let bundle = checked.bundleUUID, !applier.described.contains(bundle) { aside.append(checked); continue }
                try applier.todo(checked)
            }
            try applier.referencedBundles(aside)
            for todo in aside { try applier.todo(todo) }
            let seen = try db.makeStatement(sql: "SELECT 1 FROM scratch.import_seen WHERE uuid = ?")
            for bundle in bundles {
                for item in bundle.items where try Bool.fetchOne(seen, arguments: [item.todo]) == nil {
                    throw Self.missing(item.todo, from: bundle, format: format)
                }
            }
            try applier.items(bundles)
            return applier.summary
        }
    }

    /// Imports an iCalendar document VTODO by VTODO into one transaction: memory does not grow
    /// with the file (see ``importTodos(format:_:)``).
    private func importCalendar(_ lines: LineStream, timeZone: TimeZone) throws(BundleError) -> ImportSummary {
        var reader = ICalendarFormat.TodoReader(lines, timeZone: timeZone)
        var summary = try importTodos(format: .ics) { () throws(BundleError) in try reader.next() }
        summary.dropped = reader.dropped
        return summary
    }

    /// Imports a todo.txt file line by line into one transaction: memory does not grow with the
    /// file (see ``importTodos(format:_:)``).
    private func importTodoTxt(_ lines: LineStream, timeZone: TimeZone) throws(BundleError) -> ImportSummary {
        var reader = TodoTxtFormat.Reader(lines, timeZone: timeZone, now: now())
        return try importTodos(format: .todotxt) { () throws(BundleError) in try reader.next() }
    }

    /// Imports the todos `next` reads one at a time into one transaction. Each todo is checked as
    /// ``importData(_:format:timeZone:)`` checks it; a problem anywhere (the end of the file
    /// included) rolls everything back. Todos that name a bundle are kept aside and applied
    /// together at the end, as a file's bundle is made from all of its members.
    private func importTodos(format: InterchangeFormat, _ next: () throws(BundleError) -> InterchangeTodo?) throws(BundleError) -> ImportSummary {
        let stamp = stamp
        let name = format.displayName
        return try store.bulkWrite(scratch: true) { db in
            var total = ImportSummary(created: 0, updated: 0, eventsCreated: 0, bundles: 0)
            func add(_ part: ImportSummary) {
                total.created += part.created
                total.updated += part.updated
                total.unchanged += part.unchanged
                total.eventsCreated += part.eventsCreated
                total.bundles += part.bundles
            }
            // The ids seen so far are kept in the scratch database, on disk: memory does not
            // grow with the file.
            try db.execute(sql: "CREATE TABLE scratch.import_seen (uuid BLOB PRIMARY KEY NOT NULL) WITHOUT ROWID")
            let remember = try db.makeStatement(sql: "INSERT OR IGNORE INTO scratch.import_seen (uuid) VALUES (?)")
            var bundled: [InterchangeTodo] = []
            var number = 0
            while let todo = try next() {
                number += 1
                try remember.execute(arguments: [todo.uuid])
                if db.changesCount == 0 { throw Self.twice(todo, number: number, format: name) }
                let checked = try Self.validated(todo, number: number, format: name)
                if checked.bundleUUID != nil { bundled.append(checked); continue }
                add(try Self.apply(InterchangeDocument(todos: [checked]), db: db, stamp: stamp))
            }
            if !bundled.isEmpty { add(try Self.apply(InterchangeDocument(todos: bundled), db: db, stamp: stamp)) }
            return total
        }
    }

    /// Imports a file from disk, as ``importData(_:format:timeZone:)`` does. An iCalendar file
    /// is read VTODO by VTODO, a todo.txt file and Taskwarrior JSON lines line by line and a
    /// Taskwarrior array task by task, and Suite JSON todo by todo (memory does not grow with them).
    ///
    /// - Throws: ``BundleError/malformedImport(format:line:reason:)``, also when the file cannot
    ///   be read.
    @discardableResult
    public func importFile(at url: URL, format: InterchangeFormat, timeZone: TimeZone) throws(BundleError) -> ImportSummary {
        if format == .ics || format == .todotxt {
            let lines: LineStream
            do {
                lines = try LineStream(path: url.path)
            } catch {
                throw .malformedImport(format: format.displayName, line: nil, reason: "cannot be read")
            }
            return format == .ics ? try importCalendar(lines, timeZone: timeZone) : try importTodoTxt(lines, timeZone: timeZone)
        }
        // Looked at first only when it is a regular file: a FIFO's bytes can be read once.
        var info = stat()
        if format == .json, stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
           let stream = try? JSONArrayStream(path: url.path, arrayKeys: ["todos"], memberLimit: Self.suiteJSONMemberLimit),
           let reader = try SuiteJSONFormat.StreamReader(stream) {
            return try importSuiteJSON(reader)
        }
        if format == .taskwarrior, stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
           let handle = FileHandle(forReadingAtPath: url.path) {
            let head = (try? handle.read(upToCount: 4096)) ?? Data()
            try? handle.close()
            if TaskwarriorFormat.isArray(head) {
                let stream: JSONArrayStream
                do { stream = try JSONArrayStream(path: url.path, arrayKeys: []) } catch {
                    throw .malformedImport(format: format.displayName, line: nil, reason: "cannot be read")
                }
                var reader = TaskwarriorFormat.ArrayReader(stream)
                return try importTodos(format: .taskwarrior) { () throws(BundleError) in try reader.next() }
            }
            if let probe = try? LineStream(path: url.path), TaskwarriorFormat.startsWithObjectLine(probe) {
                let lines: LineStream
                do { lines = try LineStream(path: url.path) } catch {
                    throw .malformedImport(format: format.displayName, line: nil, reason: "cannot be read")
                }
                var reader = TaskwarriorFormat.LinesReader(lines)
                return try importTodos(format: .taskwarrior) { () throws(BundleError) in try reader.next() }
            }
        }
        switch FileContents.read(path: url.path) {
        case .data(let data): return try importData(data, format: format, timeZone: timeZone)
        case .tooLarge(let limit): throw .malformedImport(format: format.displayName, line: nil, reason: "larger than \(limit >> 20) MiB")
        case .unreadable: throw .malformedImport(format: format.displayName, line: nil, reason: "cannot be read")
        }
    }

    static func apply(_ document: InterchangeDocument, db: Database, stamp: Int64) throws -> ImportSummary {
        var applier = Applier(db: db, stamp: stamp, described: Set(document.bundles.map(\.uuid)))
        try applier.events(document.events)
        try applier.bundles(document.bundles)
        try applier.referencedBundles(document.todos)
        for todo in document.todos { try applier.todo(todo) }
        try applier.items(document.bundles)
        return applier.summary
    }

    /// Writes an import's records, in this order: events, the bundles the file describes, the
    /// bundles its todos name without describing (``referencedBundles(_:)``, made from all of
    /// their members), the todos, then the described bundles' items (which need the todos).
    struct Applier {
        let db: Database
        let stamp: Int64
        /// The bundles the file describes (Suite JSON's `bundles`).
        let described: Set<UUID>
        private(set) var summary = ImportSummary(created: 0, updated: 0, eventsCreated: 0, bundles: 0)
        private var bundleIDs: [UUID: Int64] = [:]
        private let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return encoder
        }()

        init(db: Database, stamp: Int64, described: Set<UUID>) {
            self.db = db
            self.stamp = stamp
            self.described = described
        }

        private mutating func event(_ name: String, createdAt: Date? = nil) throws -> TriggerEvent.ID {
            if let id = try findEvent(name, db: db) { return id }
            summary.eventsCreated += 1
            return try insertEvent(name.trimmingCharacters(in: .whitespacesAndNewlines), db: db, stamp: createdAt.map { Millis($0).value } ?? stamp).id
        }

        private mutating func bundleID(_ uuid: UUID) throws -> Int64? {
            if let id = bundleIDs[uuid] { return id }
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM bundle WHERE uuid = ?", arguments: [uuid.uuidString.lowercased()])
            bundleIDs[uuid] = id
            return id
        }

        mutating func events(_ events: [InterchangeEvent]) throws {
            for item in events {
                let id = try event(item.name, createdAt: item.createdAt)
                try db.execute(sql: "UPDATE event SET archived = ?, created_ms = ? WHERE id = ?", arguments: [item.archived, Millis(item.createdAt).value, id])
                for alias in item.aliases where try findEvent(alias, db: db) == nil {
                    try db.execute(sql: "INSERT INTO event_name (key, phrase, event_id, is_alias) VALUES (?, ?, ?, 1)", arguments: [matchKey(alias), alias, id])
                }
            }
        }

        mutating func bundles(_ bundles: [InterchangeBundle]) throws {
            for bundle in bundles {
                let eventID = try event(bundle.event)
                let arguments: StatementArguments = [bundle.title, bundle.icon, eventID, bundle.direction.rawValue, bundle.status.rawValue,
                                                     Millis(bundle.createdAt).value, bundle.finishedAt.map { Millis($0).value }]
                if let id = try bundleID(bundle.uuid) {
                    // Written only when a value differs, as todos are.
                    try db.execute(sql: """
                        UPDATE bundle SET title = ?1, icon = ?2, event_id = ?3, direction = ?4, status = ?5, created_ms = ?6, finished_ms = ?7
                        WHERE id = \(id) AND (title IS NOT ?1 OR icon IS NOT ?2 OR event_id IS NOT ?3 OR direction IS NOT ?4 OR status IS NOT ?5
                            OR created_ms IS NOT ?6 OR finished_ms IS NOT ?7)
                        """, arguments: arguments)
                } else {
                    try db.execute(sql: "INSERT INTO bundle (title, icon, event_id, direction, status, created_ms, finished_ms, uuid) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                   arguments: arguments + [bundle.uuid.uuidString.lowercased()])
                    bundleIDs[bundle.uuid] = db.lastInsertedRowID
                }
                summary.bundles += 1
            }
        }

        /// Bundles named by `todos` but not described (Taskwarrior, iCalendar, todo.txt files):
        /// each made from all of its members.
        mutating func referencedBundles(_ todos: [InterchangeTodo]) throws {
            var referenced: [UUID: [InterchangeTodo]] = [:]
            for todo in todos {
                if let uuid = todo.bundleUUID, !described.contains(uuid) { referenced[uuid, default: []].append(todo) }
            }
            for (uuid, members) in referenced.sorted(by: { $0.key.uuidString < $1.key.uuidString }) where try bundleID(uuid) == nil {
                guard let first = members.first, let eventName = members.compactMap(\.eventName).first else { continue }
                let open = members.contains { $0.status == .inBundle }
                let direction: CheckInDirection = first.preposition == .after ? .justFinished : .aboutTo
                let created = members.map(\.modifiedAt).min() ?? Date()
                let finished = open ? nil : members.compactMap(\.completedAt).max() ?? created
                let eventID = try event(eventName)
                let title = "\(direction == .aboutTo ? "Before" : "After") \(eventName) (imported)"
                try db.execute(sql: "INSERT INTO bundle (uuid, title, icon, event_id, direction, status, created_ms, finished_ms) VALUES (?, ?, '📦', ?, ?, ?, ?, ?)",
                               arguments: [uuid.uuidString.lowercased(), title, eventID, direction.rawValue, open ? "open" : "completed",
                                           Millis(created).value, finished.map { Millis($0).value }])
                bundleIDs[uuid] = db.lastInsertedRowID
                summary.bundles += 1
            }
        }

        /// One todo, after the bundles it names (described, or by ``referencedBundles(_:)``).
        mutating func todo(_ todo: InterchangeTodo) throws {
            let eventID = try todo.eventName.map { try event($0) }
            let bundle = try todo.bundleUUID.flatMap { try bundleID($0) }
            let foreign = todo.foreignFields.isEmpty ? nil : (try? encoder.encode(todo.foreignFields)).map { String(decoding: $0, as: UTF8.self) }
            let values: [(String, (any DatabaseValueConvertible)?)] = [
                ("text", todo.text.trimmingCharacters(in: .whitespacesAndNewlines)), ("event_id", eventID),
                ("preposition", eventID == nil ? Preposition.none.rawValue : todo.preposition.rawValue),
                ("deadline", todo.deadline?.description), ("status", todo.status.rawValue), ("bundle_id", bundle),
                ("notes", todo.notes.trimmingCharacters(in: .whitespacesAndNewlines)), ("created_ms", Millis(todo.createdAt).value),
                ("modified_ms", Millis(todo.modifiedAt).value), ("completed_ms", todo.completedAt.map { Millis($0).value }),
                ("foreign_fields", foreign),
            ]
            let uuid = todo.uuid.uuidString.lowercased()
            let existing = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, status, bundle_id, created_ms, modified_ms, completed_ms FROM todo WHERE uuid = ?"),
                                            arguments: [uuid])
            if let existing {
                let id: Int64 = existing["id"]
                // A format that keeps whole seconds (Taskwarrior, iCalendar) gives back a time the
                // store keeps to the millisecond: the same second is the same time.
                var values = values
                for (index, column) in values.enumerated() where ["created_ms", "modified_ms", "completed_ms"].contains(column.0) {
                    if let given = column.1 as? Int64, given % 1000 == 0, let kept = existing[column.0] as Int64?,
                       kept - kept % 1000 == given {
                        values[index].1 = kept
                    }
                }
                // Written only when a value differs: an unchanged todo is no change (for sync,
                // observers, and the summary).
                let numbered = values.enumerated()
                try db.cachedStatement(sql: """
                    UPDATE todo SET \(numbered.map { "\($0.element.0) = ?\($0.offset + 1)" }.joined(separator: ", "))
                    WHERE id = ?\(values.count + 1) AND (\(numbered.map { "\($0.element.0) IS NOT ?\($0.offset + 1)" }.joined(separator: " OR ")))
                    """).execute(arguments: StatementArguments(values.map(\.1) + [id]))
                let changed = db.changesCount > 0
                // Leaving a bundle: its item records what happened.
                if let oldBundle: Int64 = existing["bundle_id"], oldBundle != bundle {
                    try db.execute(sql: "UPDATE bundle_item SET outcome = ? WHERE bundle_id = ? AND todo_id = ? AND outcome = 'open'",
                                   arguments: [todo.status == .done ? "done" : "thrown-back", oldBundle, id])
                }
                if changed { summary.updated += 1 } else { summary.unchanged += 1 }
            } else {
                try db.cachedStatement(sql: "INSERT INTO todo (uuid, \(values.map(\.0).joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: values.count)))")
                    .execute(arguments: StatementArguments([uuid] + values.map(\.1)))
                summary.created += 1
            }
            if !todo.attachments.isEmpty {
                // Links the todo has not got yet (an export read back adds none; nor does the
                // `file:` URL of a copy it keeps).
                let todoID = try Int64.fetchOne(db, sql: "SELECT id FROM todo WHERE uuid = ?", arguments: [uuid]) ?? 0
                var known = Set(try Row.fetchAll(db, sql: "SELECT * FROM todo_attachment WHERE todo_id = ?", arguments: [todoID]).map { attachment(from: $0).uri })
                for link in todo.attachments where !isStoredCopy(link) && known.insert(link).inserted {
                    try insertLink(link, todo: Todo.ID(todoID), db: db, stamp: stamp)
                }
            }
            if let bundle, !described.contains(todo.bundleUUID ?? UUID()) {
                let todoID = try Int64.fetchOne(db, sql: "SELECT id FROM todo WHERE uuid = ?", arguments: [uuid]) ?? 0
                let outcome = todo.status == .inBundle ? "open" : (todo.status == .done ? "done" : "thrown-back")
                let position = try Int.fetchOne(db, sql: "SELECT count(*) FROM bundle_item WHERE bundle_id = ?", arguments: [bundle]) ?? 0
                try db.execute(sql: """
                    INSERT INTO bundle_item (bundle_id, todo_id, position, outcome, sync_key) VALUES (?1, ?2, ?3, ?4, \(itemKeySQL))
                    ON CONFLICT (bundle_id, todo_id) DO UPDATE SET outcome = excluded.outcome
                    """, arguments: [bundle, todoID, position, outcome])
            }
        }

        /// The items of the bundles the file describes, in their order.
        mutating func items(_ bundles: [InterchangeBundle]) throws {
            for bundle in bundles {
                guard let id = try bundleID(bundle.uuid) else { continue }
                var wanted: [(todo: Int64, outcome: String)] = []
                for item in bundle.items {
                    guard let todoID = try Int64.fetchOne(db, sql: "SELECT id FROM todo WHERE uuid = ?", arguments: [item.todo.uuidString.lowercased()]) else { continue }
                    wanted.append((todoID, item.outcome.rawValue))
                }
                // The items as they are already: left alone (an unchanged file changes nothing).
                let present = try Row.fetchAll(db, sql: "SELECT todo_id, outcome FROM bundle_item WHERE bundle_id = ? ORDER BY position", arguments: [id])
                    .map { (todo: $0[0] as Int64, outcome: $0[1] as String) }
                if present.map(\.todo) == wanted.map(\.todo) && present.map(\.outcome) == wanted.map(\.outcome) { continue }
                try db.execute(sql: "DELETE FROM bundle_item WHERE bundle_id = ?", arguments: [id])
                for (position, item) in wanted.enumerated() {
                    try db.execute(sql: "INSERT INTO bundle_item (bundle_id, todo_id, position, outcome, sync_key) VALUES (?1, ?2, ?3, ?4, \(itemKeySQL))",
                                   arguments: [id, item.todo, position, item.outcome])
                }
            }
        }
    }
}
