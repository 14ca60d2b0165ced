import Foundation

/// How a todo relates to its trigger event: do it before, after, when it happens, or with no
/// preference.
public enum Preposition: String, Codable, Sendable, Hashable, CaseIterable {
    case before, after, when, none
}

/// The order of a list of todos.
public enum TodoOrder: String, Codable, Sendable, Hashable, CaseIterable {
    /// By event name, then soonest deadline (none last), then number: the pile as `suite bundle list` shows it.
    case byEvent = "by-event"
    /// Soonest deadline first (none last), then number: what is due next, whatever its event.
    case byDeadline = "by-deadline"
}

/// Where a todo stands.
public enum TodoStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// In the pile, waiting for its moment.
    case pending
    /// In an open bundle.
    case inBundle = "in-bundle"
    /// Done.
    case done
    /// Given up.
    case dropped

    /// Whether a todo with this status is still to do (pending, or in an open bundle): only such a
    /// todo can be overdue.
    public var isOpen: Bool { self == .pending || self == .inBundle }
}

/// The two kinds of check-in: "I'm about to …" and "I just finished …".
public enum CheckInDirection: String, Codable, Sendable, Hashable, CaseIterable {
    case aboutTo = "about-to"
    case justFinished = "just-finished"

    /// The prepositions whose todos a check-in offers.
    public var prepositions: [Preposition] {
        switch self {
        case .aboutTo: return [.before, .when, .none]
        case .justFinished: return [.after, .when, .none]
        }
    }

    /// "about to" or "just finished".
    public var phrase: String {
        switch self {
        case .aboutTo: return "about to"
        case .justFinished: return "just finished"
        }
    }
}

/// A reusable situation that todos are tied to ("go to Eastern branch", "come back from work").
public struct TriggerEvent: Codable, Sendable, Hashable, Identifiable {
    /// An event's identifier in its store.
    public typealias ID = RecordID<TriggerEvent>
    /// The event's number.
    public var id: ID
    /// The phrase, as the user typed it.
    public var name: String
    /// Other phrases that mean the same event.
    public var aliases: [String]
    /// Archived events are hidden from listings and check-ins but keep their history.
    public var isArchived: Bool
    /// When the event was first used.
    public var createdAt: Date
}

/// A small errand: what a list shows of it (its ``TodoSummary``: number, text, event, preposition,
/// deadline, status and bundle, read and written as the todo's own, `todo.text`), with its uuid,
/// notes, times and other tools' fields.
@dynamicMemberLookup
public struct Todo: Codable, Sendable, Hashable, Identifiable {
    /// A todo's identifier in its store.
    public typealias ID = RecordID<Todo>
    /// What a list shows of this todo.
    public var summary: TodoSummary
    /// The interchange identifier (Taskwarrior `uuid`, iCalendar `UID`, todo.txt `id:`).
    public var uuid: UUID
    /// Free notes.
    public var notes: String
    /// When it was written down.
    public var createdAt: Date
    /// When it last changed.
    public var modifiedAt: Date
    /// When it was done or dropped.
    public var completedAt: Date?
    /// Fields of other tools (Taskwarrior user-defined attributes, …) kept through import and export.
    public var foreignFields: [String: JSONValue]

    /// A short number, stable for the todo's life.
    public var id: ID {
        get { summary.id }
        set { summary.id = newValue }
    }

    /// The summary's fields, as the todo's own.
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<TodoSummary, T>) -> T {
        get { summary[keyPath: keyPath] }
        set { summary[keyPath: keyPath] = newValue }
    }

    init(id: ID, uuid: UUID, text: String, eventID: TriggerEvent.ID?, eventName: String?, preposition: Preposition, deadline: Deadline?,
         status: TodoStatus, bundleID: TodoBundle.ID?, notes: String, createdAt: Date, modifiedAt: Date, completedAt: Date?,
         foreignFields: [String: JSONValue]) {
        summary = TodoSummary(id: id, text: text, eventID: eventID, eventName: eventName, preposition: preposition, deadline: deadline,
                              status: status, bundleID: bundleID)
        self.uuid = uuid; self.notes = notes; self.createdAt = createdAt; self.modifiedAt = modifiedAt
        self.completedAt = completedAt; self.foreignFields = foreignFields
    }

    private enum CodingKeys: String, CodingKey {
        case uuid, notes, createdAt, modifiedAt, completedAt, foreignFields
    }

    /// One flat object: the summary's fields beside the todo's own.
    public init(from decoder: any Decoder) throws {
        summary = try TodoSummary(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decode(UUID.self, forKey: .uuid)
        notes = try c.decode(String.self, forKey: .notes)
        createdAt = try c.decode(Date.self, forKey: .createdAt)
        modifiedAt = try c.decode(Date.self, forKey: .modifiedAt)
        completedAt = try c.decodeIfPresent(Date.self, forKey: .completedAt)
        foreignFields = try c.decode([String: JSONValue].self, forKey: .foreignFields)
    }

    public func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid, forKey: .uuid)
        try c.encode(notes, forKey: .notes)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(modifiedAt, forKey: .modifiedAt)
        try c.encodeIfPresent(completedAt, forKey: .completedAt)
        try c.encode(foreignFields, forKey: .foreignFields)
    }

    /// True when the deadline has passed at `now`.
    public func isOverdue(at now: Date, timeZone: TimeZone) -> Bool {
        summary.isOverdue(at: now, timeZone: timeZone)
    }

    static func isOverdue(_ deadline: Deadline?, status: TodoStatus, at now: Date, timeZone: TimeZone) -> Bool {
        guard let deadline, status.isOpen else { return false }
        return deadline.hasPassed(at: now, in: timeZone)
    }
}

/// What a list of todos shows of each: a ``Todo`` without its uuid, notes, times and other
/// tools' fields. ``BundleStore/todoSummaries(event:includeFinished:)`` reads thousands of these
/// in the time a few hundred whole todos take.
public struct TodoSummary: Codable, Sendable, Hashable, Identifiable {
    /// The todo's identifier in its store.
    public var id: Todo.ID
    /// What to do.
    public var text: String
    /// The trigger event, when tied to one.
    public var eventID: TriggerEvent.ID?
    /// The trigger event's name, when tied to one.
    public var eventName: String?
    /// Before, after, when, or none.
    public var preposition: Preposition
    /// An optional deadline.
    public var deadline: Deadline?
    /// Where it stands.
    public var status: TodoStatus
    /// The open bundle holding it, while it is in one.
    public var bundleID: TodoBundle.ID?

    /// A summary from its fields.
    public init(id: Todo.ID, text: String, eventID: TriggerEvent.ID?, eventName: String?, preposition: Preposition,
                deadline: Deadline?, status: TodoStatus, bundleID: TodoBundle.ID?) {
        self.id = id
        self.text = text
        self.eventID = eventID
        self.eventName = eventName
        self.preposition = preposition
        self.deadline = deadline
        self.status = status
        self.bundleID = bundleID
    }

    /// True when the deadline has passed at `now`.
    public func isOverdue(at now: Date, timeZone: TimeZone) -> Bool {
        Todo.isOverdue(deadline, status: status, at: now, timeZone: timeZone)
    }
}

/// What became of a todo in a bundle.
public enum BundleItemOutcome: String, Codable, Sendable, Hashable {
    /// Still to do in this run.
    case open
    /// Done in this run.
    case done
    /// Thrown back into the pile.
    case thrownBack = "thrown-back"
}

/// Where a bundle stands.
public enum BundleStatus: String, Codable, Sendable, Hashable {
    case open, completed, abandoned
}

/// One todo in a bundle.
public struct BundleItem: Codable, Sendable, Hashable {
    /// The todo as it is now.
    public var todo: Todo
    /// What became of it in this bundle.
    public var outcome: BundleItemOutcome
    /// The other bundle the todo is in now, while it is still open here: it was checked in on
    /// two devices at once, and synced. It shows under that bundle and as "also in" this one;
    /// throwing it back here leaves it there.
    public var alsoIn: TodoBundle.ID?

    /// Creates an item.
    public init(todo: Todo, outcome: BundleItemOutcome, alsoIn: TodoBundle.ID? = nil) {
        self.todo = todo
        self.outcome = outcome
        self.alsoIn = alsoIn
    }
}

/// A check-in run: the todos chosen to do this time.
public struct TodoBundle: Codable, Sendable, Hashable, Identifiable {
    /// A bundle's identifier in its store.
    public typealias ID = RecordID<TodoBundle>
    /// A short number, stable for the bundle's life.
    public var id: ID
    /// The interchange identifier.
    public var uuid: UUID
    /// An editable title.
    public var title: String
    /// An emoji or short symbol.
    public var icon: String
    /// The event checked in to.
    public var eventID: TriggerEvent.ID
    /// The event's name.
    public var eventName: String
    /// About to, or just finished.
    public var direction: CheckInDirection
    /// Open, completed or abandoned.
    public var status: BundleStatus
    /// When the check-in happened.
    public var createdAt: Date
    /// When it was completed or abandoned.
    public var finishedAt: Date?
    /// The todos, in the order they were added.
    public var items: [BundleItem]

    /// True when no todo is still open, so the bundle may be completed.
    public var canComplete: Bool { !items.contains { $0.outcome == .open } }
}

/// How often and when an event was checked in.
public struct EventActivity: Codable, Sendable, Hashable {
    /// The event.
    public var event: TriggerEvent
    /// Check-ins (bundles) made for it.
    public var checkIns: Int
    /// Of those, completed.
    public var completed: Int
    /// The latest check-in.
    public var lastCheckIn: Date?
    /// Pending todos tied to it.
    public var pendingTodos: Int
}
