import Foundation
import SuiteStorage

/// Suite's own JSON (`"schema": "suite-bundle/1"`): events with aliases, todos with every
/// field, bundles with their items. Export, import into another store, and export again give
/// identical bytes.
enum SuiteJSONFormat {
    static let schema = "suite-bundle/1"

    struct File: Codable {
        var schema: String
        var events: [InterchangeEvent]
        var todos: [TodoRecord]
        var bundles: [InterchangeBundle]
    }

    struct TodoRecord: Codable {
        var uuid: UUID
        var text: String
        var event: String?
        var preposition: Preposition
        var deadline: Deadline?
        var status: TodoStatus
        var bundle: UUID?
        var notes: String
        var createdAt: Date
        var modifiedAt: Date
        var completedAt: Date?
        var foreignFields: [String: JSONValue]?

        var todo: InterchangeTodo {
            InterchangeTodo(uuid: uuid, text: text, eventName: event, preposition: event == nil ? .none : preposition,
                            deadline: deadline, status: status, bundleUUID: bundle, notes: notes,
                            createdAt: createdAt, modifiedAt: modifiedAt, completedAt: completedAt,
                            foreignFields: foreignFields ?? [:])
        }
    }

    /// A document written a todo at a time: the start (bundles, events and schema, in the order
    /// of sorted keys), each ``item(_:first:)``, the end; byte for byte what a pretty-printing
    /// encoder writes for the whole document.
    static func start(events: [InterchangeEvent], bundles: [InterchangeBundle]) -> Data {
        let encoder = makeEncoder()
        func member(_ value: some Encodable) -> String {
            indentedJSON(String(decoding: (try? encoder.encode(value)) ?? Data("[]".utf8), as: UTF8.self), by: "  ")
        }
        return Data(("{\n  \"bundles\" : \(member(bundles)),\n  \"events\" : \(member(events)),\n  \"schema\" : \"\(schema)\",\n  \"todos\" : [\n").utf8)
    }

    static let end = "\n  ]\n}\n"

    /// One todo of the document (after a comma unless `first`), indented as in the whole document.
    static func item(_ todo: InterchangeTodo, first: Bool) -> Data {
        let record = TodoRecord(uuid: todo.uuid, text: todo.text, event: todo.eventName, preposition: todo.preposition, deadline: todo.deadline,
                                status: todo.status, bundle: todo.bundleUUID, notes: todo.notes, createdAt: todo.createdAt,
                                modifiedAt: todo.modifiedAt, completedAt: todo.completedAt,
                                foreignFields: todo.foreignFields.isEmpty ? nil : todo.foreignFields)
        let text = String(decoding: (try? makeEncoder().encode(record)) ?? Data("{}".utf8), as: UTF8.self)
        return Data(((first ? "    " : ",\n    ") + indentedJSON(text, by: "    ")).utf8)
    }

    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }

    /// The decoder of Suite JSON: milliseconds since 1970, within the years 1 to 9999.
    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        // Milliseconds since 1970 as written, but only within the years 1 to 9999: a time beyond
        // ±2^63 ms would trap when stored, so it is a malformed file (exit 65) instead.
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let millis = try container.decode(Double.self)
            guard Millis(exactly: millis) != nil else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a time outside the years 1 to 9999")
            }
            return Date(timeIntervalSince1970: millis / 1000)
        }
        return decoder
    }

    static func decode(_ data: Data) throws(BundleError) -> InterchangeDocument {
        let decoder = makeDecoder()
        let file: File
        do {
            file = try decoder.decode(File.self, from: data)
        } catch {
            throw .malformedImport(format: "Suite JSON", line: nil, reason: describe(error))
        }
        guard file.schema == schema else {
            throw .malformedImport(format: "Suite JSON", line: nil, reason: "schema is '\(file.schema)', expected '\(schema)'")
        }
        return InterchangeDocument(events: file.events, todos: file.todos.map(\.todo), bundles: file.bundles)
    }

    /// Reads a Suite JSON document todo by todo, so that memory does not grow with its todos:
    /// the events and bundles come first (every file Suite writes has its keys sorted: bundles,
    /// events, schema, todos) and are kept, then the todos are read one at a time.
    struct StreamReader {
        private var stream: JSONArrayStream
        private var pending: Data?
        private var index = 0
        private let decoder = SuiteJSONFormat.makeDecoder()
        let events: [InterchangeEvent]
        let bundles: [InterchangeBundle]

        /// A reader of `stream` (whose array key is `todos`), or nil when the document is not in
        /// that order (its events, bundles or schema after the todos, or missing) or not well
        /// formed: it is then read whole, which says what is wrong as ``decode(_:)`` does.
        init?(_ stream: JSONArrayStream) throws(BundleError) {
            self.stream = stream
            do { pending = try self.stream.next() } catch { return nil }
            guard self.stream.arrayKey == "todos", let schemaBytes = self.stream.members["schema"],
                  let eventBytes = self.stream.members["events"], let bundleBytes = self.stream.members["bundles"],
                  let schema = try? decoder.decode(String.self, from: schemaBytes) else { return nil }
            guard schema == SuiteJSONFormat.schema else {
                throw .malformedImport(format: "Suite JSON", line: nil, reason: "schema is '\(schema)', expected '\(SuiteJSONFormat.schema)'")
            }
            guard let events = try? decoder.decode([InterchangeEvent].self, from: eventBytes),
                  let bundles = try? decoder.decode([InterchangeBundle].self, from: bundleBytes) else { return nil }
            self.events = events
            self.bundles = bundles
        }

        /// The next todo; nil after the last (once the whole document was checked).
        mutating func next() throws(BundleError) -> InterchangeTodo? {
            let bytes: Data?
            if let first = pending {
                bytes = first
                pending = nil
            } else {
                do { bytes = try stream.next() } catch {
                    let reason = switch error {
                    case .invalidJSON(let where_): "invalid JSON (\(where_))"
                    case .notUTF8: "not valid UTF-8"
                    case .noArray: "missing field 'todos'"
                    case .unreadable(let why): "cannot be read \(why)"
                    }
                    throw .malformedImport(format: "Suite JSON", line: nil, reason: reason)
                }
            }
            guard let bytes else { return nil }
            defer { index += 1 }
            // Our own parser, then the record's fields by hand: a sixth faster than JSONDecoder
            // over a long file (which still reads what our parser does not take).
            if let value = JSONValue.parse(bytes) { return try Self.todo(value, at: "todos[\(index)]") }
            do {
                return try decoder.decode(TodoRecord.self, from: bytes).todo
            } catch {
                throw .malformedImport(format: "Suite JSON", line: nil, reason: describe(error, at: "todos[\(index)]"))
            }
        }

        /// A todo record from its JSON, checked as `TodoRecord`'s decoding checks it, with the
        /// same descriptions of what is wrong.
        static func todo(_ value: JSONValue, at path: String) throws(BundleError) -> InterchangeTodo {
            func fail(_ reason: String) -> BundleError { .malformedImport(format: "Suite JSON", line: nil, reason: reason) }
            guard case .object(let object) = value else { throw fail("wrong type at \(path)") }
            func field(_ key: String, optional: Bool) throws(BundleError) -> JSONValue? {
                switch object[key] {
                case nil where optional, .null? where optional: return nil
                case nil: throw fail("missing field '\(key)' at \(path)")
                case .null?: throw fail("wrong type at \(path).\(key)")
                case let value?: return value
                }
            }
            func string(_ key: String, optional: Bool = false) throws(BundleError) -> String? {
                guard let value = try field(key, optional: optional) else { return nil }
                guard case .string(let text) = value else { throw fail("wrong type at \(path).\(key)") }
                return text
            }
            func parsed<T>(_ key: String, optional: Bool = false, _ make: (String) -> T?) throws(BundleError) -> T? {
                guard let text = try string(key, optional: optional) else { return nil }
                guard let made = make(text) else { throw fail("invalid value at \(path).\(key): '\(text.prefix(100))'") }
                return made
            }
            func date(_ key: String, optional: Bool = false) throws(BundleError) -> Date? {
                guard let value = try field(key, optional: optional) else { return nil }
                guard case .number(let millis) = value else { throw fail("wrong type at \(path).\(key)") }
                guard Millis(exactly: millis) != nil else { throw fail("invalid value at \(path).\(key): a time outside the years 1 to 9999") }
                return Date(timeIntervalSince1970: millis / 1000)
            }
            // A required field's reader returns a value or throws.
            func required<T>(_ value: T?, _ key: String) throws(BundleError) -> T {
                guard let value else { throw fail("missing field '\(key)' at \(path)") }
                return value
            }
            var foreign: [String: JSONValue] = [:]
            if let value = try field("foreignFields", optional: true) {
                guard case .object(let fields) = value else { throw fail("wrong type at \(path).foreignFields") }
                foreign = fields
            }
            let record = TodoRecord(
                uuid: try required(parsed("uuid", UUID.init(uuidString:)), "uuid"), text: try required(string("text"), "text"), event: try string("event", optional: true),
                preposition: try required(parsed("preposition", Preposition.init(rawValue:)), "preposition"), deadline: try parsed("deadline", optional: true, Deadline.stored),
                status: try required(parsed("status", TodoStatus.init(rawValue:)), "status"), bundle: try parsed("bundle", optional: true, UUID.init(uuidString:)),
                notes: try required(string("notes"), "notes"), createdAt: try required(date("createdAt"), "createdAt"),
                modifiedAt: try required(date("modifiedAt"), "modifiedAt"),
                completedAt: try date("completedAt", optional: true), foreignFields: foreign.isEmpty ? nil : foreign)
            return record.todo
        }
    }

    static func describe(_ error: any Error, at prefix: String = "") -> String {
        guard let error = error as? DecodingError else { return "not JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let text = prefix + context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "the top level" : text)
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(key.stringValue)' at \(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "wrong type at \(path(context))"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "invalid value at \(path(context)): \(underlying ?? context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
