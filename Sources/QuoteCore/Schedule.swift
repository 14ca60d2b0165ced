import Foundation

/// A time of day, to the minute.
public struct LocalTime: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Minutes since midnight, 0…1439.
    public var minutes: Int

    /// Creates a time; hour 0…23, minute 0…59.
    public init(hour: Int, minute: Int) throws(QuoteError) {
        guard (0...23).contains(hour), (0...59).contains(minute) else {
            throw .invalidSchedule(.notATimeOfDay(hour: hour, minute: minute))
        }
        minutes = hour * 60 + minute
    }

    init(minutes: Int) { self.minutes = minutes }

    /// Reads `HH:MM` (or `H:MM`).
    public static func parse(_ text: String) throws(QuoteError) -> LocalTime {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]) else {
            throw .invalidSchedule(.unreadableTime(text))
        }
        return try LocalTime(hour: hour, minute: minute)
    }

    public var description: String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool { lhs.minutes < rhs.minutes }
}

/// A span of the day, which may run past midnight (`22:00-07:00`).
public struct TimeRange: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Where it starts.
    public var start: LocalTime
    /// Where it ends (excluded).
    public var end: LocalTime

    /// Creates a range.
    public init(start: LocalTime, end: LocalTime) {
        self.start = start
        self.end = end
    }

    /// Reads `HH:MM-HH:MM`.
    public static func parse(_ text: String) throws(QuoteError) -> TimeRange {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .invalidSchedule(.unreadableRange(text)) }
        return TimeRange(start: try LocalTime.parse(String(parts[0])), end: try LocalTime.parse(String(parts[1])))
    }

    /// True when `time` is inside, counting a range that passes midnight.
    public func contains(_ time: LocalTime) -> Bool {
        if start <= end { return time >= start && time < end }
        return time >= start || time < end
    }

    public var description: String { "\(start)-\(end)" }
}

/// When quotes are delivered.
public struct Schedule: Codable, Sendable, Hashable {
    /// The times of day.
    public enum Times: Codable, Sendable, Hashable {
        /// Fixed times of day.
        case fixed([LocalTime])
        /// `count` times spread evenly over `window` (first at its start, last at its end), each
        /// moved by up to `jitterMinutes` either way (the same every time for a given day).
        case spread(count: Int, window: TimeRange, jitterMinutes: Int)
    }

    /// What happens to slots missed while the machine was off.
    public enum MissedSlots: String, Codable, Sendable, Hashable, CaseIterable {
        /// Deliver the latest missed slot, once.
        case latest
        /// Deliver none of them.
        case skip
    }

    /// The most deliveries a day: fixed times, or the count spread over a window.
    public static let maximumPerDay = 96
    /// The largest jitter, in minutes either way.
    public static let maximumJitterMinutes = 180

    /// The times of day.
    public var times: Times
    /// ISO weekdays (1 = Monday … 7 = Sunday) on which quotes come.
    public var weekdays: Set<Int>
    /// Spans in which nothing is delivered (dropped, not queued).
    public var quietHours: [TimeRange]
    /// The IANA time zone the times are in.
    public var timeZoneIdentifier: String
    /// Only quotes of this category, when set.
    public var category: String?
    /// What happens to missed slots.
    public var missedSlots: MissedSlots
    /// Whether deliveries are tailored picks (``QuoteStore/tailoredRandom(_:user:)``) rather than
    /// the shuffle bag's.
    public var tailored: Bool
    /// Whether each delivery carries a reminder from the not-to-do list (one of the quote's
    /// category when there is one).
    public var reminders: Bool

    /// Creates and checks a schedule.
    ///
    /// - Throws: ``QuoteError/invalidSchedule(_:)`` for an unknown time zone, an empty list of
    ///   times or weekdays, a window that ends before it starts, a count out of 1…96, or times that
    ///   all fall in the quiet hours; the ``QuoteError/ScheduleProblem`` says which.
    public init(
        times: Times, weekdays: Set<Int> = Set(1...7), quietHours: [TimeRange] = [], timeZoneIdentifier: String,
        category: String? = nil, missedSlots: MissedSlots = .latest, tailored: Bool = false, reminders: Bool = false
    ) throws(QuoteError) {
        self.times = times
        self.weekdays = weekdays
        self.quietHours = quietHours
        self.timeZoneIdentifier = timeZoneIdentifier
        self.category = category
        self.missedSlots = missedSlots
        self.tailored = tailored
        self.reminders = reminders
        try validate()
    }

    /// Reads a stored definition; one written before tailored picks and reminders existed has
    /// neither.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        times = try container.decode(Times.self, forKey: .times)
        weekdays = try container.decode(Set<Int>.self, forKey: .weekdays)
        quietHours = try container.decode([TimeRange].self, forKey: .quietHours)
        timeZoneIdentifier = try container.decode(String.self, forKey: .timeZoneIdentifier)
        category = try container.decodeIfPresent(String.self, forKey: .category)
        missedSlots = try container.decode(MissedSlots.self, forKey: .missedSlots)
        tailored = try container.decodeIfPresent(Bool.self, forKey: .tailored) ?? false
        reminders = try container.decodeIfPresent(Bool.self, forKey: .reminders) ?? false
    }

    func validate() throws(QuoteError) {
        guard TimeZone(identifier: timeZoneIdentifier) != nil else {
            throw .invalidSchedule(.unknownTimeZone(timeZoneIdentifier))
        }
        guard !weekdays.isEmpty, weekdays.allSatisfy({ (1...7).contains($0) }) else { throw .invalidSchedule(.noWeekdays) }
        // Times read back from a stored definition are checked too: every later computation
        // (slots, jitter, quiet hours) assumes minutes of one day.
        var clock = quietHours.flatMap { [$0.start, $0.end] }
        switch times {
        case .fixed(let list): clock += list
        case .spread(_, let window, _): clock += [window.start, window.end]
        }
        guard clock.allSatisfy({ (0..<1440).contains($0.minutes) }) else { throw .invalidSchedule(.timeOutOfRange) }
        switch times {
        case .fixed(let list):
            guard !list.isEmpty else { throw .invalidSchedule(.noTimes) }
            guard list.count <= Self.maximumPerDay else { throw .invalidSchedule(.tooManyTimes(list.count, limit: Self.maximumPerDay)) }
        case .spread(let count, let window, let jitter):
            guard (1...Self.maximumPerDay).contains(count) else { throw .invalidSchedule(.countOutOfRange(count, limit: Self.maximumPerDay)) }
            guard window.start < window.end else {
                throw .invalidSchedule(.windowEndsBeforeStart(window))
            }
            guard (0...Self.maximumJitterMinutes).contains(jitter) else {
                throw .invalidSchedule(.jitterOutOfRange(jitter, limit: Self.maximumJitterMinutes))
            }
        }
        // A schedule that can never deliver is a mistake, not a setting.
        func quiet(_ time: LocalTime) -> Bool { quietHours.contains { $0.contains(time) } }
        switch times {
        case .fixed(let list) where list.allSatisfy(quiet):
            throw .invalidSchedule(.everyTimeQuiet(quietHours))
        case .spread(let count, let window, let jitter):
            let span = window.end.minutes - window.start.minutes
            let planned = (0..<count).map { LocalTime(minutes: count == 1 ? window.start.minutes : window.start.minutes + $0 * span / (count - 1)) }
            let window = (window.start.minutes...window.end.minutes).map { LocalTime(minutes: $0) }
            if window.allSatisfy(quiet) || (jitter == 0 && planned.allSatisfy(quiet)) {
                throw .invalidSchedule(.windowQuiet(quietHours))
            }
        default:
            break
        }
    }

    /// The time zone.
    public var timeZone: TimeZone { TimeZone(identifier: timeZoneIdentifier) ?? TimeZone(secondsFromGMT: 0)! } // programmer error: validated at init

    /// Reads `09:00,13:30` or `3 between 09:00-21:00` (optionally `… jitter 15`).
    public static func parseTimes(_ text: String) throws(QuoteError) -> Times {
        let words = text.split(whereSeparator: { $0 == " " }).map(String.init)
        if words.count >= 3, words[1].lowercased() == "between" {
            guard let count = Int(words[0]) else { throw .invalidSchedule(.unreadableCount(words[0])) }
            let window = try TimeRange.parse(words[2])
            var jitter = 0
            if words.count == 5, words[3].lowercased() == "jitter" {
                guard let value = Int(words[4].lowercased().replacingOccurrences(of: "m", with: "")) else {
                    throw .invalidSchedule(.unreadableJitter(words[4]))
                }
                jitter = value
            } else if words.count != 3 {
                throw .invalidSchedule(.unreadableTimes(text))
            }
            return .spread(count: count, window: window, jitterMinutes: jitter)
        }
        var list: [LocalTime] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) { list.append(try LocalTime.parse(String(part))) }
        return .fixed(Array(Set(list)).sorted())
    }

    /// Reads `mon-fri`, `mon,wed,fri`, `weekdays`, `weekends` or `all`.
    public static func parseWeekdays(_ text: String) throws(QuoteError) -> Set<Int> {
        let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        func day(_ word: Substring) throws(QuoteError) -> Int {
            let key = String(word.prefix(3)).lowercased()
            guard let index = names.firstIndex(of: key) else { throw .invalidSchedule(.unknownWeekday(String(word))) }
            return index + 1
        }
        switch text.lowercased() {
        case "all", "daily", "every day": return Set(1...7)
        case "weekdays": return Set(1...5)
        case "weekends": return [6, 7]
        default: break
        }
        var result: Set<Int> = []
        for part in text.split(separator: ",") {
            let range = part.split(separator: "-")
            if range.count == 2 {
                let from = try day(range[0]), to = try day(range[1])
                var current = from
                while true {
                    result.insert(current)
                    if current == to { break }
                    current = current % 7 + 1
                }
            } else {
                result.insert(try day(part))
            }
        }
        guard !result.isEmpty else { throw .invalidSchedule(.noWeekdaysIn(text)) }
        return result
    }

    // MARK: - Slots

    /// The next `count` planned deliveries strictly after `date`, in order.
    public func nextSlots(after date: Date, count: Int) -> [Date] {
        guard count > 0 else { return [] }
        var result: [Date] = []
        var day = LocalDay(date, in: timeZone)
        for _ in 0..<(count * 8 + 400) {
            for slot in slots(on: day) where slot > date {
                result.append(slot)
                if result.count == count { return result }
            }
            day = day.next
        }
        return result
    }

    /// Planned deliveries within `[from, through]`, in order.
    public func slots(from: Date, through: Date) -> [Date] {
        guard from <= through else { return [] }
        var result: [Date] = []
        var day = LocalDay(from, in: timeZone).previous
        let last = LocalDay(through, in: timeZone).next
        while day <= last {
            result += slots(on: day).filter { $0 >= from && $0 <= through }
            day = day.next
        }
        return result
    }

    /// The slots of one local day, in order, quiet hours and weekdays applied.
    func slots(on day: LocalDay) -> [Date] {
        guard weekdays.contains(day.isoWeekday) else { return [] }
        let times: [LocalTime]
        switch self.times {
        case .fixed(let list):
            times = list
        case .spread(let count, let window, let jitter):
            let span = window.end.minutes - window.start.minutes
            times = (0..<count).map { index in
                let base = count == 1 ? window.start.minutes : window.start.minutes + index * span / (count - 1)
                guard jitter > 0 else { return LocalTime(minutes: base) }
                let offset = Int(day.seed(index) % UInt64(2 * jitter + 1)) - jitter
                return LocalTime(minutes: min(max(base + offset, window.start.minutes), window.end.minutes))
            }
        }
        var seen: Set<Date> = []
        return times.filter { time in !quietHours.contains { $0.contains(time) } }
            .map { day.instant(at: $0, in: timeZone) }
            .filter { seen.insert($0).inserted }
            .sorted()
    }

    /// The slot a tick at `now` should deliver, given the latest slot already delivered: the
    /// latest planned slot after it (policy `latest`), or only one still within `grace` of now
    /// (policy `skip`). Never more than one: missed slots do not pile up.
    public func due(now: Date, lastDelivered: Date?, grace: TimeInterval = 600) -> Date? {
        let horizon = now.addingTimeInterval(-14 * 86_400)
        let from = max(lastDelivered.map { $0.addingTimeInterval(1) } ?? horizon, horizon)
        guard let latest = slots(from: from, through: now).last else { return nil }
        switch missedSlots {
        case .latest: return latest
        case .skip: return now.timeIntervalSince(latest) <= grace ? latest : nil
        }
    }
}

/// A calendar day in some time zone, and the DST-aware conversion of its local times.
struct LocalDay: Comparable {
    var year: Int, month: Int, day: Int

    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)! // programmer error: a zero offset always exists
        return calendar
    }()

    init(year: Int, month: Int, day: Int) {
        self.year = year; self.month = month; self.day = day
    }

    init(_ date: Date, in timeZone: TimeZone) {
        let shifted = date.addingTimeInterval(TimeInterval(timeZone.secondsFromGMT(for: date)))
        let parts = Self.utc.dateComponents([.year, .month, .day], from: shifted)
        self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    /// Midnight of this day, read as UTC.
    var naiveMidnight: Date { Self.utc.date(from: DateComponents(year: year, month: month, day: day)) ?? Date(timeIntervalSince1970: 0) }

    var next: LocalDay { LocalDay(naiveMidnight.addingTimeInterval(86_400 + 3600), in: TimeZone(secondsFromGMT: 0)!) } // programmer error: zero offset
    var previous: LocalDay { LocalDay(naiveMidnight.addingTimeInterval(-86_400 + 3600), in: TimeZone(secondsFromGMT: 0)!) } // programmer error: zero offset

    /// 1 = Monday … 7 = Sunday.
    var isoWeekday: Int {
        let weekday = Self.utc.component(.weekday, from: naiveMidnight)  // 1 = Sunday
        return weekday == 1 ? 7 : weekday - 1
    }

    /// A number fixed for this day and `index`, for jitter that is the same on every run.
    func seed(_ index: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for value in [year, month, day, index] {
            hash = (hash ^ UInt64(truncatingIfNeeded: value)) &* 0x100_0000_01b3
        }
        return hash ^ (hash >> 29)
    }

    /// The instant of local `time` on this day: a time skipped by a DST change moves forward by
    /// the gap; a time that happens twice is the first of the two.
    func instant(at time: LocalTime, in timeZone: TimeZone) -> Date {
        let naive = naiveMidnight.addingTimeInterval(TimeInterval(time.minutes * 60))
        let before = timeZone.secondsFromGMT(for: naive.addingTimeInterval(-86_400))
        let after = timeZone.secondsFromGMT(for: naive.addingTimeInterval(86_400))
        let here = timeZone.secondsFromGMT(for: naive)
        let valid = Set([before, after, here])
            .map { naive.addingTimeInterval(-TimeInterval($0)) }
            .filter { candidate in
                let offset = timeZone.secondsFromGMT(for: candidate)
                return candidate.addingTimeInterval(TimeInterval(offset)) == naive
            }
        if let first = valid.min() { return first }
        return naive.addingTimeInterval(-TimeInterval(before))
    }

    static func < (lhs: LocalDay, rhs: LocalDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

extension Schedule {
    /// The times as `suite quotes schedule set` and a settings form take them: `09:00,13:30`,
    /// or `3 between 09:00-21:00 jitter 15` (see ``parseTimes(_:)``).
    public var timesText: String {
        switch times {
        case .fixed(let list): return list.map(\.description).joined(separator: ",")
        case .spread(let count, let window, let jitter): return "\(count) between \(window)" + (jitter > 0 ? " jitter \(jitter)" : "")
        }
    }

    /// The weekdays as ``parseWeekdays(_:)`` takes them: `mon,tue,wed`.
    public var weekdaysText: String {
        let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        return weekdays.sorted().map { names[$0 - 1] }.joined(separator: ",")
    }
}
