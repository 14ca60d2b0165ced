import Foundation
import GRDB

/// A field's value as it travels between devices: what an SQLite column holds (NULL, an integer,
/// a real, text or a blob), or a list of those for a field kept in several columns. Encoded as
/// the plain JSON value (`null`, a number, a string, an array), a blob as `{"blob": BASE64}`.
package enum SyncValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case list([SyncValue])

    private enum BlobKey: String, CodingKey { case blob }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(String.self) {
            self = .text(value)
        } else if let value = try? container.decode([SyncValue].self) {
            self = .list(value)
        } else if let keyed = try? decoder.container(keyedBy: BlobKey.self), let data = try? keyed.decode(Data.self, forKey: .blob) {
            self = .blob(data)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a field value"))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        if case .blob(let data) = self {
            var keyed = encoder.container(keyedBy: BlobKey.self)
            try keyed.encode(data, forKey: .blob)
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let value): try container.encode(value)
        // JSON has no NaN or infinity; such a real travels as null.
        case .real(let value): if value.isFinite { try container.encode(value) } else { try container.encodeNil() }
        case .text(let value): try container.encode(value)
        case .blob: break
        case .list(let values): try container.encode(values)
        }
    }

    /// The value of a column.
    package init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .blob(let data): self = .blob(data)
        case .int64(let value): self = .integer(value)
        case .double(let value): self = .real(value)
        case .string(let value): self = .text(value)
        }
    }

    /// The value to bind to one column (a list binds as NULL: it belongs to several columns).
    package var databaseValue: DatabaseValue {
        switch self {
        case .null, .list: return .null
        case .integer(let value): return value.databaseValue
        case .real(let value): return value.databaseValue
        case .text(let value): return value.databaseValue
        case .blob(let data): return data.databaseValue
        }
    }

    /// The elements of a list, or the value itself as a list of one.
    package var elements: [SyncValue] {
        if case .list(let values) = self { return values }
        return [self]
    }

    /// The value as a person reads it: a text as itself, anything else as ``description``.
    package var displayText: String {
        if case .text(let text) = self { return text }
        return description
    }

    package var description: String {
        switch self {
        case .null: return "null"
        case .integer(let value): return "\(value)"
        case .real(let value): return "\(value)"
        case .text(let value): return "\"\(value)\""
        case .blob(let data): return "blob(\(data.count) bytes)"
        case .list(let values): return "[\(values.map(\.description).joined(separator: ", "))]"
        }
    }
}

/// The JSON text `sync_field` keeps a value as: exactly what `JSONEncoder()` writes and
/// `JSONDecoder` reads, without going through them for the plain values nearly every field
/// holds (null, integers, texts without characters JSON escapes, lists of those). Applying a
/// page of operations reads and writes every value of every row it touches, and the Codable
/// round trip (a decoder per value, and a failed decode per type tried) cost more than the SQL.
extension SyncValue {
    /// The value as `JSONEncoder()` encodes it.
    package func jsonText() throws -> String {
        var text = ""
        if appendPlainJSON(to: &text) { return text }
        return String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    /// The value `JSONDecoder` decodes from `text`, or nil when `text` is not a value.
    package init?(jsonText text: String) {
        if let plain = PlainJSON.read(text, { $0.value() }) {
            self = plain
        } else if let value = try? JSONDecoder().decode(SyncValue.self, from: Data(text.utf8)) {
            self = value
        } else {
            return nil
        }
    }

    /// Appends the value as `JSONEncoder()` writes it; false (leaving `text` to be discarded)
    /// for what this does not write itself: reals, blobs, texts with characters JSON escapes.
    private func appendPlainJSON(to text: inout String) -> Bool {
        switch self {
        case .null:
            text += "null"
        case .integer(let value):
            text += String(value)
        case .text(let value):
            // JSONEncoder escapes control characters, quotes, backslashes and slashes, and
            // writes everything else (every other Unicode scalar) as its UTF-8 bytes.
            for byte in value.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/") {
                return false
            }
            text += "\""
            text += value
            text += "\""
        case .list(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                guard value.appendPlainJSON(to: &text) else { return false }
            }
            text += "]"
        case .real, .blob:
            return false
        }
        return true
    }
}

extension SyncChange {
    /// The change in `json` (as ``encoder`` writes changes), as `JSONDecoder` decodes it. The
    /// changes ``encoder`` writes with plain values (see ``SyncValue/jsonText()``) and texts
    /// without escapes are read directly: every operation pulled is decoded once, and a new
    /// device pulls every live field of the account.
    ///
    /// - Throws: JSONDecoder's error when `json` is not a change.
    package static func decode(_ json: Data) throws -> SyncChange {
        if let change = PlainJSON.read(json, plain) { return change }
        return try JSONDecoder().decode(SyncChange.self, from: json)
    }

    /// The change `json` holds when it is an object of the members ``encoder`` writes (`base`
    /// may be missing or null), each once; nil for anything else.
    private static func plain(_ json: inout PlainJSON) -> SyncChange? {
        var id: String?, entity: String?, key: String?, field: String?, device: String?
        var base: String??, time: Int64?, value: SyncValue?
        let read = json.object { name, json in
            switch name {
            case "id": return PlainJSON.once(&id, json.text())
            case "entity": return PlainJSON.once(&entity, json.text())
            case "key": return PlainJSON.once(&key, json.text())
            case "field": return PlainJSON.once(&field, json.text())
            case "device": return PlainJSON.once(&device, json.text())
            case "base": return PlainJSON.once(&base, json.nullable { $0.text() })
            // JSONDecoder refuses a negative reading (HybridTime).
            case "time": return PlainJSON.once(&time, json.integer().flatMap { $0 >= 0 ? $0 : nil })
            case "value": return PlainJSON.once(&value, json.value())
            default: return false
            }
        }
        guard read, let id, let entity, let key, let field, let device, let time, let value else { return nil }
        return SyncChange(id: id, entity: entity, key: key, field: field, value: value, time: HybridTime(rawValue: time), device: device, base: base ?? nil)
    }
}
