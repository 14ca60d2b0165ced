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
