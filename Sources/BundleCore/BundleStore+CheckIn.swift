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

    /// What a check-in lists, numbered as the person chooses: ``offer(event:direction:timeZone:)``
    /// and the todos already in an open bundle of the same event and direction (status
    /// ``TodoStatus/inBundle``), all in one order. So the numbers a first listing showed mean the
    /// same todos in the next one, after some were bundled: a script's second `--pick 2` picks
    /// what the listing showed as 2. The bundled ones are listed to keep the numbers, not to be
    /// picked again (``checkIn(event:direction:todoIDs:title:icon:timeZone:)`` refuses them).
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
    /// - Throws: ``BundleError/invalidState(_:)`` when a todo is not offered (already bundled,
    ///   done, another event or preposition), or none was chosen.
    @discardableResult
    public func checkIn(
        event phrase: String, direction: CheckInDirection, todoIDs: [Int64], title: String? = nil,
        icon: String? = nil, timeZone: TimeZone
    ) throws(BundleError) -> TodoBundle {
        var checkedTitle: String?
        if let title { checkedTitle = try Self.validated(name: title, what: "bundle title") }
        var checkedIcon = "📦"
        if let icon { checkedIcon = try Self.validated(icon: icon) }
        let title = checkedTitle, icon = checkedIcon
        guard !todoIDs.isEmpty else { throw .invalidState("choose at least one todo for the bundle") }
        guard Set(todoIDs).count == todoIDs.count else { throw .invalidState("a todo was chosen twice") }
        let moment = now()
        return try write { db in
            let event = try Self.resolveEvent(phrase, db: db)
            for id in todoIDs {
                let todo = try Self.loadTodo(id, db: db)
                guard todo.eventID == event.id, todo.status == .pending, direction.prepositions.contains(todo.preposition) else {
                    throw BundleError.invalidState("todo #\(id) is not offered when you are \(direction.phrase) \(event.name) (\(Self.why(todo, event: event, direction: direction)))")
                }
            }
            let bundleTitle = title ?? Self.defaultTitle(event: event, direction: direction, at: moment, timeZone: timeZone)
            let stamp = Millis(moment).value
            try db.execute(sql: """
                INSERT INTO bundle (uuid, title, icon, event_id, direction, status, created_ms) VALUES (?, ?, ?, ?, ?, 'open', ?)
                """, arguments: [UUID().uuidString.lowercased(), bundleTitle, icon, event.id, direction.rawValue, stamp])
            let bundleID = db.lastInsertedRowID
            for (position, id) in todoIDs.enumerated() {
                try Self.addItem(todo: id, bundle: bundleID, position: position, db: db, stamp: stamp)
            }
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    static func why(_ todo: Todo, event: TriggerEvent, direction: CheckInDirection) -> String {
        if todo.eventID != event.id { return "it is tied to \(todo.eventName.map { "'\($0)'" } ?? "no event")" }
        if todo.status != .pending { return "it is \(todo.status.rawValue)" }
        return "it is for \(todo.preposition.rawValue)"
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

    static func addItem(todo id: Int64, bundle bundleID: Int64, position: Int, db: Database, stamp: Int64) throws {
        try db.execute(sql: "INSERT INTO bundle_item (bundle_id, todo_id, position, outcome) VALUES (?, ?, ?, 'open')",
                       arguments: [bundleID, id, position])
        try db.execute(sql: "UPDATE todo SET status = 'in-bundle', bundle_id = ?, modified_ms = ? WHERE id = ?",
                       arguments: [bundleID, stamp, id])
    }

    // MARK: - Bundles

    /// The bundle with that number (`3`, `#3`).
    public func bundle(_ reference: String) throws(BundleError) -> TodoBundle {
        try read { db in try Self.loadBundle(try Self.bundleID(reference, db: db), db: db) }
    }

    /// Open bundles, newest first.
    public func openBundles() throws(BundleError) -> [TodoBundle] {
        try read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM bundle WHERE status = 'open' ORDER BY created_ms DESC, id DESC")
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
    public func markDone(_ todoReference: String, in bundleID: Int64) throws(BundleError) -> TodoBundle {
        try changeItem(todoReference, in: bundleID) { db, todo, stamp in
            try db.execute(sql: "UPDATE bundle_item SET outcome = 'done' WHERE bundle_id = ? AND todo_id = ?", arguments: [bundleID, todo.id])
            try db.execute(sql: "UPDATE todo SET status = 'done', completed_ms = ?, modified_ms = ? WHERE id = ?", arguments: [stamp, stamp, todo.id])
        }
    }

    /// Throws a todo of an open bundle back into the pile (pending again).
    @discardableResult
    public func throwBack(_ todoReference: String, in bundleID: Int64) throws(BundleError) -> TodoBundle {
        try changeItem(todoReference, in: bundleID) { db, todo, stamp in
            try db.execute(sql: "UPDATE bundle_item SET outcome = 'thrown-back' WHERE bundle_id = ? AND todo_id = ?", arguments: [bundleID, todo.id])
            try db.execute(sql: "UPDATE todo SET status = 'pending', bundle_id = NULL, modified_ms = ? WHERE id = ?", arguments: [stamp, todo.id])
        }
    }

    private func changeItem(
        _ todoReference: String, in bundleID: Int64, _ change: (Database, Todo, Int64) throws -> Void
    ) throws(BundleError) -> TodoBundle {
        try write { db in
            let bundle = try Self.loadOpenBundle(bundleID, db: db)
            let todo = try Self.resolveTodo(todoReference, db: db)
            guard let item = bundle.items.first(where: { $0.todo.id == todo.id }) else {
                throw BundleError.invalidState("todo #\(todo.id) is not in bundle #\(bundle.id)")
            }
            guard item.outcome == .open else {
                throw BundleError.invalidState("todo #\(todo.id) is already \(item.outcome == .done ? "done" : "thrown back") in bundle #\(bundle.id)")
            }
            try change(db, todo, stamp)
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Pulls another pending todo of the same event into an open bundle.
    @discardableResult
    public func pull(_ todoReference: String, into bundleID: Int64) throws(BundleError) -> TodoBundle {
        try write { db in
            let bundle = try Self.loadOpenBundle(bundleID, db: db)
            let todo = try Self.resolveTodo(todoReference, db: db)
            guard todo.eventID == bundle.eventID else {
                throw BundleError.invalidState("todo #\(todo.id) is tied to \(todo.eventName.map { "'\($0)'" } ?? "no event"), not '\(bundle.eventName)'")
            }
            guard todo.status == .pending else {
                let place = todo.status == .inBundle ? " in bundle #\(todo.bundleID ?? 0)" : ""
                throw BundleError.invalidState("todo #\(todo.id) is \(todo.status.rawValue)\(place); only pending todos can be pulled in")
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
    public func renameBundle(_ bundleID: Int64, to title: String) throws(BundleError) -> TodoBundle {
        let title = try Self.validated(name: title, what: "bundle title")
        return try write { db in
            _ = try Self.loadOpenBundle(bundleID, db: db)
            try db.execute(sql: "UPDATE bundle SET title = ? WHERE id = ?", arguments: [title, bundleID])
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Changes an open bundle's icon.
    @discardableResult
    public func setIcon(_ bundleID: Int64, to icon: String) throws(BundleError) -> TodoBundle {
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
    public func complete(_ bundleID: Int64) throws(BundleError) -> TodoBundle {
        try write { db in
            let bundle = try Self.loadOpenBundle(bundleID, db: db)
            let open = bundle.items.filter { $0.outcome == .open }.map { "#\($0.todo.id)" }
            guard open.isEmpty else {
                throw BundleError.invalidState("bundle #\(bundle.id) still has open todos (\(open.joined(separator: ", "))): mark them done or throw them back first")
            }
            try db.execute(sql: "UPDATE bundle SET status = 'completed', finished_ms = ? WHERE id = ?", arguments: [stamp, bundleID])
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Abandons an open bundle: every unfinished todo goes back to the pile.
    @discardableResult
    public func abandon(_ bundleID: Int64) throws(BundleError) -> TodoBundle {
        try write { db in
            _ = try Self.loadOpenBundle(bundleID, db: db)
            let stamp = stamp
            try db.execute(sql: """
                UPDATE todo SET status = 'pending', bundle_id = NULL, modified_ms = ?
                WHERE id IN (SELECT todo_id FROM bundle_item WHERE bundle_id = ? AND outcome = 'open')
                """, arguments: [stamp, bundleID])
            try db.execute(sql: "UPDATE bundle_item SET outcome = 'thrown-back' WHERE bundle_id = ? AND outcome = 'open'", arguments: [bundleID])
            try db.execute(sql: "UPDATE bundle SET status = 'abandoned', finished_ms = ? WHERE id = ?", arguments: [stamp, bundleID])
            return try Self.loadBundle(bundleID, db: db)
        }
    }

    /// Completed bundles in chronological order of completion, optionally for one event and
    /// within `[from, to)`.
    public func review(event: String? = nil, from: Date? = nil, to: Date? = nil) throws(BundleError) -> [TodoBundle] {
        try read { db in
            var conditions = ["status = 'completed'"]
            var arguments: [any DatabaseValueConvertible] = []
            if let event {
                conditions.append("event_id = ?")
                arguments.append(try Self.resolveEvent(event, db: db).id)
            }
            if let from { conditions.append("finished_ms >= ?"); arguments.append(Millis(from).value) }
            if let to { conditions.append("finished_ms < ?"); arguments.append(Millis(to).value) }
            return try Int64.fetchAll(db, sql: "SELECT id FROM bundle WHERE \(conditions.joined(separator: " AND ")) ORDER BY finished_ms, id",
                                      arguments: StatementArguments(arguments))
                .map { try Self.loadBundle($0, db: db) }
        }
    }

    // MARK: - Plumbing

    static func bundleID(_ reference: String, db: Database) throws -> Int64 {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        let number = trimmed.hasPrefix("#") ? String(trimmed.dropFirst()) : trimmed
        if let id = Int64(number), id > 0,
           try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM bundle WHERE id = ?)", arguments: [id]) == true {
            return id
        }
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM bundle WHERE uuid = ?", arguments: [trimmed.lowercased()]) { return id }
        throw BundleError.bundleNotFound(trimmed)
    }

    static func loadOpenBundle(_ id: Int64, db: Database) throws -> TodoBundle {
        let bundle = try loadBundle(id, db: db)
        guard bundle.status == .open else { throw BundleError.invalidState("bundle #\(id) is \(bundle.status.rawValue); only an open bundle can change") }
        return bundle
    }

    static func loadBundle(_ id: Int64, db: Database) throws -> TodoBundle {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT b.*, e.name AS event_name FROM bundle b JOIN event e ON e.id = b.event_id WHERE b.id = ?
            """, arguments: [id]) else {
            throw BundleError.bundleNotFound("#\(id)")
        }
        let outcomes = try Row.fetchAll(db, sql: "SELECT todo_id, outcome FROM bundle_item WHERE bundle_id = ? ORDER BY position", arguments: [id])
        let todos = Dictionary(uniqueKeysWithValues: try fetchTodos(db, "WHERE t.id IN (SELECT todo_id FROM bundle_item WHERE bundle_id = ?)", [id]).map { ($0.id, $0) })
        let items = outcomes.compactMap { row -> BundleItem? in
            guard let todo = todos[row["todo_id"]] else { return nil }
            return BundleItem(todo: todo, outcome: BundleItemOutcome(rawValue: row["outcome"]) ?? .open)
        }
        return TodoBundle(
            id: row["id"], uuid: UUID(uuidString: row["uuid"]) ?? UUID(), title: row["title"], icon: row["icon"],
            eventID: row["event_id"], eventName: row["event_name"],
            direction: CheckInDirection(rawValue: row["direction"]) ?? .aboutTo,
            status: BundleStatus(rawValue: row["status"]) ?? .open, createdAt: Millis(row["created_ms"] as Int64).date,
            finishedAt: (row["finished_ms"] as Int64?).map { Millis($0).date }, items: items)
    }
}
