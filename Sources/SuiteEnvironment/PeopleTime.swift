import Foundation

/// Moments as Suite shows them to people, one rule for the `suite` command, the web app and the
/// sync server (README, "The command grammar"): local time, `Mon 2026-11-23 16:31`, with the time
/// zone named when it is not the local one (a schedule kept in another zone). JSON output uses
/// RFC 3339 instead.
public enum PeopleTime {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// `Mon 2026-11-23 16:31` in `timeZone`, followed by the zone's name when it is not the local one.
    public static func stamp(_ date: Date, in timeZone: TimeZone = .current) -> String {
        let text = unnamed(date, in: timeZone)
        let local = TimeZone.current
        let sameZone = timeZone.identifier == local.identifier || timeZone.secondsFromGMT(for: date) == local.secondsFromGMT(for: date)
        return sameZone ? text : text + " " + timeZone.identifier
    }

    /// `Mon 2026-11-23 16:31` in `timeZone`, which it does not name.
    public static func unnamed(_ date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
        return "\(weekday(c.weekday)) \(padded(c.year ?? 0, 4))-\(padded(c.month ?? 0, 2))-\(padded(c.day ?? 0, 2)) \(padded(c.hour ?? 0, 2)):\(padded(c.minute ?? 0, 2))"
    }

    /// A day (`Thu 2026-12-03`), as the calendar of `timeZone` names its weekday.
    public static func day(year: Int, month: Int, day: Int, in timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let weekday = calendar.date(from: DateComponents(year: year, month: month, day: day)).map { calendar.component(.weekday, from: $0) }
        let name = Self.weekday(weekday)
        return "\(name.isEmpty ? "" : name + " ")\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    /// A moment for anyone, whose zone is not known (a shared page): UTC, named.
    public static func universal(_ date: Date) -> String {
        unnamed(date, in: TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current) + " UTC"
    }

    static func weekday(_ number: Int?) -> String {
        number.flatMap { weekdays.indices.contains($0 - 1) ? weekdays[$0 - 1] : nil } ?? ""
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
