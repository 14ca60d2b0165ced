import Foundation
import SuiteStorage

/// Taskwarrior JSON: an array of task objects (`task export`); import also takes one object or
/// JSON lines. Our fields travel as the UDAs `bundle_event`, `bundle_prep`, `bundle_id` and
/// `bundle_due_date` (for a deadline that is a whole day); unknown fields are kept.
enum TaskwarriorFormat {
    /// Fields this format reads into our model; everything else is kept as it came.
    static let ownFields: Set<String> = [
        "uuid", "description", "status", "entry", "modified", "end", "start", "due", "annotations",
        "bundle_event", "bundle_prep", "bundle_id", "bundle_due_date", "bundle_links", "id", "urgency",
    ]

    /// `task export`'s array, written a task at a time: the start, each ``item(_:first:timeZone:)``, the end.
    static let arrayStart = "[\n"
    static let arrayEnd = "\n]\n"

    /// One task of the array (after a comma unless `first`), as a pretty-printing encoder indents it.
    static func item(_ todo: InterchangeTodo, first: Bool, timeZone: TimeZone) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: (try? encoder.encode(object(todo, timeZone: timeZone))) ?? Data("{}".utf8), as: UTF8.self)
        return Data(((first ? "  " : ",\n  ") + indentedJSON(text, by: "  ")).utf8)
    }

    /// One task as Taskwarrior's JSON object.
    static func object(_ todo: InterchangeTodo, timeZone: TimeZone) -> JSONValue {
        var object = todo.foreignFields
        object["uuid"] = .string(todo.uuid.uuidString.lowercased())
        object["description"] = .string(todo.text)
        object["entry"] = .string(CompactTime.string(todo.createdAt))
        object["modified"] = .string(CompactTime.string(todo.modifiedAt))
        switch todo.status {
        case .pending: object["status"] = .string("pending")
        case .inBundle:
            object["status"] = .string("pending")
            object["start"] = .string(CompactTime.string(todo.modifiedAt))
        case .done: object["status"] = .string("completed")
        case .dropped: object["status"] = .string("deleted")
        }
        if todo.status == .done || todo.status == .dropped {
            object["end"] = .string(CompactTime.string(todo.completedAt ?? todo.modifiedAt))
        }
        if let deadline = todo.deadline {
            switch deadline {
            case .time(let date):
                object["due"] = .string(CompactTime.string(date))
            case .day(let year, let month, let day):
                // Taskwarrior reads a day as its local midnight.
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = timeZone
                let midnight = calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? Date()
                object["due"] = .string(CompactTime.string(midnight))
                object["bundle_due_date"] = .string(deadline.description)
            }
        }
        if let event = todo.eventName { object["bundle_event"] = .string(event) }
        object["bundle_prep"] = .string(todo.preposition.rawValue)
        if let bundle = todo.bundleUUID { object["bundle_id"] = .string(bundle.uuidString.lowercased()) }
        // Notes, then each link or file copy, as annotations (Taskwarrior's place for both).
        var annotations: [JSONValue] = []
        if !todo.notes.isEmpty {
            annotations.append(.object(["entry": .string(CompactTime.string(todo.modifiedAt)), "description": .string(todo.notes)]))
        }
        for uri in todo.attachments {
            annotations.append(.object(["entry": .string(CompactTime.string(todo.modifiedAt)), "description": .string(uri)]))
        }
        // The links again in a field of ours (space-separated: a link holds no space), so
        // that reading the file back tells them from notes that happen to be a URL.
        if !todo.attachments.isEmpty { object["bundle_links"] = .string(todo.attachments.joined(separator: " ")) }
        if !annotations.isEmpty { object["annotations"] = .array(annotations) }
        return .object(object)
    }

    static func decode(_ data: Data) throws(BundleError) -> [InterchangeTodo] {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .malformedImport(format: "Taskwarrior JSON", line: nil, reason: "not valid UTF-8")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { throw .malformedImport(format: "Taskwarrior JSON", line: nil, reason: "the file is empty") }
        var objects: [(line: Int?, value: [String: JSONValue])] = []
        let whole = try? JSONDecoder().decode(JSONValue.self, from: Data(trimmed.utf8))
        if trimmed.hasPrefix("[") || whole != nil {
            switch whole {
            case .array(let items)?:
                for (index, item) in items.enumerated() {
                    guard case .object(let object) = item else {
                        throw .malformedImport(format: "Taskwarrior JSON", line: nil, reason: "item \(index + 1) is not an object")
                    }
                    objects.append((nil, object))
                }
            case .object(let object)?:
                objects.append((nil, object))
            case nil:
                do {
                    _ = try JSONDecoder().decode(JSONValue.self, from: Data(trimmed.utf8))
                } catch {
                    throw .malformedImport(format: "Taskwarrior JSON", line: nil, reason: "invalid JSON (\(Self.describe(error)))")
                }
            default:
                throw .malformedImport(format: "Taskwarrior JSON", line: nil, reason: "expected an array of tasks")
            }
        } else {
            // JSON lines: one task object a line.
            for (index, line) in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = line.trimmingCharacters(in: .whitespaces)
                if line.isEmpty { continue }
                guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)) else {
                    throw .malformedImport(format: "Taskwarrior JSON", line: index + 1, reason: "not a JSON object")
                }
                objects.append((index + 1, object))
            }
        }
        var todos: [InterchangeTodo] = []
        for (index, entry) in objects.enumerated() {
            todos.append(try task(entry.value, line: entry.line, index: index))
        }
        return todos
    }

    /// Whether `head` (a file's first bytes) starts a JSON array, as `task export` writes: such a
    /// file is read task by task (``ArrayReader``).
    static func isArray(_ head: some Collection<UInt8>) -> Bool {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "[")
    }

    /// Reads a Taskwarrior array task by task, so a file of any size is read in little memory.
    struct ArrayReader {
        private var stream: JSONArrayStream
        private var index = 0

        init(_ stream: JSONArrayStream) { self.stream = stream }

        /// The next task; nil after the last (once the whole document was checked).
        mutating func next() throws(BundleError) -> InterchangeTodo? {
            let bytes: Data?
            do { bytes = try stream.next() } catch {
                let reason = switch error {
                case .invalidJSON(let where_): "invalid JSON (\(where_))"
                case .notUTF8: "not valid UTF-8"
                case .noArray: "expected an array of tasks"
                case .unreadable: "cannot be read"
                }
                throw .malformedImport(format: "Taskwarrior JSON", line: nil, reason: reason)
            }
            guard let bytes else { return nil }
            index += 1
            let value = JSONValue.parse(bytes) ?? (try? JSONDecoder().decode(JSONValue.self, from: bytes))
            guard case .object(let object)? = value else {
                throw .malformedImport(format: "Taskwarrior JSON", line: nil, reason: "item \(index) is not an object")
            }
            return try TaskwarriorFormat.task(object, line: nil, index: index - 1)
        }
    }

    /// Whether the first line that is not blank is a whole JSON object: then the input is JSON
    /// lines, read line by line (``LinesReader``). A single task written over several lines is not.
    static func startsWithObjectLine(_ lines: LineStream) -> Bool {
        var lines = lines
        while let line = try? lines.next() {
            let text = line.text.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if case .object? = JSONValue.parse(text.utf8) { return true }
            if case .object? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) { return true }
            return false
        }
        return false
    }

    /// Reads Taskwarrior JSON lines (one task object a line) line by line, so a file of any size
    /// is read in little memory.
    struct LinesReader {
        private var lines: LineStream
        private var index = 0

        init(_ lines: LineStream) { self.lines = lines }

        /// The next task; nil after the last line.
        mutating func next() throws(BundleError) -> InterchangeTodo? {
            while true {
                let line: (text: String, number: Int)?
                do { line = try lines.next() } catch {
                    let problem = error.described
                    throw .malformedImport(format: "Taskwarrior JSON", line: problem.line, reason: problem.reason)
                }
                guard let line else { return nil }
                let text = line.text.trimmingCharacters(in: .whitespaces)
                if text.isEmpty { continue }
                let value = JSONValue.parse(text.utf8) ?? (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
                guard case .object(let object)? = value else {
                    throw .malformedImport(format: "Taskwarrior JSON", line: line.number, reason: "not a JSON object")
                }
                index += 1
                return try TaskwarriorFormat.task(object, line: line.number, index: index - 1)
            }
        }
    }

    private static func task(_ object: [String: JSONValue], line: Int?, index: Int) throws(BundleError) -> InterchangeTodo {
        func fail(_ reason: String) -> BundleError {
            .malformedImport(format: "Taskwarrior JSON", line: line, reason: "task \(index + 1): \(reason)")
        }
        func string(_ key: String) throws(BundleError) -> String? {
            guard let value = object[key] else { return nil }
            guard case .string(let text) = value else { throw fail("'\(key)' is not a string") }
            return text
        }
        func time(_ key: String) throws(BundleError) -> Date? {
            guard let text = try string(key) else { return nil }
            guard let date = CompactTime.date(text) else { throw fail("'\(key)' is not a time like 20261121T093000Z: '\(text)'") }
            return date
        }
        guard let uuidText = try string("uuid"), let uuid = UUID(uuidString: uuidText) else { throw fail("missing or invalid 'uuid'") }
        guard let description = try string("description") else { throw fail("missing 'description'") }
        guard let statusText = try string("status") else { throw fail("missing 'status'") }
        guard let entry = try time("entry") else { throw fail("missing 'entry'") }
        let start = try time("start")
        let bundleText = try string("bundle_id")
        let status: TodoStatus
        switch statusText {
        case "pending", "waiting", "recurring": status = (start != nil && bundleText != nil) ? .inBundle : .pending
        case "completed": status = .done
        case "deleted": status = .dropped
        default: throw fail("unknown status '\(statusText)'")
        }
        var deadline: Deadline?
        if let day = try string("bundle_due_date") {
            guard let parsed = Deadline.stored(day), case .day = parsed else { throw fail("'bundle_due_date' is not a day: '\(day)'") }
            deadline = parsed
        } else if let due = try time("due") {
            deadline = .time(due)
        }
        var preposition = Preposition.none
        if let prep = try string("bundle_prep") {
            guard let value = Preposition(rawValue: prep) else { throw fail("'bundle_prep' must be before, after, when or none") }
            preposition = value
        }
        let event = try string("bundle_event").flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        if event == nil { preposition = .none }
        var bundle: UUID?
        if let text = bundleText {
            guard let value = UUID(uuidString: text) else { throw fail("'bundle_id' is not a UUID") }
            bundle = value
        }
        // Links are the ones Suite wrote in `bundle_links` (each also an annotation, for people);
        // every other annotation is notes, a URL included.
        var links: [String] = []
        for link in try string("bundle_links")?.split(separator: " ") ?? [] {
            guard let checked = try? BundleStore.validatedLink(String(link)) else { throw fail("'bundle_links' holds '\(link.prefix(100))', which is not a link") }
            if !links.contains(checked) { links.append(checked) }
        }
        var notes: [String] = []
        if let annotations = object["annotations"] {
            guard case .array(let items) = annotations else { throw fail("'annotations' is not an array") }
            var linkAnnotations = Set(links)
            for item in items {
                guard case .object(let annotation) = item, case .string(let text)? = annotation["description"] else {
                    throw fail("an annotation has no description")
                }
                if linkAnnotations.remove(text) == nil { notes.append(text) }
            }
        }
        let modified = try time("modified") ?? entry
        return InterchangeTodo(
            uuid: uuid, text: description, eventName: event, preposition: preposition, deadline: deadline, status: status,
            bundleUUID: bundle, notes: notes.joined(separator: "\n"), createdAt: entry, modifiedAt: modified,
            completedAt: try time("end"), foreignFields: object.filter { !ownFields.contains($0.key) }, attachments: links)
    }

    static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError, case .dataCorrupted(let context) = decoding {
            return (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String ?? context.debugDescription
        }
        return "\(error)"
    }
}
