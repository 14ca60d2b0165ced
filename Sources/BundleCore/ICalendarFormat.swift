import Foundation
import SuiteStorage

/// iCalendar (RFC 5545) VTODO: escaped text values, lines folded at 75 octets with CRLF and a
/// space. Our fields travel as `X-BUNDLE-EVENT` (and `CATEGORIES`), `X-BUNDLE-PREPOSITION` and
/// `RELATED-TO;RELTYPE=PARENT`.
enum ICalendarFormat {
    /// A calendar written a VTODO at a time: the start, each ``item(_:stamp:)``, the end.
    static let start = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Suite//suite bundle//EN"].map { $0 + "\r\n" }.joined()
    static let end = "END:VCALENDAR\r\n"

    /// One VTODO, its lines folded and each ended by CRLF.
    static func item(_ todo: InterchangeTodo, stamp: Date) -> Data {
        var lines = ["BEGIN:VTODO"]
        if case .string(let uid)? = todo.foreignFields[ICalendarReading.foreignUIDKey] {
            lines.append("UID:\(escape(uid))")  // the UID it came with, which was not a UUID
        } else {
            lines.append("UID:\(todo.uuid.uuidString.lowercased())")
        }
        lines.append("DTSTAMP:\(CompactTime.string(stamp))")
        lines.append("CREATED:\(CompactTime.string(todo.createdAt))")
        lines.append("LAST-MODIFIED:\(CompactTime.string(todo.modifiedAt))")
        lines.append("SUMMARY:\(escape(todo.text))")
        if !todo.notes.isEmpty { lines.append("DESCRIPTION:\(escape(todo.notes))") }
        let status: String
        switch todo.status {
        case .pending: status = "NEEDS-ACTION"
        case .inBundle: status = "IN-PROCESS"
        case .done: status = "COMPLETED"
        case .dropped: status = "CANCELLED"
        }
        lines.append("STATUS:\(status)")
        switch todo.deadline {
        case .day?: lines.append("DUE;VALUE=DATE:\(todo.deadline?.description.replacingOccurrences(of: "-", with: "") ?? "")")
        case .time(let date)?: lines.append("DUE:\(CompactTime.string(date))")
        case nil: break
        }
        if let completed = todo.completedAt {
            lines.append(todo.status == .done ? "COMPLETED:\(CompactTime.string(completed))" : "X-BUNDLE-ENDED:\(CompactTime.string(completed))")
        }
        if let event = todo.eventName {
            lines.append("CATEGORIES:\(escape(event))")
            // VALUE=TEXT: readers that do not know the property still unescape it as text.
            lines.append("X-BUNDLE-EVENT;VALUE=TEXT:\(escape(event))")
        }
        lines.append("X-BUNDLE-PREPOSITION:\(todo.preposition.rawValue)")
        if let bundle = todo.bundleUUID { lines.append("RELATED-TO;RELTYPE=PARENT:\(bundle.uuidString.lowercased())") }
        // Links and file copies as ATTACH (a URI value; the store checked it holds no
        // control character or space).
        for uri in todo.attachments { lines.append("ATTACH:\(uri)") }
        lines.append("END:VTODO")
        return Data(lines.map { fold($0) + "\r\n" }.joined().utf8)
    }

    /// RFC 5545 TEXT: backslash, semicolon and comma escaped; every line break (LF, CR, CRLF,
    /// U+2028, U+2029, NEL, VT, FF) as `\n`, so no reader that splits lines on any of them sees a
    /// property that is not there; other control characters, which TEXT does not allow, dropped.
    static func escape(_ text: String) -> String {
        var result = ""
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n" where afterCR: continue
            case "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}": result += "\\n"
            case "\t": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func unescape(_ text: String) -> String {
        var result = ""
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else { result.append(character); continue }
            switch iterator.next() {
            case "n"?, "N"?: result += "\n"
            case let next?: result.append(next)
            case nil: result += "\\"
            }
        }
        return result
    }

    /// Folds a content line at 75 octets without splitting a UTF-8 sequence.
    static func fold(_ line: String) -> String {
        var output = String.UnicodeScalarView()
        var count = 0
        for scalar in line.unicodeScalars {
            // By scalar, not by character: one grapheme cluster can be longer than a line.
            let size = UTF8.width(scalar)
            if count + size > 75 {
                output.append(contentsOf: "\r\n ".unicodeScalars)
                count = 1
            }
            output.append(scalar)
            count += size
        }
        return String(output)
    }

    struct Property {
        var name: String
        var parameters: [String: String]
        var value: String
        var line: Int
    }

    /// The todos of a file; floating times are read in `timeZone`.
    static func decode(_ data: Data, timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current) throws(BundleError) -> [InterchangeTodo] {
        try decodeReporting(data, timeZone: timeZone).todos
    }

    /// Reads every VTODO of a file, as RFC 5545 allows it to be written (times in UTC, with a
    /// `TZID` or floating, read in `timeZone`; any UID), and says what it held that Suite has
    /// no place for (RRULE, VALARM, VEVENT …), which is not imported.
    static func decodeReporting(_ data: Data, timeZone: TimeZone) throws(BundleError) -> (todos: [InterchangeTodo], dropped: [String]) {
        var reader = TodoReader(LineStream(data: data), timeZone: timeZone)
        var todos: [InterchangeTodo] = []
        while let todo = try reader.next() { todos.append(todo) }
        return (todos, reader.dropped)
    }

    /// Reads an iCalendar document VTODO by VTODO from its lines: only the todo being read is
    /// in memory, so a file of any size is read in little. The whole document's structure
    /// (BEGIN:VCALENDAR first, END:VCALENDAR last, every component closed) is checked by the
    /// time ``next()`` returns nil.
    struct TodoReader {
        private var lines: LineStream
        private let timeZone: TimeZone
        /// The logical line being unfolded, and the physical line after it (read ahead).
        private var pending: (text: String, number: Int)?
        private var sawProperty = false
        private var last: (name: String, value: String, line: Int)?
        private var stack: [String] = []
        private var current: [Property] = []
        private var todoDrops: Set<String> = []
        private var dropping = ICalendarReading.Dropped()
        /// The first line that held only blanks before any content (an error unless the whole
        /// file is blank, which is "empty").
        private var blankLine: Int?

        init(_ lines: LineStream, timeZone: TimeZone) {
            self.lines = lines
            self.timeZone = timeZone
        }

        /// What the file held that was not imported (complete once ``next()`` returned nil).
        var dropped: [String] { dropping.descriptions }

        private func fail(_ line: Int?, _ reason: String) -> BundleError { .malformedImport(format: "iCalendar", line: line, reason: reason) }

        /// The next physical line.
        private mutating func physical() throws(BundleError) -> (text: String, number: Int)? {
            do {
                return try lines.next()
            } catch {
                throw fail(error.described.line, error.described.reason)
            }
        }

        /// The next logical line: a line break followed by a space or tab continues the line
        /// (across empty lines, which are skipped).
        private mutating func logical() throws(BundleError) -> (text: String, number: Int)? {
            var line = pending
            pending = nil
            while let next = try physical() {
                if let first = next.text.first, first == " " || first == "\t", line != nil {
                    line!.text += next.text.dropFirst()
                } else if !next.text.isEmpty {
                    if line == nil { line = next } else { pending = next; break }
                }
            }
            return line
        }

        /// The next todo, or nil at the end of a well-formed document.
        mutating func next() throws(BundleError) -> InterchangeTodo? {
            while let (text, number) = try logical() {
                if !sawProperty && text.allSatisfy(\.isWhitespace) {
                    if blankLine == nil { blankLine = number }
                    continue
                }
                if let blankLine { throw fail(blankLine, "no ':' in the content line") }
                let property = try ICalendarFormat.parse(text, number: number)
                if !sawProperty {
                    sawProperty = true
                    guard property.name == "BEGIN" && property.value.uppercased() == "VCALENDAR" else {
                        throw fail(property.line, "the file does not start with BEGIN:VCALENDAR")
                    }
                }
                last = (property.name, property.value, property.line)
                if property.name == "BEGIN" {
                    let component = property.value.uppercased()
                    if stack.contains("VTODO") {
                        todoDrops.insert(component)
                    } else if stack == ["VCALENDAR"], ICalendarReading.droppedComponents.contains(component) {
                        dropping.components[component, default: 0] += 1
                    }
                    stack.append(component)
                    if component == "VTODO" { current = []; todoDrops = [] }
                    continue
                }
                if property.name == "END" {
                    guard stack.last == property.value.uppercased() else {
                        throw fail(property.line, "END:\(property.value) does not close BEGIN:\(stack.last ?? "nothing")")
                    }
                    stack.removeLast()
                    if property.value.uppercased() == "VTODO" {
                        let todo = try ICalendarFormat.todo(current, timeZone: timeZone, dropped: &todoDrops, notes: &dropping.notes)
                        for name in todoDrops { dropping.inTodos[name, default: 0] += 1 }
                        current = []
                        return todo
                    }
                    continue
                }
                if stack.last == "VTODO" {
                    current.append(property)
                    if ICalendarReading.droppedProperties.contains(property.name) { todoDrops.insert(property.name) }
                }
            }
            guard sawProperty else { throw fail(nil, "the file is empty") }
            guard let last, last.name == "END" && last.value.uppercased() == "VCALENDAR" else {
                throw fail(last?.line, "the file does not end with END:VCALENDAR")
            }
            if !stack.isEmpty { throw fail(nil, "BEGIN:\(stack.last ?? "") is never closed") }
            return nil
        }
    }

    static func parse(_ line: String, number: Int) throws(BundleError) -> Property {
        var inQuotes = false
        var colon: String.Index?
        for index in line.indices {
            let character = line[index]
            if character == "\"" { inQuotes.toggle() }
            if character == ":" && !inQuotes { colon = index; break }
        }
        guard let colon else {
            throw .malformedImport(format: "iCalendar", line: number, reason: "no ':' in the content line")
        }
        let head = line[..<colon].split(separator: ";", omittingEmptySubsequences: false)
        guard let name = head.first, !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw .malformedImport(format: "iCalendar", line: number, reason: "invalid property name")
        }
        var parameters: [String: String] = [:]
        for parameter in head.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw .malformedImport(format: "iCalendar", line: number, reason: "invalid parameter '\(parameter)'") }
            parameters[pair[0].uppercased()] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return Property(name: name.uppercased(), parameters: parameters, value: String(line[line.index(after: colon)...]), line: number)
    }

    static func todo(
        _ properties: [Property], timeZone: TimeZone, dropped: inout Set<String>, notes: inout Set<String>
    ) throws(BundleError) -> InterchangeTodo {
        func fail(_ property: Property?, _ reason: String) -> BundleError {
            .malformedImport(format: "iCalendar", line: property?.line, reason: reason)
        }
        func first(_ name: String) -> Property? { properties.first { $0.name == name } }
        func time(_ name: String) throws(BundleError) -> Date? {
            guard let property = first(name) else { return nil }
            guard let read = ICalendarReading.dateTime(property.value, tzid: property.parameters["TZID"], timeZone: timeZone) else {
                throw fail(property, "\(name) '\(property.value)' is not a date-time like 20261121T093000Z, 20261121T093000 or TZID=Europe/Berlin:20261121T093000")
            }
            if let warning = read.warning { notes.insert(warning) }
            return read.date
        }
        guard let uidProperty = first("UID") else { throw fail(properties.first, "a VTODO has no UID") }
        // Any UID is allowed (RFC 5545: often "something@host"): one that is not a UUID gets a
        // stable UUID made from it and is kept, so that an export gives it back.
        let uid = unescape(uidProperty.value).trimmingCharacters(in: .whitespaces)
        guard !uid.isEmpty, uid.count <= 1_000, !uid.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw fail(uidProperty, "the UID is empty, longer than 1000 characters or holds control characters")
        }
        var foreignFields: [String: JSONValue] = [:]
        let uuid: UUID
        if let parsed = UUID(uuidString: uid) {
            uuid = parsed
        } else {
            uuid = ICalendarReading.uuid(forForeignUID: uid)
            foreignFields[ICalendarReading.foreignUIDKey] = .string(uid)
        }
        // A parent that is not a Suite bundle (any text is allowed there) is not one.
        let parent = properties.first { $0.name == "RELATED-TO" && ($0.parameters["RELTYPE"]?.uppercased() ?? "PARENT") == "PARENT" }
        let bundle = parent.flatMap { UUID(uuidString: $0.value) }
        if parent != nil && bundle == nil { dropped.insert("RELATED-TO (not a Suite bundle)") }
        let status: TodoStatus
        switch first("STATUS")?.value.uppercased() ?? "NEEDS-ACTION" {
        case "NEEDS-ACTION": status = .pending
        case "IN-PROCESS": status = bundle == nil ? .pending : .inBundle
        case "COMPLETED": status = .done
        case "CANCELLED": status = .dropped
        case let other: throw fail(first("STATUS"), "unknown STATUS '\(other)'")
        }
        var deadline: Deadline?
        if let due = first("DUE") {
            if due.parameters["VALUE"]?.uppercased() == "DATE" || (due.value.count == 8 && due.parameters["VALUE"] == nil) {
                let digits = due.value
                guard digits.count == 8, digits.allSatisfy(\.isNumber),
                      let parsed = try? Deadline.parse("\(digits.prefix(4))-\(digits.dropFirst(4).prefix(2))-\(digits.suffix(2))", timeZone: TimeZone(identifier: "UTC") ?? .current) else {
                    throw fail(due, "DUE;VALUE=DATE '\(due.value)' is not a date")
                }
                deadline = parsed
            } else {
                guard let read = ICalendarReading.dateTime(due.value, tzid: due.parameters["TZID"], timeZone: timeZone) else {
                    throw fail(due, "DUE '\(due.value)' is not a date-time like 20261201T170000Z, 20261201T170000 or TZID=Europe/Berlin:20261201T170000")
                }
                if let warning = read.warning { notes.insert(warning) }
                deadline = .time(read.date)
            }
        }
        let event = first("X-BUNDLE-EVENT").map { unescape($0.value) }
            ?? first("CATEGORIES").flatMap { splitList($0.value).first }
        var preposition = Preposition.none
        if let prep = first("X-BUNDLE-PREPOSITION") {
            guard let value = Preposition(rawValue: prep.value.lowercased()) else { throw fail(prep, "X-BUNDLE-PREPOSITION must be before, after, when or none") }
            preposition = value
        }
        if event == nil { preposition = .none }
        let createdProperty = try time("CREATED")
        let stampProperty = try time("DTSTAMP")
        let created = createdProperty ?? stampProperty ?? Date(timeIntervalSince1970: 0)
        let modified = try time("LAST-MODIFIED")
        let completed = try time("COMPLETED")
        let ended = try time("X-BUNDLE-ENDED")
        // Links (ATTACH as a URI, as Suite writes them) come back as links; inline files do not.
        var links: [String] = []
        for attach in properties where attach.name == "ATTACH" {
            if attach.parameters["VALUE"]?.uppercased() != "BINARY", let link = try? BundleStore.validatedLink(attach.value), link == attach.value {
                links.append(link)
            } else {
                dropped.insert("ATTACH (not a link)")
            }
        }
        return InterchangeTodo(
            uuid: uuid, text: unescape(first("SUMMARY")?.value ?? ""), eventName: event, preposition: preposition,
            deadline: deadline, status: status, bundleUUID: bundle, notes: unescape(first("DESCRIPTION")?.value ?? ""),
            createdAt: created, modifiedAt: modified ?? created,
            completedAt: completed ?? ended, foreignFields: foreignFields, attachments: links)
    }

    /// Splits a comma-separated list value, honouring escaped commas.
    static func splitList(_ value: String) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped { current.append("\\"); current.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; continue }
            if character == "," { items.append(unescape(current)); current = ""; continue }
            current.append(character)
        }
        items.append(unescape(current))
        return items.filter { !$0.isEmpty }
    }
}
