import Foundation
import GRDB
import SuiteStorage

extension BundleStore {
    /// What a check-in offers: pending todos of the event whose preposition fits the direction,
    /// overdue first, then by soonest deadline, then oldest first.
    public func offer(event phrase: String, direction: CheckInDirection, timeZone: TimeZone) throws(BundleError) -> (event: TriggerEvent, todos: [Todo]) {
        let moment = now()
        return try read { db in
            let event = try Self.resolveEvent(phrase, db: db)
            let prepositions = direction.prepositions.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            let todos = try Self.fetchTodos(db, "WHERE t.event_id = ? AND t.status = 'pending' AND t.preposition IN (\(prepositions))", [event.id])
            return (event, Self.checkInOrder(todos, now: moment, timeZone: timeZone))
        }
    }

    /// What a check-in lists: `offer(event:direction:timeZone:)` and the todos already in an
    /// open bundle of the same event and direction (status ``TodoStatus/inBundle``), all in one
    /// order. The bundled ones are listed to show what this check-in already took, not to be
    /// picked again (`checkIn(event:direction:todoIDs:title:icon:timeZone:)` refuses them).
    public func checkInListing(event phrase: String, direction: CheckInDirection, timeZone: TimeZone) throws(BundleError) -> (event: TriggerEvent, todos: [Todo]) {
        let moment = now()
        return try read { db in
            let event = try Self.resolveEvent(phrase, db: db)
            let prepositions = direction.prepositions.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            let todos = try Self.fetchTodos(db, """
                WHERE t.event_id = ? AND t.preposition IN (\(prepositions)) AND (t.status = 'pending' OR (t.status = 'in-bundle' AND t.bundle_id IN (
                    SELECT id FROM bundle WHERE status = 'open' AND event_id = ? AND direction = ?)))
                """, [event.id, event.id, direction.rawValue])
            return (event, Self.checkInOrder(todos, now: moment, timeZone: timeZone))
        }
    }

    static func checkInOrder(_ todos: [Todo], now: Date, timeZone: TimeZone) -> [Todo] {
        todos.sorted { a, b in
            let aDue = a.deadline?.instant(in: timeZone), bDue = b.deadline?.instant(in: timeZone)
            let aOver = aDue.map { $0 <= now } ?? false, bOver = bDue.map { $0 <= now } ?? false
            if aOver != bOver { return aOver }
            switch (aDue, bDue) {
            case let (x?, y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.id < b.id
            }
        }
    }

    /// Checks in: bundles the chosen todos (which must be offered by this check-in) into a new
    /// open bundle.
    ///
    /// - Parameters:
    ///   - phrase: the event.
    ///   - direction: about to, or just finished.
    ///   - todoIDs: the todos chosen, by number.
    ///   - title: the bundle's title; by default the direction, event and day.
    ///   - icon: an emoji or short symbol.
    ///   - timeZone: for the default title's day.
    /// - Throws: ``BundleError/conflict(_:)`` when a todo is not offered (already bundled,
    ///   done, another event or preposition), or none was chosen.
    @discardableResult
    public func checkIn(
        event phrase: String, direction: CheckInDirection, todoIDs: [Todo.ID], title: String? = nil,
        icon: String? = nil, timeZone: TimeZone
    ) throws(BundleError) -> TodoBundle {
        var checkedTitle: String?
        if let title { checkedTitle = try Self.validated(name: title, what: .bundleTitle) }
        var checkedIcon = "📦"
        if let icon { checkedIcon = try Self.validated(icon: icon) }
        let title = checkedTitle, icon = checkedIcon
        guard !todoIDs.isEmpty else { throw .conflict(.noTodosChosen) }
        var chosen = Set<Todo.ID>()
        for id in todoIDs where !chosen.insert(id).inserted { throw .conflict(.todoChosenTwice(id)) }
        let moment = now()
        return try write { db in
            let event = try Self.resolveEvent(phrase, db: db)
            for id in todoIDs {
                let todo = try Self.loadTodo(id, db: db)
                guard todo.eventID == event.id, todo.status == .pending, direction.prepositions.contains(todo.preposition) else {
                    throw BundleError.conflict(.todoNotOffered(id, event: event.name, direction: direction, reason: Self.why(todo, event: event, direction: direction)))
                }
            }
            let bundleTitle = title ?? Self.defaultTitle(event: event, direction: direction, at: moment, timeZone: timeZone)
            let stamp = Millis(moment).value
            try db.execute(sql: """
                INSERT INTO bundle (uuid, title, icon, event_id, direction, status, created_ms) VALUES (?, ?, ?, ?, ?, 'open', ?)
                """, arguments: [UUID().uuidString.lowercased(), bundleTitle, icon, event.id, direction.rawValue, stamp])
            let bundleID = TodoBundle.ID(db.lastInsertedRowID)
            for (position, id) in todoIDs.enumerated() {
                try Self.addItem(todo: id, bundle: bundleID, position: position, db: db, stamp: stamp)
            }
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    static func why(_ todo: Todo, event: TriggerEvent, direction: CheckInDirection) -> BundleError.Conflict.NotOffered {
        if todo.eventID != event.id { return .otherEvent(todo.eventName) }
        if todo.status != .pending { return .status(todo.status) }
        return .preposition(todo.preposition)
    }

    /// "Go to Eastern branch, Mon 23 Nov" (the bundle's header already says about to or just
    /// finished): the event as a title, and the day.
    static func defaultTitle(event: TriggerEvent, direction: CheckInDirection, at date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .month, .day], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = parts.weekday.flatMap { weekdays.indices.contains($0 - 1) ? weekdays[$0 - 1] : nil } ?? ""
        let month = parts.month.flatMap { months.indices.contains($0 - 1) ? months[$0 - 1] : nil } ?? ""
        // Within the title's limit whatever the event's length, so an export imports back.
        let name = (event.name.prefix(1).uppercased() + event.name.dropFirst()).prefix(maximumNameLength - 16)
        return "\(name), \(weekday) \(parts.day ?? 1) \(month)"
    }

    static func addItem(todo id: Todo.ID, bundle bundleID: TodoBundle.ID, position: Int, db: Database, stamp: Int64) throws {
        try db.execute(sql: "INSERT INTO bundle_item (bundle_id, todo_id, position, outcome, sync_key) VALUES (?1, ?2, ?3, 'open', \(itemKeySQL))",
                       arguments: [bundleID, id, position])
        try db.execute(sql: "UPDATE todo SET status = 'in-bundle', bundle_id = ?, modified_ms = ? WHERE id = ?",
                       arguments: [bundleID, stamp, id])
    }

    // MARK: - Bundles

    /// The bundle with that id.
    ///
    /// - Throws: ``BundleError/bundleNotFound(_:)``.
    public func bundle(_ id: TodoBundle.ID) throws(BundleError) -> TodoBundle {
        try read { db in try Self.loadBundle(id, db: db) }
    }

    /// The bundle with that interchange uuid.
    ///
    /// - Throws: ``BundleError/bundleUUIDNotFound(_:)``.
    public func bundle(uuid: UUID) throws(BundleError) -> TodoBundle {
        try read { db in
            guard let id = try TodoBundle.ID.fetchOne(db, sql: "SELECT id FROM bundle WHERE uuid = ?", arguments: [uuid.uuidString.lowercased()]) else {
                throw BundleError.bundleUUIDNotFound(uuid)
            }
            return try Self.loadBundle(id, db: db)
        }
    }

    /// Open bundles, newest first.
    public func openBundles() throws(BundleError) -> [TodoBundle] {
        try read { db in
            try TodoBundle.ID.fetchAll(db, sql: "SELECT id FROM bundle WHERE status = 'open' ORDER BY created_ms DESC, id DESC")
                .map { try Self.loadBundle($0, db: db) }
        }
    }

    /// The newest open bundle.
    ///
    /// - Throws: ``BundleError/noOpenBundle``.
    public func currentBundle() throws(BundleError) -> TodoBundle {
        guard let bundle = try openBundles().first else { throw .noOpenBundle }
        return bundle
    }

    /// Marks a todo of an open bundle done.
    @discardableResult
    public func markDone(_ todoID: Todo.ID, in bundleID: TodoBundle.ID) throws(BundleError) -> TodoBundle {
        try changeItem(todoID, in: bundleID) { db, todo, stamp in
            try Self.markItemDone(todo.id, in: bundleID, db: db, stamp: stamp)
        }
    }

    /// Marks a todo done, wherever it is: a todo in an open bundle is marked done there (in
    /// `bundle` when given, else in its own bundle); a loose pending todo is done outside any
    /// bundle, unless `bundle` is given (then it must be in that bundle).
    ///
    /// - Returns: the todo, and the bundle it was done in when it was in one.
    /// - Throws: ``BundleError/Conflict/todoAlreadyDone(_:)``, ``BundleError/Conflict/todoDropped(_:)``,
    ///   or the errors of `markDone(_:in:)`.
    @discardableResult
    public func markDone(_ todoID: Todo.ID, bundle: TodoBundle.ID? = nil) throws(BundleError) -> (todo: Todo, bundle: TodoBundle?) {
        try write { db in
            let todo = try Self.loadTodo(todoID, db: db)
            switch todo.status {
            case .done: throw BundleError.conflict(.todoAlreadyDone(todoID))
            case .dropped: throw BundleError.conflict(.todoDropped(todoID))
            case .pending where bundle == nil:
                try db.execute(sql: "UPDATE todo SET status = 'done', completed_ms = ?, modified_ms = ? WHERE id = ?",
                               arguments: [stamp, stamp, todoID])
                return (try Self.loadTodo(todoID, db: db), nil)
            case .pending, .inBundle:
                let bundleID: TodoBundle.ID
                if let chosen = bundle ?? todo.bundleID {
                    bundleID = chosen
                } else if let newest = try TodoBundle.ID.fetchOne(db, sql: "SELECT id FROM bundle WHERE status = 'open' ORDER BY created_ms DESC, id DESC") {
                    bundleID = newest
                } else {
                    throw BundleError.noOpenBundle
                }
                let updated = try Self.changeItem(todoID, in: bundleID, db: db, stamp: stamp) { db, todo, stamp in
                    try Self.markItemDone(todo.id, in: bundleID, db: db, stamp: stamp)
                }
                return (try Self.loadTodo(todoID, db: db), updated)
            }
        }
    }

    /// Throws a todo of an open bundle back into the pile (pending again).
    @discardableResult
    public func throwBack(_ todoID: Todo.ID, in bundleID: TodoBundle.ID) throws(BundleError) -> TodoBundle {
        try changeItem(todoID, in: bundleID) { db, todo, stamp in
            try db.execute(sql: "UPDATE bundle_item SET outcome = 'thrown-back' WHERE bundle_id = ? AND todo_id = ?", arguments: [bundleID, todo.id])
            // A todo that is in another bundle now (checked in there too, on another device) stays there.
            try db.execute(sql: "UPDATE todo SET status = 'pending', bundle_id = NULL, modified_ms = ? WHERE id = ? AND (bundle_id IS NULL OR bundle_id = ?)",
                           arguments: [stamp, todo.id, bundleID])
        }
    }

    static func markItemDone(_ todoID: Todo.ID, in bundleID: TodoBundle.ID, db: Database, stamp: Int64) throws {
        try db.execute(sql: "UPDATE bundle_item SET outcome = 'done' WHERE bundle_id = ? AND todo_id = ?", arguments: [bundleID, todoID])
        try db.execute(sql: "UPDATE todo SET status = 'done', completed_ms = ?, modified_ms = ? WHERE id = ?", arguments: [stamp, stamp, todoID])
    }

    private func changeItem(
        _ todoID: Todo.ID, in bundleID: TodoBundle.ID, _ change: (Database, Todo, Int64) throws -> Void
    ) throws(BundleError) -> TodoBundle {
        try write { db in try Self.changeItem(todoID, in: bundleID, db: db, stamp: stamp, change) }
    }

    static func changeItem(
        _ todoID: Todo.ID, in bundleID: TodoBundle.ID, db: Database, stamp: Int64, _ change: (Database, Todo, Int64) throws -> Void
    ) throws -> TodoBundle {
        let bundle = try Self.loadOpenBundle(bundleID, db: db)
        let todo = try Self.loadTodo(todoID, db: db)
        guard let item = bundle.items.first(where: { $0.todo.id == todo.id }) else {
            throw BundleError.conflict(.todoNotInBundle(todo.id, bundle: bundle.id))
        }
        guard item.outcome == .open else {
            throw BundleError.conflict(.todoAlreadyFinished(todo.id, bundle: bundle.id, outcome: item.outcome))
        }
        try change(db, todo, stamp)
        return try Self.loadBundle(bundleID, db: db)
    }

    /// Pulls another pending todo of the same event into an open bundle.
    @discardableResult
    public func pull(_ todoID: Todo.ID, into bundleID: TodoBundle.ID) throws(BundleError) -> TodoBundle {
        try write { db in
            let bundle = try Self.loadOpenBundle(bundleID, db: db)
            let todo = try Self.loadTodo(todoID, db: db)
            guard todo.eventID == bundle.eventID else {
                throw BundleError.conflict(.todoOfAnotherEvent(todo.id, event: todo.eventName, bundleEvent: bundle.eventName))
            }
            guard todo.status == .pending else {
                throw BundleError.conflict(.todoNotPending(todo.id, status: todo.status, bundle: todo.bundleID, action: .pull))
            }
            if bundle.items.contains(where: { $0.todo.id == todo.id }) {
                try db.execute(sql: "UPDATE bundle_item SET outcome = 'open' WHERE bundle_id = ? AND todo_id = ?", arguments: [bundleID, todo.id])
                try db.execute(sql: "UPDATE todo SET status = 'in-bundle', bundle_id = ?, modified_ms = ? WHERE id = ?", arguments: [bundleID, stamp, todo.id])
            } else {
                try Self.addItem(todo: todo.id, bundle: bundleID, position: bundle.items.count, db: db, stamp: stamp)
            }
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Renames an open bundle.
    @discardableResult
    public func renameBundle(_ bundleID: TodoBundle.ID, to title: String) throws(BundleError) -> TodoBundle {
        let title = try Self.validated(name: title, what: .bundleTitle)
        return try write { db in
            _ = try Self.loadOpenBundle(bundleID, db: db)
            try db.execute(sql: "UPDATE bundle SET title = ? WHERE id = ?", arguments: [title, bundleID])
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Changes an open bundle's icon.
    @discardableResult
    public func setIcon(_ bundleID: TodoBundle.ID, to icon: String) throws(BundleError) -> TodoBundle {
        let icon = try Self.validated(icon: icon)
        return try write { db in
            _ = try Self.loadOpenBundle(bundleID, db: db)
            try db.execute(sql: "UPDATE bundle SET icon = ? WHERE id = ?", arguments: [icon, bundleID])
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Completes an open bundle whose todos are all done or thrown back; it is then filed under
    /// its day and its event.
    @discardableResult
    public func complete(_ bundleID: TodoBundle.ID) throws(BundleError) -> TodoBundle {
        try write { db in
            let bundle = try Self.loadOpenBundle(bundleID, db: db)
            let open = bundle.items.filter { $0.outcome == .open }.map(\.todo.id)
            guard open.isEmpty else { throw BundleError.conflict(.bundleHasOpenTodos(bundle.id, open: open)) }
            try db.execute(sql: "UPDATE bundle SET status = 'completed', finished_ms = ? WHERE id = ?", arguments: [stamp, bundleID])
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Abandons an open bundle: every unfinished todo goes back to the pile.
    @discardableResult
    public func abandon(_ bundleID: TodoBundle.ID) throws(BundleError) -> TodoBundle {
        try write { db in
            _ = try Self.loadOpenBundle(bundleID, db: db)
            let stamp = stamp
            try db.execute(sql: """
                UPDATE todo SET status = 'pending', bundle_id = NULL, modified_ms = ?1
                WHERE id IN (SELECT todo_id FROM bundle_item WHERE bundle_id = ?2 AND outcome = 'open') AND (bundle_id IS NULL OR bundle_id = ?2)
                """, arguments: [stamp, bundleID])
            try db.execute(sql: "UPDATE bundle_item SET outcome = 'thrown-back' WHERE bundle_id = ? AND outcome = 'open'", arguments: [bundleID])
            try db.execute(sql: "UPDATE bundle SET status = 'abandoned', finished_ms = ? WHERE id = ?", arguments: [stamp, bundleID])
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Completed bundles in chronological order of completion, optionally for one event and
    /// within `[from, to)`; with `latest`, only that many of the most recently completed ones.
    ///
    /// - Parameters:
    ///   - event: only this event's bundles.
    ///   - from: completed at or after this moment.
    ///   - to: completed before this moment.
    ///   - limit: at most this many, the most recently completed (all when nil).
    ///   - offset: leave out this many most recently completed first (for an older page).
    public func review(
        event: String? = nil, from: Date? = nil, to: Date? = nil, latest limit: Int? = nil, skipping offset: Int = 0
    ) throws(BundleError) -> [TodoBundle] {
        try read { db in
            let (conditions, arguments) = try Self.reviewFilter(event: event, from: from, to: to, db: db)
            let sql = limit == nil && offset == 0
                ? "SELECT id FROM bundle WHERE \(conditions) ORDER BY finished_ms, id"
                : """
                  SELECT id FROM (SELECT id, finished_ms FROM bundle WHERE \(conditions) ORDER BY finished_ms DESC, id DESC
                  LIMIT \(limit.map { max(0, $0) } ?? -1) OFFSET \(max(0, offset))) ORDER BY finished_ms, id
                  """
            return try TodoBundle.ID.fetchAll(db, sql: sql, arguments: arguments).map { try Self.loadBundle($0, db: db) }
        }
    }

    /// How many completed bundles ``review(event:from:to:latest:skipping:)`` lists without a limit.
    ///
    /// - Parameter event: only this event's bundles.
    public func reviewCount(event: String? = nil) throws(BundleError) -> Int {
        try read { db in
            let (conditions, arguments) = try Self.reviewFilter(event: event, from: nil, to: nil, db: db)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM bundle WHERE \(conditions)", arguments: arguments) ?? 0
        }
    }

    static func reviewFilter(event: String?, from: Date?, to: Date?, db: Database) throws -> (String, StatementArguments) {
        var conditions = ["status = 'completed'"]
        var arguments: [any DatabaseValueConvertible] = []
        if let event {
            conditions.append("event_id = ?")
            arguments.append(try Self.resolveEvent(event, db: db).id)
        }
        if let from { conditions.append("finished_ms >= ?"); arguments.append(Millis(from).value) }
        if let to { conditions.append("finished_ms < ?"); arguments.append(Millis(to).value) }
        return (conditions.joined(separator: " AND "), StatementArguments(arguments))
    }

    // MARK: - Plumbing

    static func loadOpenBundle(_ id: TodoBundle.ID, db: Database) throws -> TodoBundle {
        let bundle = try loadBundle(id, db: db)
        guard bundle.status == .open else { throw BundleError.conflict(.bundleNotOpen(id, status: bundle.status)) }
        return bundle
    }

    static func loadBundle(_ id: TodoBundle.ID, db: Database) throws -> TodoBundle {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT b.*, e.name AS event_name FROM bundle b JOIN event e ON e.id = b.event_id WHERE b.id = ?
            """, arguments: [id]) else {
            throw BundleError.bundleNotFound(id)
        }
        let outcomes = try Row.fetchAll(db, sql: "SELECT todo_id, outcome FROM bundle_item WHERE bundle_id = ? ORDER BY position", arguments: [id])
        let todos = Dictionary(uniqueKeysWithValues: try fetchTodos(db, "WHERE t.id IN (SELECT todo_id FROM bundle_item WHERE bundle_id = ?)", [id]).map { ($0.id, $0) })
        let items = outcomes.compactMap { row -> BundleItem? in
            guard let todo = todos[row["todo_id"]] else { return nil }
            let outcome = BundleItemOutcome(rawValue: row["outcome"]) ?? .open
            let elsewhere = outcome == .open && todo.status == .inBundle && todo.bundleID != nil && todo.bundleID != id
            return BundleItem(todo: todo, outcome: outcome, alsoIn: elsewhere ? todo.bundleID : nil)
        }
        return TodoBundle(
            id: row["id"], uuid: UUID(uuidString: row["uuid"]) ?? UUID(), title: row["title"], icon: row["icon"],
            eventID: row["event_id"], eventName: row["event_name"],
            direction: CheckInDirection(rawValue: row["direction"]) ?? .aboutTo,
            status: BundleStatus(rawValue: row["status"]) ?? .open, createdAt: Millis(row["created_ms"] as Int64).date,
            finishedAt: (row["finished_ms"] as Int64?).map { Millis($0).date }, items: items)
    }
}
