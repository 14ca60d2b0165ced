import Foundation

/// The one way `suite` shows a moment to people: local time, `Mon 2026-11-23 16:31`, with the
/// time zone named when it is not the local one (a schedule kept in another zone, say). JSON
/// output uses RFC 3339 instead (``Terminal/printJSON(_:)``).
enum PeopleTime {
    static func stamp(_ date: Date, in timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let weekday = c.weekday.flatMap { names.indices.contains($0 - 1) ? names[$0 - 1] : nil } ?? ""
        let text = String(format: "%@ %04d-%02d-%02d %02d:%02d", weekday, c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
        let local = TimeZone.current
        let sameZone = timeZone.identifier == local.identifier || timeZone.secondsFromGMT(for: date) == local.secondsFromGMT(for: date)
        return sameZone ? text : text + " " + timeZone.identifier
    }
}
