import Foundation

/// A time rounded to whole milliseconds, the precision stores keep (as an INTEGER column).
package struct Millis: Sendable, Hashable {
    package let value: Int64

    package init(_ date: Date) { value = Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    package init(_ value: Int64) { self.value = value }

    package var date: Date { Date(timeIntervalSince1970: Double(value) / 1000) }
}
