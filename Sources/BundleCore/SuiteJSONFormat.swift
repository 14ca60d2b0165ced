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
    }

    static func encode(_ document: InterchangeDocument) -> Data {
        let file = File(
            schema: schema, events: document.events,
            todos: document.todos.map {
                TodoRecord(uuid: $0.uuid, text: $0.text, event: $0.eventName, preposition: $0.preposition, deadline: $0.deadline,
                           status: $0.status, bundle: $0.bundleUUID, notes: $0.notes, createdAt: $0.createdAt,
                           modifiedAt: $0.modifiedAt, completedAt: $0.completedAt,
                           foreignFields: $0.foreignFields.isEmpty ? nil : $0.foreignFields)
            },
            bundles: document.bundles)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return ((try? encoder.encode(file)) ?? Data()) + Data("\n".utf8)
    }

    static func decode(_ data: Data) throws(BundleError) -> InterchangeDocument {
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
        let file: File
        do {
            file = try decoder.decode(File.self, from: data)
        } catch {
            throw .malformedImport(format: "Suite JSON", line: nil, reason: describe(error))
        }
        guard file.schema == schema else {
            throw .malformedImport(format: "Suite JSON", line: nil, reason: "schema is '\(file.schema)', expected '\(schema)'")
        }
        return InterchangeDocument(
            events: file.events,
            todos: file.todos.map {
                InterchangeTodo(uuid: $0.uuid, text: $0.text, eventName: $0.event, preposition: $0.event == nil ? .none : $0.preposition,
                                deadline: $0.deadline, status: $0.status, bundleUUID: $0.bundle, notes: $0.notes,
                                createdAt: $0.createdAt, modifiedAt: $0.modifiedAt, completedAt: $0.completedAt,
                                foreignFields: $0.foreignFields ?? [:])
            },
            bundles: file.bundles)
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
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
