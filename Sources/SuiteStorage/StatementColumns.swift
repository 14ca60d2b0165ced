import GRDB
import GRDBSQLite

/// The columns of a statement's current row, read with SQLite's C API: for long listings, where
/// GRDB's checked decoding of every column took longer than the query. Read only while a cursor
/// over `statement` is on a row.
package struct StatementColumns {
    private let statement: SQLiteStatement

    package init(_ statement: Statement) { self.statement = statement.sqliteStatement }

    package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }

    /// The column as an integer (0 for NULL, as SQLite converts it).
    package func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }

    package func optionalInt64(_ index: Int32) -> Int64? { isNull(index) ? nil : int64(index) }

    /// The column as text ("" for NULL); bytes that are not UTF-8 are repaired, as GRDB does.
    package func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self)
    }

    package func optionalText(_ index: Int32) -> String? { isNull(index) ? nil : text(index) }

    /// The case of `cases` whose raw value the column holds, compared byte by byte (no string
    /// made for the column); nil for any other value.
    package func value<Value: RawRepresentable>(_ index: Int32, among cases: [Value]) -> Value? where Value.RawValue == String {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        let column = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index)))
        for value in cases {
            var raw = value.rawValue
            if raw.withUTF8({ $0.elementsEqual(column) }) { return value }
        }
        return nil
    }
}
