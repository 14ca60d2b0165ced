import Foundation

/// The file formats todos travel in.
public enum InterchangeFormat: String, Sendable, CaseIterable, Codable {
    /// Taskwarrior's `task export` / `task import` JSON.
    case taskwarrior
    /// iCalendar (RFC 5545) VTODO.
    case ics
    /// todo.txt.
    case todotxt
    /// Suite's own JSON (`"schema": "suite-bundle/1"`), which keeps the todo list whole: events
    /// with aliases, todos, bundles with their items. Links and files on todos, routines and
    /// calendar times are not in it (a backup of the store keeps those).
    case json

    /// The format of a file to import, told from its name and its first bytes: `.ics`/`.ical` is
    /// iCalendar, `.txt`/`.todotxt` is todo.txt; otherwise a calendar (`BEGIN:VCALENDAR`) is
    /// iCalendar, JSON naming the `suite-bundle/` schema (or starting with one of Suite JSON's
    /// keys) is Suite JSON, other JSON is Taskwarrior,
    /// and other non-empty text is todo.txt (one todo a line). Nil when nothing tells (no name to
    /// go by and no text).
    ///
    /// - Parameters:
    ///   - name: the file's name or path, if it has one.
    ///   - head: the file's first bytes (4 KiB are enough).
    public static func detect(name: String?, head: Data) -> InterchangeFormat? {
        let lower = (name ?? "").lowercased()
        if lower.hasSuffix(".ics") || lower.hasSuffix(".ical") { return .ics }
        if lower.hasSuffix(".txt") || lower.hasSuffix(".todotxt") { return .todotxt }
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        if text.contains("BEGIN:VCALENDAR") { return .ics }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // Suite JSON names its schema (another version is then reported as such); with many
        // events or bundles the name comes past the head, but its first key is one of its own
        // (written sorted: bundles, events, schema, todos), which no Taskwarrior task has.
        if trimmed.hasPrefix("{") && text.contains("\"suite-bundle/") { return .json }
        let firstKey = trimmed.dropFirst().drop { $0.isWhitespace }
        if trimmed.hasPrefix("{"), ["bundles", "events", "schema", "todos"].contains(where: { firstKey.hasPrefix("\"\($0)\"") }) { return .json }
        if trimmed.hasPrefix("[") || trimmed.hasPrefix("{") { return .taskwarrior }
        if !trimmed.isEmpty { return .todotxt }
        return nil
    }
}

extension InterchangeFormat {
    /// The format's name in messages ("iCalendar").
    var displayName: String {
        switch self {
        case .taskwarrior: "Taskwarrior JSON"
        case .ics: "iCalendar"
        case .todotxt: "todo.txt"
        case .json: "Suite JSON"
        }
    }
}

/// What an import did.
public struct ImportSummary: Sendable, Hashable, Codable {
    /// Todos that were new.
    public var created: Int
    /// Todos that existed (same id) and that the file changed.
    public var updated: Int
    /// Todos that existed and that the file left as they were (re-importing an unchanged file).
    public var unchanged: Int = 0
    /// Trigger events created on the way.
    public var eventsCreated: Int
    /// Bundles created or updated.
    public var bundles: Int
    /// What the file held that Suite has no place for, and so did not import, one entry per
    /// kind ("RRULE in 2 todos", "VALARM in 1 todo"); empty when nothing was left out.
    public var dropped: [String] = []
}

/// A todo as files carry it, before it is applied to a store.
struct InterchangeTodo: Sendable, Hashable {
    var uuid: UUID
    var text: String
    var eventName: String?
    var preposition: Preposition
    var deadline: Deadline?
    var status: TodoStatus
    var bundleUUID: UUID?
    var notes: String
    var createdAt: Date
    var modifiedAt: Date
    var completedAt: Date?
    var foreignFields: [String: JSONValue]
    /// Links and file copies (as `file:` URLs) on the todo, for the formats that carry them.
    var attachments: [String] = []
}

/// A bundle as Suite's own JSON carries it.
struct InterchangeBundle: Sendable, Hashable, Codable {
    var uuid: UUID
    var title: String
    var icon: String
    var event: String
    var direction: CheckInDirection
    var status: BundleStatus
    var createdAt: Date
    var finishedAt: Date?
    var items: [Item]

    struct Item: Sendable, Hashable, Codable {
        var todo: UUID
        var outcome: BundleItemOutcome
    }
}

/// An event as Suite's own JSON carries it.
struct InterchangeEvent: Sendable, Hashable, Codable {
    var name: String
    var aliases: [String]
    var archived: Bool
    var createdAt: Date
}

/// Everything one file holds.
struct InterchangeDocument: Sendable, Hashable {
    var events: [InterchangeEvent] = []
    var todos: [InterchangeTodo] = []
    var bundles: [InterchangeBundle] = []
}

/// Compact UTC timestamps (`20261121T054948Z`) as Taskwarrior and iCalendar write them.
enum CompactTime {
    static func string(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// `20261121T054948Z`, in UTC.
    static func date(_ text: String) -> Date? {
        guard text.utf8.count == 16, text.hasSuffix("Z") else { return nil }
        return date(String(text.dropLast()), in: TimeZone(identifier: "UTC") ?? .current)
    }

    /// `20261121T054948` (no zone), as a local time in `zone`; a leap second reads as :59.
    static func date(_ text: String, in zone: TimeZone) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 15, bytes[8] == UInt8(ascii: "T"), bytes.allSatisfy({ $0 == UInt8(ascii: "T") || (48...57).contains($0) }) else {
            return nil
        }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: bytes[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
              let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
              (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else {
            return nil
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: min(second, 59))),
              calendar.component(.day, from: date) == day else { return nil }
        return date
    }
}

/// Whole seconds: the precision the interchange formats keep.
extension Date {
    var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}

/// Pretty-printed JSON of a value nested in a document, indented as the encoder indents it in the
/// whole document: every line after the first gets `indent`, but for the blank line an empty
/// array or object holds.
func indentedJSON(_ text: String, by indent: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        .map { $0.offset == 0 || $0.element.isEmpty ? String($0.element) : indent + $0.element }
        .joined(separator: "\n")
}
