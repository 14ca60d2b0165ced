import Foundation

/// A deadline: a whole day, or an exact time.
public enum Deadline: Codable, Sendable, Hashable, CustomStringConvertible {
    /// A calendar day (due by its end, in the user's time zone).
    case day(year: Int, month: Int, day: Int)
    /// An exact instant.
    case time(Date)

    /// `2026-12-01` or `2026-12-01T17:00:00Z`.
    public var description: String {
        switch self {
        case .day(let year, let month, let day):
            // As `%04d-%02d-%02d` would write it, without a format string (a list writes thousands).
            return Self.padded(year, 4) + "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
        case .time(let date):
            return date.formatted(Date.ISO8601FormatStyle())
        }
    }

    /// `value` in decimal, zero-padded to `width` characters (its sign counted), as `%0*d` does.
    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - digits.count - sign.count)) + digits
    }

    /// When the deadline passes: the end of the day in `timeZone`, or the instant itself.
    public func instant(in timeZone: TimeZone) -> Date {
        switch self {
        case .time(let date):
            return date
        case .day(let year, let month, let day):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let start = calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? .distantFuture
            return calendar.date(byAdding: .day, value: 1, to: start) ?? start
        }
    }

    /// Whether the deadline has passed at `now`: its ``instant(in:)`` is not after `now`.
    public func hasPassed(at now: Date, in timeZone: TimeZone) -> Bool {
        instant(in: timeZone) <= now
    }

    /// The calendar day of the deadline in `timeZone`.
    public func day(in timeZone: TimeZone) -> (year: Int, month: Int, day: Int) {
        switch self {
        case .day(let year, let month, let day):
            return (year, month, day)
        case .time(let date):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return (parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }
    }

    /// Reads `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS]` or `YYYY-MM-DD HH:MM[:SS]` (local time in
    /// `timeZone`), or an ISO 8601 time with `Z` or an offset.
    ///
    /// - Throws: ``BundleError/invalidDeadline(_:)`` for anything else, including days that do not
    ///   exist (`2026-02-30`).
    public static func parse(_ text: String, timeZone: TimeZone) throws(BundleError) -> Deadline {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let scalars = Array(trimmed.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard scalars.count >= 10, let year = number(0..<4), scalars[4] == 45, let month = number(5..<7),
              scalars[7] == 45, let day = number(8..<10) else {
            throw .invalidDeadline(text)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard (1...12).contains(month), (1...31).contains(day), year >= 1,
              let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month else {
            throw .invalidDeadline(text)
        }
        if scalars.count == 10 { return .day(year: year, month: month, day: day) }
        guard scalars[10] == 84 || scalars[10] == 32 else { throw .invalidDeadline(text) }  // T or space
        let rest = String(trimmed.dropFirst(11))
        if rest.hasSuffix("Z") || rest.dropFirst(5).contains("+") || rest.dropFirst(5).contains("-") {
            let iso = String(trimmed.prefix(10)) + "T" + rest
            if let date = try? Date.ISO8601FormatStyle().parse(iso) { return .time(date) }
            throw .invalidDeadline(text)
        }
        let pieces = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(pieces.count),
              let hour = Int(pieces[0]), let minute = Int(pieces[1]), pieces[0].count == 2, pieces[1].count == 2,
              (0...23).contains(hour), (0...59).contains(minute) else {
            throw .invalidDeadline(text)
        }
        var second = 0
        if pieces.count == 3 {
            guard let value = Int(pieces[2]), pieces[2].count == 2, (0...59).contains(value) else { throw .invalidDeadline(text) }
            second = value
        }
        guard let instant = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)) else {
            throw .invalidDeadline(text)
        }
        return .time(instant)
    }

    /// Reads the stored form (`YYYY-MM-DD` or ISO 8601 with `Z`).
    static func stored(_ text: String) -> Deadline? {
        try? parse(text, timeZone: TimeZone(identifier: "UTC") ?? .current)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Deadline.stored(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid deadline '\(text)'"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
