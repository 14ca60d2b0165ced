import Foundation

/// A time rounded to whole milliseconds, the precision stores keep (as an INTEGER column).
package struct Millis: Sendable, Hashable {
    package let value: Int64

    /// The times stores and interchange files accept: the years 1 to 9999 of ISO 8601, in
    /// milliseconds since 1970 (far inside Int64, so no arithmetic on them can overflow).
    package static let supported: ClosedRange<Int64> = -62_135_596_800_000 ... 253_402_300_799_999

    /// Rounds `date` to milliseconds. Never traps: a date beyond the supported years (which
    /// importers refuse first, see ``init(exactly:)``) is clamped to the nearest supported
    /// time, and NaN becomes 1970.
    package init(_ date: Date) {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        if millis.isNaN {
            value = 0
        } else {
            value = min(max(millis, Double(Self.supported.lowerBound)), Double(Self.supported.upperBound)).toMillis
        }
    }

    package init(_ value: Int64) { self.value = value }

    /// `millis` (as a JSON number reads) when it is a whole number of supported milliseconds;
    /// nil for fractions of a millisecond beyond 2^53, NaN, infinities and times outside
    /// ``supported``.
    package init?(exactly millis: Double) {
        guard millis.isFinite, millis >= Double(Self.supported.lowerBound), millis <= Double(Self.supported.upperBound) else { return nil }
        value = millis.rounded().toMillis
    }

    package var date: Date { Date(timeIntervalSince1970: Double(value) / 1000) }
}

private extension Double {
    /// A value already checked to lie within ``Millis/supported``.
    var toMillis: Int64 { Int64(exactly: rounded()) ?? 0 }
}
