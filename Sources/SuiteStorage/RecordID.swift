import Foundation
import GRDB

/// The identifier of a stored record of type `Record`: `Todo.ID`, `Quote.ID`, `Place.ID` … are
/// each a `RecordID` of their own record type, so one kind of id cannot be passed where another
/// is expected. Its value is the row id in the store, and it encodes as that number.
public struct RecordID<Record>: Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, LosslessStringConvertible {
    /// The row id.
    public let rawValue: Int64

    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public init(integerLiteral value: Int64) { self.rawValue = value }
    public init?(_ description: String) {
        guard let value = Int64(description) else { return nil }
        self.rawValue = value
    }
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { String(rawValue) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension RecordID: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        Int64.fromDatabaseValue(dbValue).map { Self($0) }
    }
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self.init(Int64(sqliteStatement: sqliteStatement, index: index))
    }
}
