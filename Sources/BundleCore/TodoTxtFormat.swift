import Foundation
import SuiteMarkup
import SuiteStorage

/// todo.txt: one todo a line. Our fields travel as `@event` (spaces as `-`, with `%2D` for a
/// real `-` and `%25` for `%`), `prep:`, `due:`, `id:`, `bundle:` and `note:` (percent-encoded);
/// a text that plain words cannot carry exactly (line breaks, tabs, runs of spaces, words like
/// `due:x`, `t:x` or `@x`, a leading `(A)`) also travels percent-encoded in `text:`, and its
/// readable words have those made inert, so that no todo.txt tool takes them for a threshold,
/// recurrence, priority or hidden flag.
/// Dropped todos are left out, as todo.txt removes them.
enum TodoTxtFormat {
    /// One todo's line with its line feed; nothing for a dropped todo (todo.txt has no place for it).
    static func item(_ todo: InterchangeTodo, timeZone: TimeZone) -> Data {
        guard todo.status != .dropped else { return Data() }
        var parts: [String] = []
        if todo.status == .done {
            parts += ["x", day(todo.completedAt ?? todo.modifiedAt, timeZone)]
        }
        parts.append(day(todo.createdAt, timeZone))
        let plain = isPlain(todo.text)
        parts.append(plain ? todo.text : readable(todo.text))
        if let event = todo.eventName { parts.append("@" + slug(event)) }
        parts.append("prep:\(todo.preposition.rawValue)")
        if let deadline = todo.deadline { parts.append("due:\(deadline.description)") }
        if let bundle = todo.bundleUUID { parts.append("bundle:\(bundle.uuidString.lowercased())") }
        if !todo.notes.isEmpty { parts.append("note:\(encode(todo.notes))") }
        if !plain { parts.append("text:\(encode(todo.text))") }
        parts.append("id:\(todo.uuid.uuidString.lowercased())")
        return Data((parts.joined(separator: " ") + "\n").utf8)
    }

    static func decode(_ data: Data, timeZone: TimeZone, now: Date) throws(BundleError) -> [InterchangeTodo] {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .malformedImport(format: "todo.txt", line: nil, reason: "not valid UTF-8")
        }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw .malformedImport(format: "todo.txt", line: nil, reason: "the file is empty")
        }
        var todos: [InterchangeTodo] = []
        for (index, raw) in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            todos.append(try parse(line, number: index + 1, timeZone: timeZone, now: now))
        }
        return todos
    }

    /// Reads todo.txt line by line: one todo per non-blank line.
    struct Reader {
        private var lines: LineStream
        private let timeZone: TimeZone
        private let now: Date
        private var any = false

        init(_ lines: LineStream, timeZone: TimeZone, now: Date) {
            self.lines = lines
            self.timeZone = timeZone
            self.now = now
        }

        /// The next todo; nil at the end.
        ///
        /// - Throws: ``BundleError/malformedImport(format:line:reason:)`` naming the line; a file
        ///   with no todo at all is refused as empty.
        mutating func next() throws(BundleError) -> InterchangeTodo? {
            while true {
                let next: (text: String, number: Int)?
                do { next = try lines.next() } catch {
                    throw .malformedImport(format: "todo.txt", line: error.described.line, reason: error.described.reason)
                }
                guard let (text, number) = next else {
                    if !any { throw .malformedImport(format: "todo.txt", line: nil, reason: "the file is empty") }
                    return nil
                }
                let line = text.trimmingCharacters(in: .whitespaces)
                if line.isEmpty { continue }
                any = true
                return try TodoTxtFormat.parse(line, number: number, timeZone: timeZone, now: now)
            }
        }
    }

    static func parse(_ line: String, number: Int, timeZone: TimeZone, now: Date) throws(BundleError) -> InterchangeTodo {
        func fail(_ reason: String) -> BundleError { .malformedImport(format: "todo.txt", line: number, reason: reason) }
        var tokens = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var done = false
        var completed: Date?
        var created: Date?
        if tokens.first == "x" {
            done = true
            tokens.removeFirst()
            if let first = tokens.first, let date = date(first, timeZone) { completed = date; tokens.removeFirst() }
        }
        var foreign: [String: JSONValue] = [:]
        if let first = tokens.first, first.count == 3, first.hasPrefix("("), first.hasSuffix(")"),
           let letter = first.dropFirst().first, letter.isUppercase, letter.isASCII {
            foreign["priority"] = .string(String(letter))
            tokens.removeFirst()
        }
        if let first = tokens.first, first.count == 10, first.first?.isNumber == true {
            guard let date = date(first, timeZone) else { throw fail("'\(first)' is not a real date") }
            created = date
            tokens.removeFirst()
        }
        var words: [String] = []
        var event: String?
        var preposition: Preposition?
        var deadline: Deadline?
        var bundle: UUID?
        var notes = ""
        var exactText: String?
        var uuid: UUID?
        for token in tokens {
            if token.hasPrefix("@"), token.count > 1, event == nil {
                event = unslug(String(token.dropFirst()))
                continue
            }
            if let colon = token.firstIndex(of: ":"), colon != token.startIndex, !token.hasPrefix("http") {
                let key = String(token[..<colon]), value = String(token[token.index(after: colon)...])
                switch key {
                case "prep":
                    guard let parsed = Preposition(rawValue: value) else { throw fail("prep:\(value) must be before, after, when or none") }
                    preposition = parsed
                    continue
                case "due":
                    do { deadline = try Deadline.parse(value, timeZone: timeZone) } catch { throw fail("due:\(value) is not a date") }
                    continue
                case "id":
                    guard let parsed = UUID(uuidString: value) else { throw fail("id:\(value) is not a UUID") }
                    uuid = parsed
                    continue
                case "bundle":
                    guard let parsed = UUID(uuidString: value) else { throw fail("bundle:\(value) is not a UUID") }
                    bundle = parsed
                    continue
                case "note":
                    notes = value.removingPercentEncoding ?? value
                    continue
                case "text":
                    exactText = value.removingPercentEncoding ?? value
                    continue
                default:
                    break
                }
            }
            words.append(token)
        }
        // `text:` carries the exact text when the words could not (see `isPlain`); the words
        // before it are then a readable copy for other todo.txt tools.
        let text = exactText ?? words.joined(separator: " ")
        guard !text.isEmpty else { throw fail("the line has no text") }
        let status: TodoStatus = done ? .done : (bundle != nil ? .inBundle : .pending)
        let createdAt = created ?? completed ?? now
        return InterchangeTodo(
            uuid: uuid ?? stableUUID(for: line), text: text, eventName: event,
            preposition: event == nil ? .none : (preposition ?? .none), deadline: deadline, status: status, bundleUUID: bundle,
            notes: notes, createdAt: createdAt, modifiedAt: completed ?? createdAt, completedAt: done ? (completed ?? createdAt) : nil,
            foreignFields: foreign)
    }

    /// A line without `id:` gets an id derived from its text, so importing the same file twice
    /// updates rather than duplicates.
    static func stableUUID(for line: String) -> UUID {
        var hash: (UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4)
        for byte in line.utf8 {
            hash.0 = (hash.0 ^ UInt64(byte)) &* 0x100_0000_01b3
            hash.1 = (hash.1 ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 0x9e37_79b9
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: hash.0 >> (8 * index))
            bytes[index + 8] = UInt8(truncatingIfNeeded: hash.1 >> (8 * index))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    static func day(_ date: Date, _ timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    static func date(_ text: String, _ timeZone: TimeZone) -> Date? {
        guard text.count == 10, case .day(let year, let month, let day)? = try? Deadline.parse(text, timeZone: timeZone) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: year, month: month, day: day))
    }

    /// The keys this format reads as metadata (`key:value`).
    static let keys: Set<Substring> = ["prep", "due", "id", "bundle", "note", "text"]

    /// URL schemes: `https://…` stays a readable word (todo.txt tools take these for links, not
    /// for `key:value` pairs).
    static let linkSchemes: Set<String> = ["http", "https", "mailto", "ssh", "ftp", "file"]

    /// Whether a word of a todo's text would be read as metadata, by us or by another todo.txt
    /// tool: an `@context` (our event), one of our `key:value` pairs, or any other `key:value`
    /// of todo.txt's add-on syntax (`t:`, `rec:`, `pri:`, `h:` … which tools act on), not a link.
    /// `first` is the text's first word, which must not look like a `(A)` priority either.
    static func isMetadataLike(_ word: Substring, first: Bool = false) -> Bool {
        if word.hasPrefix("@") && word.count > 1 { return true }
        if first && isPriority(word) { return true }
        guard let colon = word.firstIndex(of: ":"), colon != word.startIndex else { return false }
        let key = word[..<colon]
        if keys.contains(key) { return true }
        return word.index(after: colon) != word.endIndex && !linkSchemes.contains(key.lowercased())
    }

    /// `(A)` … `(Z)`: todo.txt's priority.
    static func isPriority(_ word: Substring) -> Bool {
        word.count == 3 && word.hasPrefix("(") && word.hasSuffix(")") && word.dropFirst().first.map { $0.isASCII && $0.isUppercase } == true
    }

    /// Whether the text reads back as itself when written as plain words: one line, single spaces,
    /// no word that looks like metadata.
    static func isPlain(_ text: String) -> Bool {
        guard !text.isEmpty, !text.hasPrefix(" "), !text.hasSuffix(" "), !text.contains("  ") else { return false }
        guard !text.unicodeScalars.contains(where: { ($0.properties.isWhitespace && $0 != " ") || $0.properties.generalCategory == .control }) else {
            return false
        }
        return !text.split(separator: " ").enumerated().contains { isMetadataLike($0.element, first: $0.offset == 0) }
    }

    /// The text's words for other tools, with metadata-like words made inert (`@x` → `%40x`,
    /// `due:x` → `due%3Ax`, `t:x` → `t%3Ax`, a leading `(A)` → `%28A%29`); the exact text
    /// travels in `text:`.
    static func readable(_ text: String) -> String {
        Markup.plain(text).split(whereSeparator: { $0.isWhitespace }).enumerated().map { index, word -> String in
            guard isMetadataLike(word, first: index == 0) else { return String(word) }
            if word.hasPrefix("@") { return "%40" + word.dropFirst() }
            if index == 0 && isPriority(word) { return "%28" + word.dropFirst().dropLast() + "%29" }
            return word.replacingOccurrences(of: ":", with: "%3A")
        }.joined(separator: " ")
    }

    static func slug(_ name: String) -> String {
        var result = ""
        for character in name {
            switch character {
            case "%": result += "%25"
            case "-": result += "%2D"
            case " ": result += "-"
            case _ where character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }):
                result += String(character).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            case _ where character.isWhitespace:
                // Other white space (no-break, ideographic …) is percent-encoded: unslug gives it back.
                result += String(character).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "-"
            default: result.append(character)
            }
        }
        return result
    }

    static func unslug(_ slug: String) -> String {
        let spaced = slug.replacingOccurrences(of: "-", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: " %&+=:\n")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
