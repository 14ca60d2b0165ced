import GRDB
import GRDBSQLite

/// The columns of a statement's current row, read with SQLite's C API: for long listings, where
/// GRDB's checked decoding of every column took longer than the query. Read only while a cursor
/// over `statement` is on a row.
package struct StatementColumns {
    private let statement: SQLiteStatement
    /// What keeps `statement` from being finalized while these columns are read (the
    /// ``DirectStatement``; a GRDB statement is kept by its cursor).
    private let owner: AnyObject?

    package init(_ statement: Statement) {
        self.statement = statement.sqliteStatement
        owner = nil
    }

    /// The columns of a statement prepared without GRDB, which they keep alive.
    init(_ statement: DirectStatement, sqliteStatement: SQLiteStatement) {
        self.statement = sqliteStatement
        owner = statement
    }

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

    /// The column as GRDB reads it.
    package func databaseValue(_ index: Int32) -> DatabaseValue { DatabaseValue(sqliteStatement: statement, index: index) }

    /// Which of `candidates` (UTF-8 bytes) the column's text is, compared byte by byte without
    /// making a string of it; nil for anything else.
    package func index(_ index: Int32, among candidates: [[UInt8]]) -> Int? {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        let column = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index)))
        return candidates.firstIndex { $0.count == column.count && $0.elementsEqual(column) }
    }
}
