import Foundation

/// ISO 8601 timestamps with milliseconds in UTC (`2026-11-21T05:46:38.007Z`), formatted from whole
/// milliseconds so that formatting and parsing back never drift (a floating-point date formatted
/// with fractions can turn .621 into .620).
package enum ISOTime {
    package static func string(_ date: Date) -> String {
        let millis = Millis(date).value
        // Floor division that cannot overflow (Millis keeps far inside Int64 anyway).
        let seconds = millis / 1000 - (millis % 1000 < 0 ? 1 : 0)
        let fraction = String(millis - seconds * 1000)
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle())
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    /// Reads an ISO 8601 time with or without fractional seconds.
    package static func date(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
