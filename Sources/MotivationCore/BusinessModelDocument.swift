import Foundation
import SuiteStorage

/// The JSON interchange form of a business model (`"schema": "suite-bmm/1"`): the model, the
/// current text of each of the ten sections in guided order, and every saved version.
///
/// Export, import into another store, and export again give identical bytes.
public struct BusinessModelDocument: Sendable, Equatable {
    /// The schema name written in every document.
    public static let schema = "suite-bmm/1"

    /// The model.
    public var model: BusinessModel
    /// The saved versions of each section, oldest first.
    public var history: [SectionID: [SectionVersion]]

    /// Creates a document.
    public init(model: BusinessModel, history: [SectionID: [SectionVersion]] = [:]) {
        self.model = model
        self.history = history
    }

    /// The document as pretty-printed JSON with sorted keys.
    public func encoded() -> Data {
        let file = File(
            schema: Self.schema,
            model: .init(
                id: model.id.uuidString, name: model.name,
                createdAt: Timestamp.string(model.createdAt), updatedAt: Timestamp.string(model.updatedAt),
                sections: SectionCatalogue.guidedOrder.map { id in
                    let entry = model.entries[id]
                    return .init(
                        id: id.rawValue, title: id.title, level: SectionCatalogue.section(id).level.rawValue,
                        text: entry?.text ?? "", confidence: entry?.confidence?.rawValue,
                        updatedAt: entry.map { Timestamp.string($0.updatedAt) },
                        history: (history[id] ?? []).map {
                            .init(version: $0.version, text: $0.text, confidence: $0.confidence?.rawValue,
                                  savedAt: Timestamp.string($0.savedAt))
                        })
                }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, numbers and arrays cannot fail.
        let data = (try? encoder.encode(file)) ?? Data()
        return data + Data("\n".utf8)
    }

    /// Reads a document.
    ///
    /// - Throws: ``MotivationError/malformedDocument(reason:)`` saying where it broke.
    public static func decode(_ data: Data) throws(MotivationError) -> BusinessModelDocument {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let error as DecodingError {
            throw .malformedDocument(reason: describe(error))
        } catch {
            throw .malformedDocument(reason: "not JSON")
        }
        guard file.schema == schema else {
            throw .malformedDocument(reason: "schema is '\(file.schema)', expected '\(schema)'")
        }
        guard let id = UUID(uuidString: file.model.id) else {
            throw .malformedDocument(reason: "model.id '\(file.model.id)' is not a UUID")
        }
        let createdAt = try Timestamp.date(file.model.createdAt, field: "model.createdAt")
        let updatedAt = try Timestamp.date(file.model.updatedAt, field: "model.updatedAt")
        var entries: [SectionID: SectionEntry] = [:]
        var history: [SectionID: [SectionVersion]] = [:]
        var seen: Set<SectionID> = []
        for (index, section) in file.model.sections.enumerated() {
            let field = "model.sections[\(index)]"
            guard let sectionID = SectionID(rawValue: section.id) else {
                throw .malformedDocument(reason: "\(field).id '\(section.id)' is not a section")
            }
            guard seen.insert(sectionID).inserted else {
                throw .malformedDocument(reason: "\(field): section '\(section.id)' appears twice")
            }
            let confidence = try confidenceValue(section.confidence, field: "\(field).confidence")
            if let stamp = section.updatedAt {
                entries[sectionID] = SectionEntry(
                    text: section.text, confidence: confidence,
                    updatedAt: try Timestamp.date(stamp, field: "\(field).updatedAt"))
            } else if !section.text.isEmpty {
                throw .malformedDocument(reason: "\(field) has text but no updatedAt")
            }
            var versions: [SectionVersion] = []
            for (number, version) in section.history.enumerated() {
                let versionField = "\(field).history[\(number)]"
                guard version.version >= 1, versions.last.map({ $0.version < version.version }) ?? true else {
                    throw .malformedDocument(reason: "\(versionField).version must count up from 1")
                }
                versions.append(SectionVersion(
                    version: version.version, text: version.text,
                    confidence: try confidenceValue(version.confidence, field: "\(versionField).confidence"),
                    savedAt: try Timestamp.date(version.savedAt, field: "\(versionField).savedAt")))
            }
            if !versions.isEmpty { history[sectionID] = versions }
        }
        let model = BusinessModel(id: id, name: file.model.name, entries: entries, createdAt: createdAt, updatedAt: updatedAt)
        return BusinessModelDocument(model: model, history: history)
    }

    private static func confidenceValue(_ raw: String?, field: String) throws(MotivationError) -> Confidence? {
        guard let raw else { return nil }
        guard let value = Confidence(rawValue: raw) else {
            throw .malformedDocument(reason: "\(field) '\(raw)' is not one of \(Confidence.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "the top level" : text)
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field '\(key.stringValue)' at \(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at \(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "invalid JSON at \(path(context)): \(underlying ?? context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private struct File: Codable {
        var schema: String
        var model: Model

        struct Model: Codable {
            var id: String
            var name: String
            var createdAt: String
            var updatedAt: String
            var sections: [Section]
        }

        struct Section: Codable {
            var id: String
            var title: String?
            var level: String?
            var text: String
            var confidence: String?
            var updatedAt: String?
            var history: [Version]

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                try container.encodeIfPresent(title, forKey: .title)
                try container.encodeIfPresent(level, forKey: .level)
                try container.encode(text, forKey: .text)
                try container.encode(confidence, forKey: .confidence)
                try container.encode(updatedAt, forKey: .updatedAt)
                try container.encode(history, forKey: .history)
            }
        }

        struct Version: Codable {
            var version: Int
            var text: String
            var confidence: String?
            var savedAt: String

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(version, forKey: .version)
                try container.encode(text, forKey: .text)
                try container.encode(confidence, forKey: .confidence)
                try container.encode(savedAt, forKey: .savedAt)
            }
        }
    }
}

/// ISO 8601 timestamps with milliseconds, in UTC.
enum Timestamp {
    static func string(_ date: Date) -> String { ISOTime.string(date) }

    static func date(_ text: String, field: String) throws(MotivationError) -> Date {
        guard let date = ISOTime.date(text) else {
            throw .malformedDocument(reason: "\(field) '\(text)' is not an ISO 8601 time")
        }
        return date
    }
}
