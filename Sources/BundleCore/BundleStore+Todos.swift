import Foundation
import GRDB
import SuiteStorage

extension BundleStore {
    /// Writes a todo down.
    ///
    /// - Parameters:
    ///   - text: what to do.
    ///   - event: the trigger event's phrase, or nil for a loose todo. An unknown phrase creates
    ///     the event, unless it looks like an existing one and `allowNewEvent` is false.
    ///   - preposition: before, after, when or none (none when `event` is nil).
    ///   - deadline: an optional deadline.
    ///   - notes: optional notes.
    ///   - allowNewEvent: create the event even when it resembles an existing one.
    ///   - links: links to keep on it (see ``validatedLink(_:)``).
    ///   - files: files to attach: copied into the store's folder first, so that the todo, its
    ///     links and its files are written together or not at all.
    /// - Returns: the new todo.
    /// - Throws: ``BundleError/invalidText(_:)``, ``BundleError/similarEvent(_:existing:)``,
    ///   ``BundleError/invalidAttachment(_:)`` (before anything is written), or
    ///   ``BundleError/store(_:)`` when a copy cannot be kept.
    @discardableResult
    public func addTodo(
        _ text: String, event: String?, preposition: Preposition, deadline: Deadline? = nil,
        notes: String = "", allowNewEvent: Bool = false, links: [String] = [], files: [URL] = []
    ) throws(BundleError) -> Todo {
        let text = try Self.validated(text: text, what: .todoText)
        let notes = try Self.validated(text: notes, what: .note, allowEmpty: true)
        if event == nil && preposition != .none {
            throw .conflict(.triggerNeeded(preposition))
        }
        let links = try links.map { (link) throws(BundleError) in try Self.validatedLink(link) }
        for file in files { try Self.checkAttachable(file) }
        var copies: [StoredCopy] = []
        do {
            for file in files { copies.append(try copyIn(file)) }
            return try write { db in
                let eventID = try event.map { try Self.eventForWriting($0, allowNew: allowNewEvent, db: db, stamp: stamp).id }
                let id = UUID()
                try db.execute(sql: """
                    INSERT INTO todo (uuid, text, event_id, preposition, deadline, status, notes, created_ms, modified_ms)
                    VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)
                    """, arguments: [id.uuidString.lowercased(), text, eventID, preposition.rawValue, deadline?.description, notes, stamp, stamp])
                let todoID = Todo.ID(db.lastInsertedRowID)
                for link in links { try Self.insertLink(link, todo: todoID, db: db, stamp: stamp) }
                for copy in copies { try Self.insertFile(copy, todo: todoID, db: db, stamp: stamp) }
                return try Self.loadTodo(todoID, db: db)
            }
        } catch {
            for copy in copies { unlink(copy.path) }
            throw error
        }
    }

    /// The todo with that id.
    ///
    /// - Throws: ``BundleError/todoNotFound(_:)``.
    public func todo(_ id: Todo.ID) throws(BundleError) -> Todo {
        try read { db in try Self.loadTodo(id, db: db) }
    }

    /// The todo whose interchange uuid (Taskwarrior `uuid`, iCalendar `UID`) starts with `prefix`
    /// (at least 8 hexadecimal digits or dashes, any case): the whole uuid, or a prefix that only
    /// one todo has.
    ///
    /// - Throws: ``BundleError/todoUUIDNotFound(_:)`` when no todo, or more than one, matches.
    public func todo(uuidPrefix prefix: String) throws(BundleError) -> Todo {
        let lower = prefix.lowercased()
        guard lower.count >= 8, lower.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { throw .todoUUIDNotFound(prefix) }
        return try read { db in
            let matches = try Self.fetchTodos(db, "WHERE t.uuid >= ? AND t.uuid < ? LIMIT 2", [lower, lower + "\u{FFFF}"])
            guard matches.count == 1, let todo = matches.first else { throw BundleError.todoUUIDNotFound(prefix) }
            return todo
        }
    }

    /// Todos, by event then deadline (or soonest deadline first); pending and bundled ones unless
    /// `includeFinished`; a page of them with `limit` and `offset`.
    ///
    /// - Parameters:
    ///   - event: only this event's todos (matched like everywhere else).
    ///   - includeFinished: also list done and dropped todos.
    ///   - order: by event then deadline (the default), or soonest deadline first.
    ///   - limit: at most this many (all when nil).
    ///   - offset: skip this many first (for the next page of a list).
    public func todos(
        event: String? = nil, includeFinished: Bool = false, order: TodoOrder = .byEvent, limit: Int? = nil, offset: Int = 0
    ) throws(BundleError) -> [Todo] {
        try read { db in
            let (filter, arguments) = try Self.todoFilter(event: event, includeFinished: includeFinished, db: db)
            let sort = switch order {
            case .byEvent: "e.name COLLATE NOCASE, t.deadline IS NULL, t.deadline, t.id"
            case .byDeadline: "t.deadline IS NULL, t.deadline, t.id"
            }
            let page = limit.map { " LIMIT \(max(0, $0)) OFFSET \(max(0, offset))" } ?? (offset > 0 ? " LIMIT -1 OFFSET \(offset)" : "")
            return try Self.fetchTodos(db, "\(filter) ORDER BY \(sort)\(page)", arguments)
        }
    }

    /// How many todos ``todos(event:includeFinished:order:limit:offset:)`` lists without a limit.
    public func todoCount(event: String? = nil, includeFinished: Bool = false) throws(BundleError) -> Int {
        try read { db in
            let (filter, arguments) = try Self.todoFilter(event: event, includeFinished: includeFinished, db: db)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM todo t \(filter)", arguments: arguments) ?? 0
        }
    }

    /// What a list shows of the todos ``todos(event:includeFinished:order:limit:offset:)`` returns, in the same
    /// order: for long lists (ten thousand todos in a few milliseconds).
    ///
    /// The rows are read in the table's order and sorted here: SQLite's sorter, copying every
    /// row, took longer than reading them.
    public func todoSummaries(event: String? = nil, includeFinished: Bool = false) throws(BundleError) -> [TodoSummary] {
        try read { db in
            let (filter, arguments) = try Self.todoFilter(event: event, includeFinished: includeFinished, db: db)
            // Each event's place in `ORDER BY name COLLATE NOCASE`, names equal under NOCASE sharing
            // one; a todo without an event (or whose event is gone) comes first, as NULL sorts first.
            var events: [Int64: (rank: Int, name: String)] = [:]
            let eventRows = try Row.fetchCursor(db, sql: "SELECT id, name, dense_rank() OVER (ORDER BY name COLLATE NOCASE) FROM event")
            while let row = try eventRows.next() { events[row[0]] = (row[2], row[1]) }
            var summaries: [TodoSummary] = []
            var keys: [(rank: Int, deadline: String?)] = []
            // Room for every todo there may be (the largest id, found at once): the arrays are
            // not copied as they grow, and pages not filled are never touched.
            let most = min(try Int.fetchOne(db, sql: "SELECT max(id) FROM todo") ?? 0, 1 << 22)
            summaries.reserveCapacity(most)
            keys.reserveCapacity(most)
            let statement = try db.makeStatement(
                sql: "SELECT t.id, t.text, t.event_id, t.preposition, t.deadline, t.status, t.bundle_id FROM todo t \(filter)")
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            let column = StatementColumns(statement)
            let prepositions = Preposition.allCases, statuses = TodoStatus.allCases
            let prepositionBytes = prepositions.map { Array($0.rawValue.utf8) }, statusBytes = statuses.map { Array($0.rawValue.utf8) }
            // Deadlines read once per distinct text (a list has few; each is a calendar check).
            var deadlines: [String: Deadline?] = [:]
            while try rows.next() != nil {
                let eventID = column.optionalInt64(2)
                let event = eventID.flatMap { events[$0] }
                let deadline = column.optionalText(4)
                keys.append((event?.rank ?? 0, deadline))
                var parsed: Deadline?
                if let deadline {
                    if let known = deadlines[deadline] {
                        parsed = known
                    } else {
                        parsed = Deadline.stored(deadline)
                        deadlines[deadline] = parsed
                    }
                }
                summaries.append(TodoSummary(
                    id: Todo.ID(column.int64(0)), text: column.text(1), eventID: eventID.map { TriggerEvent.ID($0) }, eventName: event?.name,
                    preposition: column.index(3, among: prepositionBytes).map { prepositions[$0] } ?? .none, deadline: parsed,
                    status: column.index(5, among: statusBytes).map { statuses[$0] } ?? .pending, bundleID: column.optionalInt64(6).map { TodoBundle.ID($0) }))
            }
            // `e.name COLLATE NOCASE, t.deadline IS NULL, t.deadline, t.id`, deadlines compared
            // byte by byte as SQLite's BINARY collation does.
            func precedes(_ a: Int, _ b: Int) -> Bool {
                if keys[a].rank != keys[b].rank { return keys[a].rank < keys[b].rank }
                switch (keys[a].deadline, keys[b].deadline) {
                case (nil, nil): break
                case (nil, _?): return false
                case (_?, nil): return true
                case (let x?, let y?):
                    let order = Self.compareBytes(x, y)
                    if order != 0 { return order < 0 }
                }
                return summaries[a].id < summaries[b].id
            }
            // Often already in order (one event, no deadlines): then nothing is moved.
            if summaries.indices.dropFirst().allSatisfy({ precedes($0 - 1, $0) }) { return summaries }
            return summaries.indices.sorted(by: precedes).map { summaries[$0] }
        }
    }

    /// How `x` and `y` compare byte by byte (SQLite's BINARY collation): negative, 0 or positive.
    static func compareBytes(_ x: String, _ y: String) -> Int {
        let contiguous = x.utf8.withContiguousStorageIfAvailable { a in
            y.utf8.withContiguousStorageIfAvailable { b -> Int in
                let common = min(a.count, b.count)
                if common > 0, let p = a.baseAddress, let q = b.baseAddress {
                    let order = memcmp(p, q, common)
                    if order != 0 { return Int(order) }
                }
                return a.count - b.count
            }
        }
        if let order = contiguous ?? nil { return order }
        if x.utf8.elementsEqual(y.utf8) { return 0 }
        return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
    }

    /// The `WHERE` clause of a todo listing (on `todo t`) and its arguments.
    static func todoFilter(event: String?, includeFinished: Bool, db: Database) throws -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        if let event {
            conditions.append("t.event_id = ?")
            arguments.append(try Self.resolveEvent(event, db: db).id)
        }
        if !includeFinished { conditions.append("t.status IN ('pending', 'in-bundle')") }
        return (conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "), StatementArguments(arguments))
    }

    /// Moves a todo to another event and/or preposition ("change trigger").
    @discardableResult
    public func moveTodo(
        _ id: Todo.ID, event: String?, preposition: Preposition?, allowNewEvent: Bool = false
    ) throws(BundleError) -> Todo {
        try write { db in
            let todo = try Self.loadTodo(id, db: db)
            guard todo.status == .pending else {
                throw BundleError.conflict(.todoNotPending(todo.id, status: todo.status, bundle: todo.bundleID, action: .move))
            }
            let eventID = try event.map { try Self.eventForWriting($0, allowNew: allowNewEvent, db: db, stamp: stamp).id } ?? todo.eventID
            let newPreposition = preposition ?? todo.preposition
            if eventID == nil && newPreposition != .none {
                throw BundleError.conflict(.triggerNeeded(newPreposition))
            }
            try db.execute(sql: "UPDATE todo SET event_id = ?, preposition = ?, modified_ms = ? WHERE id = ?",
                           arguments: [eventID, newPreposition.rawValue, stamp, todo.id])
            return try Self.loadTodo(todo.id, db: db)
        }
    }

    /// Sets or removes a todo's deadline.
    @discardableResult
    public func setDeadline(_ id: Todo.ID, to deadline: Deadline?) throws(BundleError) -> Todo {
        try write { db in
            let todo = try Self.loadTodo(id, db: db)
            try db.execute(sql: "UPDATE todo SET deadline = ?, modified_ms = ? WHERE id = ?", arguments: [deadline?.description, stamp, todo.id])
            return try Self.loadTodo(todo.id, db: db)
        }
    }

    /// Changes a todo's text and/or notes; nil leaves a field as it is. The deadline is
    /// `setDeadline(_:to:)`'s, the trigger `moveTodo(_:event:preposition:allowNewEvent:)`'s.
    ///
    /// - Throws: ``BundleError/invalidText(_:)`` by the same rules as `addTodo(_:event:preposition:deadline:notes:allowNewEvent:)`.
    @discardableResult
    public func editTodo(_ id: Todo.ID, text: String? = nil, notes: String? = nil) throws(BundleError) -> Todo {
        let newText = try text.map { (value: String) throws(BundleError) -> String in try Self.validated(text: value, what: .todoText) }
        let newNotes = try notes.map { (value: String) throws(BundleError) -> String in try Self.validated(text: value, what: .note, allowEmpty: true) }
        return try write { db in
            let todo = try Self.loadTodo(id, db: db)
            try db.execute(sql: "UPDATE todo SET text = coalesce(?, text), notes = coalesce(?, notes), modified_ms = ? WHERE id = ?",
                           arguments: [newText, newNotes, stamp, todo.id])
            return try Self.loadTodo(todo.id, db: db)
        }
    }

    /// Removes a todo for good, with its places in finished bundles' records. A todo in an open
    /// bundle is refused: throw it back first.
    ///
    /// - Returns: the todo as it was.
    @discardableResult
    public func removeTodo(_ id: Todo.ID) throws(BundleError) -> Todo {
        var copies: [String] = []
        let removed = try write { db in
            let todo = try Self.loadTodo(id, db: db)
            if todo.status == .inBundle {
                throw BundleError.conflict(.todoInOpenBundle(todo.id, bundle: todo.bundleID ?? 0, action: .remove))
            }
            // Its items in finished bundles first, row by row (a cascade would not record them for sync).
            try db.execute(sql: "DELETE FROM bundle_item WHERE todo_id = ?", arguments: [todo.id])
            // The store's copies of its files go after the commit.
            copies = try String.fetchAll(db, sql: "SELECT stored FROM todo_attachment WHERE todo_id = ? AND stored IS NOT NULL", arguments: [todo.id])
            try db.execute(sql: "DELETE FROM todo WHERE id = ?", arguments: [todo.id])
            return todo
        }
        for path in copies { removeCopy(path) }
        return removed
    }

    /// Brings a done or dropped todo back to the pile (pending). The bundle it was finished in
    /// keeps its record of what happened.
    ///
    /// - Throws: ``BundleError/conflict(_:)`` when the todo is not finished.
    @discardableResult
    public func reopenTodo(_ id: Todo.ID) throws(BundleError) -> Todo {
        try write { db in
            let todo = try Self.loadTodo(id, db: db)
            switch todo.status {
            case .done, .dropped:
                try db.execute(sql: "UPDATE todo SET status = 'pending', bundle_id = NULL, completed_ms = NULL, modified_ms = ? WHERE id = ?",
                               arguments: [stamp, todo.id])
                return try Self.loadTodo(todo.id, db: db)
            case .inBundle:
                throw BundleError.conflict(.todoInOpenBundle(todo.id, bundle: todo.bundleID ?? 0, action: .reopen))
            case .pending:
                throw BundleError.conflict(.todoNotFinished(todo.id))
            }
        }
    }

    /// Marks a todo done, or drops it, outside any bundle. A todo in an open bundle is handled
    /// through the bundle instead.
    @discardableResult
    public func finishTodo(_ id: Todo.ID, as status: TodoStatus) throws(BundleError) -> Todo {
        precondition(status == .done || status == .dropped, "finishTodo takes .done or .dropped") // programmer error
        return try write { db in
            let todo = try Self.loadTodo(id, db: db)
            guard todo.status == .pending else {
                throw BundleError.conflict(.todoNotPending(todo.id, status: todo.status, bundle: todo.bundleID, action: .finish))
            }
            try db.execute(sql: "UPDATE todo SET status = ?, completed_ms = ?, modified_ms = ? WHERE id = ?",
                           arguments: [status.rawValue, stamp, stamp, todo.id])
            return try Self.loadTodo(todo.id, db: db)
        }
    }

    /// Pending or bundled todos whose deadline passes within `interval` from now (overdue ones
    /// included), soonest first.
    public func dueSoon(within interval: TimeInterval, timeZone: TimeZone) throws(BundleError) -> [Todo] {
        let limit = now().addingTimeInterval(interval)
        let candidates = try read { db in
            try Self.fetchTodos(db, "WHERE t.deadline IS NOT NULL AND t.status IN ('pending', 'in-bundle')", [])
        }
        return candidates
            .filter { ($0.deadline?.instant(in: timeZone) ?? .distantFuture) <= limit }
            .sorted { ($0.deadline?.instant(in: timeZone) ?? .distantFuture, $0.id) < ($1.deadline?.instant(in: timeZone) ?? .distantFuture, $1.id) }
    }

    /// The todos due within `interval` that were not reminded of in the last `quiet` seconds,
    /// marked as reminded now: run from a timer, each reminder goes out once per `quiet` period.
    public func takeReminders(within interval: TimeInterval, quiet: TimeInterval = 86_400, timeZone: TimeZone) throws(BundleError) -> [Todo] {
        let moment = now()
        let limit = moment.addingTimeInterval(interval)
        let since = Millis(moment.addingTimeInterval(-quiet)).value
        return try write { db in
            let due = try Self.fetchTodos(db, """
                WHERE t.deadline IS NOT NULL AND t.status IN ('pending', 'in-bundle')
                AND (t.reminded_ms IS NULL OR t.reminded_ms < ?)
                """, [since])
                .filter { ($0.deadline?.instant(in: timeZone) ?? .distantFuture) <= limit }
            for todo in due {
                try db.execute(sql: "UPDATE todo SET reminded_ms = ? WHERE id = ?", arguments: [Millis(moment).value, todo.id])
            }
            return due
        }
    }

    // MARK: - Plumbing

    /// The event to tie a todo to: an existing one, or a new one unless the phrase resembles an
    /// existing event.
    static func eventForWriting(_ phrase: String, allowNew: Bool, db: Database, stamp: Int64) throws -> TriggerEvent {
        let phrase = try validated(name: phrase, what: .eventPhrase)
        if let id = try findEvent(phrase, db: db) { return try loadEvent(id, db: db) }
        if !allowNew, let similar = try suggestions(for: phrase, db: db).first {
            throw BundleError.similarEvent(phrase, existing: similar)
        }
        return try insertEvent(phrase, db: db, stamp: stamp)
    }

    static let todoColumns = """
        SELECT t.id, t.uuid, t.text, t.event_id, e.name AS event_name, t.preposition, t.deadline, t.status,
               t.bundle_id, t.notes, t.created_ms, t.modified_ms, t.completed_ms, t.foreign_fields
        FROM todo t LEFT JOIN event e ON e.id = t.event_id
        """

    static func fetchTodos(_ db: Database, _ tail: String, _ arguments: StatementArguments) throws -> [Todo] {
        // Read from the statement row by row (not copied rows): columns are decoded straight
        // from SQLite, the fast way for a long listing.
        let rows = try Row.fetchCursor(db, sql: todoColumns + " " + tail, arguments: arguments)
        var todos: [Todo] = []
        while let row = try rows.next() { todos.append(todo(from: row)) }
        return todos
    }

    /// A todo from a row of ``todoColumns``, read by position: looking columns up by name
    /// (case-insensitively, for every row) was most of a long listing's time.
    static func todo(from row: Row) -> Todo {
        var foreign: [String: JSONValue] = [:]
        if let text = row[13] as String? {
            if case .object(let decoded)? = JSONValue.parse(text.utf8) {
                foreign = decoded
            } else if let decoded = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8)) {
                foreign = decoded
            }
        }
        let uuidText: String = row[1]
        return Todo(
            id: row[0], uuid: UUIDText.parse(uuidText) ?? UUID(uuidString: uuidText) ?? UUID(), text: row[2], eventID: row[3],
            eventName: row[4], preposition: Preposition(rawValue: row[5]) ?? .none,
            deadline: (row[6] as String?).flatMap(Deadline.stored), status: TodoStatus(rawValue: row[7]) ?? .pending,
            bundleID: row[8], notes: row[9], createdAt: Millis(row[10] as Int64).date,
            modifiedAt: Millis(row[11] as Int64).date, completedAt: (row[12] as Int64?).map { Millis($0).date },
            foreignFields: foreign)
    }

    static func loadTodo(_ id: Todo.ID, db: Database) throws -> Todo {
        guard let todo = try fetchTodos(db, "WHERE t.id = ?", [id]).first else { throw BundleError.todoNotFound(id) }
        return todo
    }
}
