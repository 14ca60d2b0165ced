import Foundation

/// Weekly opening hours: intervals per ISO weekday (1 = Monday), in minutes from that day's
/// midnight; an interval may end after 24:00 (overnight).
public struct WeeklyHours: Codable, Sendable, Hashable {
    /// One open span.
    public struct Interval: Codable, Sendable, Hashable {
        /// 1 = Monday … 7 = Sunday.
        public var day: Int
        /// Minutes from midnight, 0…1439.
        public var start: Int
        /// Minutes from the same midnight, up to 2880 (past midnight for overnight spans).
        public var end: Int
    }

    /// The open spans.
    public var intervals: [Interval]

    /// True when open at `date` in `timeZone`.
    public func isOpen(at date: Date, timeZone: TimeZone) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let day = ((parts.weekday ?? 1) + 5) % 7 + 1  // Sunday 1 → 7, Monday 2 → 1
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let previous = day == 1 ? 7 : day - 1
        return intervals.contains { interval in
            (interval.day == day && minute >= interval.start && minute < interval.end)
                || (interval.day == previous && interval.end > 1440 && minute < interval.end - 1440)
        }
    }

    /// The hours written in OSM `opening_hours` syntax (`Mo-Fr 08:00-18:00; Sa 09:00-13:00`).
    public var osmString: String {
        let names = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]
        if intervals.count == 7, Set(intervals.map(\.day)).count == 7, intervals.allSatisfy({ $0.start == 0 && $0.end >= 1440 }) { return "24/7" }
        var byDay: [Int: [String]] = [:]
        for interval in intervals.sorted(by: { ($0.day, $0.start) < ($1.day, $1.start) }) {
            let end = interval.end > 1440 ? interval.end - 1440 : interval.end
            byDay[interval.day, default: []].append(String(format: "%02d:%02d-%02d:%02d", interval.start / 60, interval.start % 60, end / 60, end % 60))
        }
        var rules: [String] = []
        var day = 1
        while day <= 7 {
            guard let times = byDay[day] else { day += 1; continue }
            var last = day
            while last < 7, byDay[last + 1] == times { last += 1 }
            rules.append((last == day ? names[day - 1] : "\(names[day - 1])-\(names[last - 1])") + " " + times.joined(separator: ","))
            day = last + 1
        }
        return rules.joined(separator: "; ")
    }

    /// Yelp's `hours[].open` entries: `day` 0 is Monday, `start`/`end` are `HHMM`.
    public static func yelp(_ entries: [(day: Int, start: String, end: String, overnight: Bool)]) -> WeeklyHours? {
        var intervals: [Interval] = []
        for entry in entries {
            guard (0...6).contains(entry.day), let start = minutes(hhmm: entry.start), var end = minutes(hhmm: entry.end) else { return nil }
            if entry.overnight || end <= start { end += 1440 }
            intervals.append(Interval(day: entry.day + 1, start: start, end: end))
        }
        return WeeklyHours(intervals: intervals)
    }

    static func minutes(hhmm: String) -> Int? {
        guard hhmm.count == 4, let value = Int(hhmm), value >= 0 else { return nil }
        let hour = value / 100, minute = value % 100
        guard hour <= 24, minute < 60, hour * 60 + minute <= 1440 else { return nil }
        return hour * 60 + minute
    }

    /// Parses a tolerant subset of OSM `opening_hours`: `24/7`; rules separated by `;` (a later
    /// rule replaces earlier ones for its days); weekday lists and ranges (`Mo-Fr`, `Sa,Su`);
    /// time ranges (`08:00-12:00,13:00-18:00`, `9:00-17:00`, en dashes, past midnight, `24:00`);
    /// `off`/`closed`. Anything else (months, holidays, sunrise, comments, fallbacks) gives nil:
    /// unknown rather than wrong.
    public static func parseOSM(_ text: String) -> WeeklyHours? {
        let normal = text.replacingOccurrences(of: "–", with: "-").replacingOccurrences(of: "—", with: "-")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !normal.isEmpty, !normal.contains("||"), !normal.contains("\"") else { return nil }
        if normal == "24/7" {
            return WeeklyHours(intervals: (1...7).map { Interval(day: $0, start: 0, end: 1440) })
        }
        var days: [Int: [Interval]] = [:]
        for rule in normal.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where !rule.isEmpty {
            guard let (ruleDays, spans) = parseRule(rule) else { return nil }
            for day in ruleDays {
                days[day] = spans.map { Interval(day: day, start: $0.0, end: $0.1) }
            }
        }
        return WeeklyHours(intervals: days.keys.sorted().flatMap { days[$0] ?? [] })
    }

    private static let dayNames = ["mo": 1, "tu": 2, "we": 3, "th": 4, "fr": 5, "sa": 6, "su": 7]

    private static func parseRule(_ rule: String) -> ([Int], [(Int, Int)])? {
        var selector = ""
        var rest = rule
        if let first = rule.first, first.isLetter {
            let split = rule.split(separator: " ", maxSplits: 1)
            selector = String(split[0])
            rest = split.count > 1 ? String(split[1]).trimmingCharacters(in: .whitespaces) : ""
        }
        var days: [Int] = []
        if selector.isEmpty {
            days = Array(1...7)
        } else {
            for part in selector.split(separator: ",") {
                let ends = part.split(separator: "-")
                guard (1...2).contains(ends.count) else { return nil }
                guard let from = dayNames[ends[0].lowercased()], let to = dayNames[(ends.count == 2 ? ends[1] : ends[0]).lowercased()] else {
                    return nil
                }
                var day = from
                while true {
                    days.append(day)
                    if day == to { break }
                    day = day % 7 + 1
                }
            }
        }
        let lower = rest.lowercased()
        if lower == "off" || lower == "closed" { return (days, []) }
        if rest.isEmpty { return selector.isEmpty ? nil : (days, [(0, 1440)]) }
        var spans: [(Int, Int)] = []
        for range in rest.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let ends = range.split(separator: "-")
            guard ends.count == 2, let start = clock(String(ends[0])), var end = clock(String(ends[1])), start < 1440 else { return nil }
            if end <= start { end += 1440 }
            spans.append((start, end))
        }
        return (days, spans)
    }

    /// `H:MM` or `HH:MM`, up to `24:00`.
    private static func clock(_ text: String) -> Int? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":")
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0...24).contains(hour), (0...59).contains(minute),
              hour * 60 + minute <= 1440 else { return nil }
        return hour * 60 + minute
    }
}
