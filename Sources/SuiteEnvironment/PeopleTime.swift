import BundleCore
import Foundation

/// Moments as the web app shows them to people, by `suite`'s rule (README, "The command grammar"):
/// local time, `Mon 2026-11-23 16:31`, with the time zone named when it is not the local one (a
/// schedule kept in another zone). The CLI's `PeopleTime` writes the same text.
package enum PeopleTime {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    package static func stamp(_ date: Date, in timeZone: TimeZone = .current) -> String {
        let text = unnamed(date, in: timeZone)
        let local = TimeZone.current
        let sameZone = timeZone.identifier == local.identifier || timeZone.secondsFromGMT(for: date) == local.secondsFromGMT(for: date)
        return sameZone ? text : text + " " + timeZone.identifier
    }

    /// `Mon 2026-11-23 16:31` in `timeZone`, which it does not name.
    static func unnamed(_ date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
        let weekday = c.weekday.flatMap { weekdays.indices.contains($0 - 1) ? weekdays[$0 - 1] : nil } ?? ""
        return "\(weekday) \(padded(c.year ?? 0, 4))-\(padded(c.month ?? 0, 2))-\(padded(c.day ?? 0, 2)) \(padded(c.hour ?? 0, 2)):\(padded(c.minute ?? 0, 2))"
    }

    /// A deadline: its day (`Thu 2026-12-03`), or its moment as ``stamp(_:in:)`` writes it.
    package static func deadline(_ deadline: Deadline, in timeZone: TimeZone = .current) -> String {
        switch deadline {
        case .time(let date):
            return stamp(date, in: timeZone)
        case .day(let year, let month, let day):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let weekday = calendar.date(from: DateComponents(year: year, month: month, day: day))
                .map { calendar.component(.weekday, from: $0) }.flatMap { weekdays.indices.contains($0 - 1) ? weekdays[$0 - 1] + " " : nil } ?? ""
            return "\(weekday)\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
        }
    }

    /// A moment for anyone, whose zone is not known (a shared page): UTC, named.
    package static func universal(_ date: Date) -> String {
        unnamed(date, in: TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current) + " UTC"
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
