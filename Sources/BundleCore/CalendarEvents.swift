import Foundation
import GRDB
import SuiteStorage

/// One time of a trigger event, from a calendar (the seed's "choose trigger event from the
/// calendar"), with the event's open todos.
public struct EventOccurrence: Codable, Sendable, Hashable {
    /// The trigger event.
    public var eventID: TriggerEvent.ID
    /// Its name.
    public var eventName: String
    /// When it starts (for an all-day event: the start of its day where it was imported).
    public var start: Date
    /// When it ends, when the calendar says.
    public var end: Date?
    /// Whether it takes the whole day (no time of day).
    public var isAllDay: Bool
    /// The event's todos still to do (pending or in an open bundle), soonest deadline first.
    public var todos: [Todo]
}

/// What reading a calendar did.
public struct CalendarImportSummary: Codable, Sendable, Equatable {
    /// Calendar events (VEVENTs) read, repeating ones counted once.
    public var events: Int
    /// Their times within the horizon, now stored.
    public var times: Int
    /// Trigger events made for them (the others matched events already there).
    public var eventsCreated: Int
    /// What was read differently or left out (cancelled events, recurrence rules with parts
    /// Suite does not expand, unknown time zones).
    public var notes: [String]
}

extension BundleStore {
    /// How far ahead a calendar's repeating events are expanded.
    public static let calendarHorizon: TimeInterval = 30 * 86_400

    /// Reads the events (VEVENTs) of an iCalendar file into trigger events with their times: the
    /// summary names the event (an existing one when it matches, else a new one); times with a
    /// `TZID`, in UTC, floating (read in `timeZone`) or all-day; `RRULE` (daily, weekly with
    /// `BYDAY`, monthly with `BYMONTHDAY` or `BYDAY` such as `2TU`, yearly; `INTERVAL`, `COUNT`,
    /// `UNTIL`), `EXDATE` and moved or cancelled instances (`RECURRENCE-ID`) are expanded for
    /// ``calendarHorizon``. Importing a calendar again replaces the times of its events. All or
    /// nothing: a malformed file changes nothing.
    ///
    /// - Throws: ``BundleError/malformedImport(format:line:reason:)`` naming the line.
    @discardableResult
    public func importCalendarEvents(_ data: Data, timeZone: TimeZone) throws(BundleError) -> CalendarImportSummary {
        let moment = now()
        let plan = try CalendarEvents.plan(data, now: moment, horizon: Self.calendarHorizon, timeZone: timeZone)
        let stamp = stamp
        return try write { db in
            var created = 0
            for event in plan.events {
                // Times no longer in the calendar (all of a cancelled event's) are taken away.
                let keys = event.times.map { event.uid + "|" + String(Millis($0.start).value) }
                let kept = Set(keys)
                for key in try String.fetchAll(db, sql: "SELECT sync_key FROM event_time WHERE calendar_uid = ?", arguments: [event.uid])
                where !kept.contains(key) {
                    try db.execute(sql: "DELETE FROM event_time WHERE sync_key = ?", arguments: [key])
                }
                if event.cancelled { continue }
                let trigger: TriggerEvent
                if let id = try Self.findEvent(event.name, db: db) {
                    trigger = try Self.loadEvent(id, db: db)
                } else {
                    trigger = try Self.insertEvent(event.name, db: db, stamp: stamp)
                    created += 1
                }
                // Times already known keep when they were reminded of: importing again does not
                // send "before Dentist at 15:00" a second time.
                for (time, key) in zip(event.times, keys) {
                    try db.execute(sql: """
                        INSERT INTO event_time (event_id, calendar_uid, start_ms, end_ms, all_day, sync_key) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(sync_key) DO UPDATE SET event_id = excluded.event_id, end_ms = excluded.end_ms, all_day = excluded.all_day
                        WHERE event_id IS NOT excluded.event_id OR end_ms IS NOT excluded.end_ms OR all_day IS NOT excluded.all_day
                        """, arguments: [trigger.id, event.uid, Millis(time.start).value, time.end.map { Millis($0).value }, time.allDay, key])
                }
            }
            return CalendarImportSummary(events: plan.events.filter { !$0.cancelled }.count, times: plan.events.reduce(0) { $0 + $1.times.count },
                                         eventsCreated: created, notes: plan.notes)
        }
    }

    /// The event times from now to `interval` ahead (and any under way), soonest first, each with
    /// its event's open todos.
    public func upcoming(within interval: TimeInterval) throws(BundleError) -> [EventOccurrence] {
        let moment = now()
        return try read { db in
            try Self.occurrences(db, where: "(coalesce(et.end_ms, et.start_ms) >= ? AND et.start_ms <= ?)",
                                 [Millis(moment).value, Millis(moment.addingTimeInterval(max(0, interval))).value])
        }
    }

    /// The timed event times starting within `interval` whose event has open todos and that were
    /// not reminded of yet, marked as reminded now (run from a timer: each goes out once).
    public func takeEventReminders(within interval: TimeInterval) throws(BundleError) -> [EventOccurrence] {
        let moment = now()
        return try write { db in
            let due = try Self.occurrences(db, where: "et.all_day = 0 AND et.reminded_ms IS NULL AND et.start_ms >= ? AND et.start_ms <= ?",
                                           [Millis(moment).value, Millis(moment.addingTimeInterval(max(0, interval))).value])
                .filter { !$0.todos.isEmpty }
            for occurrence in due {
                try db.execute(sql: "UPDATE event_time SET reminded_ms = ? WHERE event_id = ? AND start_ms = ?",
                               arguments: [Millis(moment).value, occurrence.eventID, Millis(occurrence.start).value])
            }
            return due
        }
    }

    static func occurrences(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [EventOccurrence] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT et.event_id, e.name, et.start_ms, et.end_ms, et.all_day FROM event_time et JOIN event e ON e.id = et.event_id
            WHERE e.archived = 0 AND \(condition) ORDER BY et.start_ms, e.name
            """, arguments: arguments)
        var todosByEvent: [Int64: [Todo]] = [:]
        return try rows.map { row in
            let eventID: Int64 = row[0]
            if todosByEvent[eventID] == nil {
                todosByEvent[eventID] = try fetchTodos(db, "WHERE t.event_id = ? AND t.status IN ('pending', 'in-bundle') ORDER BY t.deadline IS NULL, t.deadline, t.id", [eventID])
            }
            return EventOccurrence(eventID: TriggerEvent.ID(eventID), eventName: row[1], start: Millis(row[2] as Int64).date,
                                   end: (row[3] as Int64?).map { Millis($0).date }, isAllDay: row[4], todos: todosByEvent[eventID] ?? [])
        }
    }

    /// The times of calendar events (migration v4): one row per time, synced by calendar UID and
    /// start; when it was reminded of is the device's own.
    static func migrateToEventTimes(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE event_time (
                id INTEGER PRIMARY KEY,
                event_id INTEGER NOT NULL REFERENCES event(id) ON DELETE CASCADE,
                calendar_uid TEXT NOT NULL,
                start_ms INTEGER NOT NULL,
                end_ms INTEGER,
                all_day INTEGER NOT NULL,
                reminded_ms INTEGER,
                sync_key TEXT NOT NULL UNIQUE
            );
            CREATE INDEX event_time_start ON event_time(start_ms);
            CREATE INDEX event_time_event ON event_time(event_id);
            CREATE INDEX event_time_calendar ON event_time(calendar_uid);
            """)
        try SyncLedger.installTriggers(db, schema: syncedBeforeRoutines)
    }
}

/// Reading VEVENTs and expanding their recurrences.
enum CalendarEvents {
    struct Time: Equatable {
        var start: Date
        var end: Date?
        var allDay: Bool
    }

    struct Event {
        var uid: String
        var name: String
        var times: [Time]
        /// Cancelled in the calendar: its times are taken away.
        var cancelled = false
    }

    /// The most times one repeating event is expanded to (a rule of every minute ends here).
    static let maximumTimes = 1_000
    /// The most recurrence periods (days, weeks, months or years) one rule is walked through.
    static let maximumPeriods = 100_000
    /// The most recurrence periods a whole file is walked through: a file that needs more is
    /// refused rather than keeping the import busy.
    static let periodBudget = 400_000

    private static func fail(_ line: Int?, _ reason: String) -> BundleError { .malformedImport(format: "iCalendar", line: line, reason: reason) }

    /// The VEVENTs of a document, each as its own properties (those of components inside it,
    /// such as VALARM, left out).
    static func components(_ data: Data) throws(BundleError) -> [[ICalendarFormat.Property]] {
        var lines = LineStream(data: data)
        var logical: [(text: String, number: Int)] = []
        while true {
            let next: (text: String, number: Int)?
            do { next = try lines.next() } catch { throw fail(error.described.line, error.described.reason) }
            guard let next else { break }
            if let first = next.text.first, first == " " || first == "\t", !logical.isEmpty {
                logical[logical.count - 1].text += next.text.dropFirst()
            } else if !next.text.isEmpty {
                logical.append(next)
            }
        }
        guard let first = logical.first else { throw fail(nil, "the file is empty") }
        var stack: [String] = []
        var events: [[ICalendarFormat.Property]] = []
        var current: [ICalendarFormat.Property] = []
        for (index, line) in logical.enumerated() {
            let property = try ICalendarFormat.parse(line.text, number: line.number)
            if index == 0, !(property.name == "BEGIN" && property.value.uppercased() == "VCALENDAR") {
                throw fail(first.number, "the file does not start with BEGIN:VCALENDAR")
            }
            switch property.name {
            case "BEGIN":
                stack.append(property.value.uppercased())
                if stack.last == "VEVENT" { current = [] }
            case "END":
                guard stack.last == property.value.uppercased() else {
                    throw fail(property.line, "END:\(property.value) does not close BEGIN:\(stack.last ?? "nothing")")
                }
                if stack.removeLast() == "VEVENT" { events.append(current) }
                if stack.isEmpty && index != logical.count - 1 { throw fail(logical[index + 1].number, "content after END:VCALENDAR") }
            default:
                if stack.last == "VEVENT" { current.append(property) }
            }
        }
        if !stack.isEmpty { throw fail(logical.last?.number, "BEGIN:\(stack.last ?? "") is never closed") }
        return events
    }

    /// The events of a document with their times from `now` to `now + horizon`.
    static func plan(_ data: Data, now: Date, horizon: TimeInterval, timeZone: TimeZone) throws(BundleError) -> (events: [Event], notes: [String]) {
        var notes: Set<String> = []
        var masters: [(uid: String, properties: [ICalendarFormat.Property])] = []
        var overrides: [String: [(original: Date, properties: [ICalendarFormat.Property])]] = [:]
        for properties in try components(data) {
            func first(_ name: String) -> ICalendarFormat.Property? { properties.first { $0.name == name } }
            guard let uidProperty = first("UID") else { throw fail(properties.first?.line, "a VEVENT has no UID") }
            let uid = ICalendarFormat.unescape(uidProperty.value).trimmingCharacters(in: .whitespaces)
            guard !uid.isEmpty, uid.count <= 1_000, !uid.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
                throw fail(uidProperty.line, "the UID is empty, longer than 1000 characters or holds control characters")
            }
            if let recurrence = first("RECURRENCE-ID") {
                let original = try time(recurrence, timeZone: timeZone, notes: &notes).start
                overrides[uid, default: []].append((original, properties))
            } else {
                masters.append((uid, properties))
            }
        }
        let end = now.addingTimeInterval(horizon)
        var events: [Event] = []
        var budget = periodBudget
        for (uid, properties) in masters {
            func first(_ name: String) -> ICalendarFormat.Property? { properties.first { $0.name == name } }
            guard let summary = first("SUMMARY") else { throw fail(properties.first?.line, "a VEVENT has no SUMMARY (the event's name)") }
            let name: String
            do {
                name = try BundleStore.validated(name: ICalendarFormat.unescape(summary.value), what: .eventPhrase)
            } catch {
                throw fail(summary.line, "SUMMARY: \(error.description)")
            }
            if first("STATUS")?.value.uppercased() == "CANCELLED" {
                notes.insert("cancelled events left out")
                events.append(Event(uid: uid, name: name, times: [], cancelled: true))
                continue
            }
            guard let startProperty = first("DTSTART") else { throw fail(properties.first?.line, "a VEVENT has no DTSTART") }
            let start = try time(startProperty, timeZone: timeZone, notes: &notes)
            let length = try duration(properties, start: start, timeZone: timeZone, notes: &notes)
            var starts = [start.start]
            if let rule = first("RRULE") {
                // Times that began up to the event's length (or a day) ago may still be under way.
                let keepFrom = now.addingTimeInterval(-max(length ?? 0, 86_400))
                starts = try expand(rule, from: start, keepingFrom: keepFrom, until: end, zone: zone(startProperty, timeZone: timeZone), notes: &notes, name: name,
                                    budget: &budget)
            }
            var excluded: Set<Date> = []
            for property in properties where property.name == "EXDATE" {
                for value in property.value.split(separator: ",") {
                    var single = property
                    single.value = String(value)
                    excluded.insert(try time(single, timeZone: timeZone, notes: &notes).start)
                }
            }
            var times: [Time] = []
            let moved = overrides[uid] ?? []
            for occurrence in starts where !excluded.contains(occurrence) {
                if let change = moved.first(where: { $0.original == occurrence }) {
                    func changed(_ name: String) -> ICalendarFormat.Property? { change.properties.first { $0.name == name } }
                    if changed("STATUS")?.value.uppercased() == "CANCELLED" { continue }
                    let newStart = try changed("DTSTART").map { (property) throws(BundleError) in try time(property, timeZone: timeZone, notes: &notes) } ?? start
                    let newLength = try duration(change.properties, start: newStart, timeZone: timeZone, notes: &notes)
                    let begin = changed("DTSTART") == nil ? occurrence : newStart.start
                    times.append(Time(start: begin, end: newLength.map { begin.addingTimeInterval($0) }, allDay: newStart.allDay))
                } else {
                    times.append(Time(start: occurrence, end: length.map { occurrence.addingTimeInterval($0) }, allDay: start.allDay))
                }
            }
            // An instance moved here from a time outside the expanded ones (before the window, say).
            if first("RRULE") != nil {
                let expanded = Set(starts)
                for change in moved where !expanded.contains(change.original) && !excluded.contains(change.original) {
                    guard change.properties.first(where: { $0.name == "STATUS" })?.value.uppercased() != "CANCELLED",
                          let property = change.properties.first(where: { $0.name == "DTSTART" }) else { continue }
                    let newStart = try time(property, timeZone: timeZone, notes: &notes)
                    let newLength = try duration(change.properties, start: newStart, timeZone: timeZone, notes: &notes)
                    times.append(Time(start: newStart.start, end: newLength.map { newStart.start.addingTimeInterval($0) }, allDay: newStart.allDay))
                }
                times.sort { $0.start < $1.start }
            }
            var seen: Set<Date> = []
            times = times.filter { ($0.end ?? $0.start) >= now && $0.start <= end && seen.insert($0.start).inserted }
            events.append(Event(uid: uid, name: name, times: times))
        }
        return (events, notes.sorted())
    }

    /// A DTSTART, DTEND, EXDATE or RECURRENCE-ID value: a date-time (UTC, `TZID` or floating) or
    /// a date (all day, from the start of that day in `timeZone`).
    static func time(_ property: ICalendarFormat.Property, timeZone: TimeZone, notes: inout Set<String>) throws(BundleError) -> (start: Date, allDay: Bool) {
        let value = property.value.trimmingCharacters(in: .whitespaces)
        if property.parameters["VALUE"]?.uppercased() == "DATE" || (value.count == 8 && value.allSatisfy(\.isNumber)) {
            guard value.count == 8, value.allSatisfy(\.isNumber), let date = CompactTime.date(value + "T000000", in: timeZone) else {
                throw fail(property.line, "\(property.name) '\(value)' is not a date like 20261201")
            }
            return (date, true)
        }
        guard let read = ICalendarReading.dateTime(value, tzid: property.parameters["TZID"], timeZone: timeZone) else {
            throw fail(property.line, "\(property.name) '\(value)' is not a date-time like 20261121T093000Z, 20261121T093000 or TZID=Europe/Berlin:20261121T093000")
        }
        if let warning = read.warning { notes.insert(warning) }
        return (read.date, false)
    }

    /// The zone repeating times keep their clock time in: the `TZID`'s, UTC for `…Z`, else the user's.
    static func zone(_ property: ICalendarFormat.Property, timeZone: TimeZone) -> TimeZone {
        if property.value.hasSuffix("Z") { return TimeZone(identifier: "UTC") ?? timeZone }
        if let tzid = property.parameters["TZID"], let known = TimeZone(identifier: tzid.hasPrefix("/") ? String(tzid.dropFirst()) : tzid) { return known }
        return timeZone
    }

    /// How long an event lasts: DTEND − DTSTART, or DURATION, or a day for an all-day event.
    static func duration(_ properties: [ICalendarFormat.Property], start: (start: Date, allDay: Bool), timeZone: TimeZone,
                         notes: inout Set<String>) throws(BundleError) -> TimeInterval? {
        if let endProperty = properties.first(where: { $0.name == "DTEND" }) {
            let endTime = try time(endProperty, timeZone: timeZone, notes: &notes).start
            guard endTime >= start.start else { throw fail(endProperty.line, "DTEND is before DTSTART") }
            return endTime.timeIntervalSince(start.start)
        }
        if let durationProperty = properties.first(where: { $0.name == "DURATION" }) {
            guard let seconds = durationSeconds(durationProperty.value) else {
                throw fail(durationProperty.line, "DURATION '\(durationProperty.value)' is not like PT1H30M or P1D")
            }
            return seconds
        }
        return start.allDay ? 86_400 : nil
    }

    /// An RFC 5545 duration (`P1W`, `P1DT2H`, `PT45M`) in seconds; nil when malformed or negative.
    static func durationSeconds(_ text: String) -> TimeInterval? {
        var rest = Substring(text.uppercased())
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total = 0.0, number = "", inTime = false, any = false
        for character in rest {
            if character.isNumber { number.append(character); continue }
            if character == "T" { inTime = true; continue }
            guard let value = Double(number) else { return nil }
            number = ""
            any = true
            switch (character, inTime) {
            case ("W", false): total += value * 604_800
            case ("D", false): total += value * 86_400
            case ("H", true): total += value * 3_600
            case ("M", true): total += value * 60
            case ("S", true): total += value
            default: return nil
            }
        }
        return any && number.isEmpty && total <= 366 * 86_400 ? total : nil
    }

    /// The starts of a repeating event from `keepFrom` up to `until` (at most ``maximumTimes``),
    /// counted from its first for `COUNT`. Each period walked (a day, week, month or year) takes
    /// one from `budget`, shared by the whole file.
    static func expand(_ rule: ICalendarFormat.Property, from first: (start: Date, allDay: Bool), keepingFrom keepFrom: Date, until horizon: Date,
                       zone: TimeZone, notes: inout Set<String>, name: String, budget: inout Int) throws(BundleError) -> [Date] {
        var parts: [String: String] = [:]
        for part in rule.value.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw fail(rule.line, "RRULE part '\(part.prefix(100))' is not NAME=VALUE") }
            parts[pair[0].uppercased()] = pair[1].uppercased()
        }
        let known: Set<String> = ["FREQ", "INTERVAL", "COUNT", "UNTIL", "BYDAY", "BYMONTHDAY", "WKST"]
        if let unknown = parts.keys.sorted().first(where: { !known.contains($0) }) {
            notes.insert("'\(name)' repeats by \(unknown.prefix(40)), which is not expanded: only its first time is kept")
            return [first.start]
        }
        guard let frequency = parts["FREQ"], ["DAILY", "WEEKLY", "MONTHLY", "YEARLY"].contains(frequency) else {
            throw fail(rule.line, "RRULE needs FREQ=DAILY, WEEKLY, MONTHLY or YEARLY")
        }
        let interval = parts["INTERVAL"].map { Int($0) ?? 0 } ?? 1
        guard (1...1000).contains(interval) else { throw fail(rule.line, "RRULE INTERVAL must be 1 to 1000") }
        var count: Int?
        if let text = parts["COUNT"] {
            guard let number = Int(text), number >= 1 else { throw fail(rule.line, "RRULE COUNT must be a positive number") }
            count = number
        }
        var until = horizon
        if let value = parts["UNTIL"] {
            var property = rule
            property.value = value
            property.parameters = [:]
            let end = try time(property, timeZone: zone, notes: &notes)
            until = min(horizon, end.allDay ? end.start.addingTimeInterval(86_399) : end.start)
        }
        let weekdays: [String: Int] = ["SU": 1, "MO": 2, "TU": 3, "WE": 4, "TH": 5, "FR": 6, "SA": 7]
        // Each day once: a list that names a day twice counts it once.
        var byDay: [(ordinal: Int?, weekday: Int)] = []
        var seenDays: Set<String> = []
        for item in (parts["BYDAY"] ?? "").split(separator: ",") {
            let code = String(item.suffix(2)), prefix = item.dropLast(2)
            let ordinal = prefix.isEmpty ? nil : Int(prefix)
            // Ranges without abs(): a number as small as Int.min must be refused, not trap.
            let ordinals = frequency == "YEARLY" ? -53...53 : -5...5
            guard let weekday = weekdays[code], prefix.isEmpty || ordinal.map({ $0 != 0 && ordinals.contains($0) }) == true else {
                throw fail(rule.line, "RRULE BYDAY '\(item.prefix(20))' is not like MO, 2TU or -1FR")
            }
            guard ordinal == nil || frequency == "MONTHLY" || frequency == "YEARLY" else {
                throw fail(rule.line, "RRULE BYDAY '\(item.prefix(20))': a numbered day goes with FREQ=MONTHLY or YEARLY only")
            }
            if seenDays.insert("\(ordinal ?? 0)\(weekday)").inserted { byDay.append((ordinal, weekday)) }
        }
        var byMonthDay: [Int] = []
        for item in (parts["BYMONTHDAY"] ?? "").split(separator: ",") {
            guard let day = Int(item), day != 0, (-31...31).contains(day) else { throw fail(rule.line, "RRULE BYMONTHDAY '\(item.prefix(20))' is not a day of the month") }
            if !byMonthDay.contains(day) { byMonthDay.append(day) }
        }
        if frequency == "YEARLY" && (!byDay.isEmpty || !byMonthDay.isEmpty) {
            notes.insert("'\(name)' repeats yearly by BYDAY or BYMONTHDAY, which is not expanded: only its first time is kept")
            return [first.start]
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        calendar.firstWeekday = 2  // weeks start on Monday (WKST=MO)
        let clock = calendar.dateComponents([.hour, .minute, .second], from: first.start)
        func at(_ day: Date) -> Date? {
            calendar.date(bySettingHour: clock.hour ?? 0, minute: clock.minute ?? 0, second: clock.second ?? 0, of: day)
        }
        /// The days of the month (1…31, from the end when negative) a BYMONTHDAY list names, in a month of `length` days.
        func monthDays(_ length: Int) -> Set<Int> {
            Set(byMonthDay.map { $0 > 0 ? $0 : length + $0 + 1 }.filter { (1...length).contains($0) })
        }
        /// Whether a day a DAILY or WEEKLY rule gives passes its BYDAY and BYMONTHDAY limits.
        func passes(_ date: Date) -> Bool {
            if frequency == "DAILY", !byDay.isEmpty, !byDay.contains(where: { $0.weekday == calendar.component(.weekday, from: date) }) { return false }
            if !byMonthDay.isEmpty {
                guard let length = calendar.range(of: .day, in: .month, for: date)?.count,
                      monthDays(length).contains(calendar.component(.day, from: date)) else { return false }
            }
            return true
        }
        var starts: [Date] = []
        var produced = 0
        // Every time counts towards COUNT; only those that may still be under way are kept.
        func take(_ candidates: [Date]) -> Bool {
            for candidate in candidates.sorted() where candidate >= first.start {
                if candidate > until || produced >= (count ?? Int.max) || starts.count >= maximumTimes { return false }
                produced += 1
                if candidate >= keepFrom { starts.append(candidate) }
            }
            return true
        }
        let startDay = calendar.startOfDay(for: first.start)
        let unit: Calendar.Component = switch frequency {
        case "DAILY": .day
        case "WEEKLY": .weekOfYear
        case "MONTHLY": .month
        default: .year
        }
        let periodOfFirst: Date? = switch frequency {
        case "WEEKLY": calendar.dateInterval(of: .weekOfYear, for: startDay)?.start
        case "MONTHLY": calendar.dateInterval(of: .month, for: startDay)?.start
        default: startDay
        }
        guard let firstPeriod = periodOfFirst else { return [first.start] }
        // Periods that end before the window are skipped without walking them, unless COUNT
        // needs them counted and they may give other than one time each.
        let firstDay = calendar.component(.day, from: first.start), firstMonth = calendar.component(.month, from: first.start)
        let oneEach = byDay.isEmpty && byMonthDay.isEmpty
            && (frequency == "DAILY" || frequency == "WEEKLY" || (frequency == "MONTHLY" && firstDay <= 28)
                || (frequency == "YEARLY" && !(firstMonth == 2 && firstDay == 29)))
        var period = 0
        if count == nil || oneEach,
           let elapsed = calendar.dateComponents([unit], from: firstPeriod, to: keepFrom).value(for: unit), elapsed > interval {
            period = elapsed / interval - 1
            produced = period
        }
        var walked = 0
        while true {
            guard let periodStart = calendar.date(byAdding: unit, value: period * interval, to: firstPeriod), periodStart <= until else { break }
            walked += 1
            guard walked <= maximumPeriods else {
                notes.insert("'\(name)' repeats more often than Suite expands: its later times are left out")
                break
            }
            budget -= 1
            guard budget >= 0 else {
                throw fail(rule.line, "the file's repeating events need more than \(periodBudget) steps to expand; import a shorter calendar")
            }
            var candidates: [Date] = []
            switch frequency {
            case "DAILY":
                if passes(periodStart), let time = at(periodStart) { candidates = [time] }
            case "WEEKLY":
                let days = byDay.isEmpty ? [calendar.component(.weekday, from: first.start)] : byDay.map(\.weekday)
                for weekday in days {
                    let offset = (weekday - 2 + 7) % 7
                    if let day = calendar.date(byAdding: .day, value: offset, to: periodStart), passes(day), let time = at(day) { candidates.append(time) }
                }
            case "MONTHLY":
                guard let length = calendar.range(of: .day, in: .month, for: periodStart)?.count else { break }
                var days: Set<Int>
                if byDay.isEmpty && byMonthDay.isEmpty {
                    days = firstDay <= length ? [firstDay] : []
                } else {
                    days = byMonthDay.isEmpty ? Set(1...length) : monthDays(length)
                    if !byDay.isEmpty {
                        // The weekday of day d is counted from the weekday of the 1st; each
                        // weekday's days are listed once a month, however many entries name it.
                        let firstWeekday = calendar.component(.weekday, from: periodStart)
                        var daysOf = [[Int]](repeating: [], count: 8)
                        for day in 1...length { daysOf[(firstWeekday - 1 + day - 1) % 7 + 1].append(day) }
                        var named: Set<Int> = []
                        for (ordinal, weekday) in byDay {
                            let matching = daysOf[weekday]
                            if let ordinal {
                                let index = ordinal > 0 ? ordinal - 1 : matching.count + ordinal
                                if matching.indices.contains(index) { named.insert(matching[index]) }
                            } else {
                                named.formUnion(matching)
                            }
                        }
                        days.formIntersection(named)
                    }
                }
                for day in days {
                    if let date = calendar.date(byAdding: .day, value: day - 1, to: periodStart), let time = at(date) { candidates.append(time) }
                }
            default:  // YEARLY: the first's month and day
                let parts = calendar.dateComponents([.year, .month, .day], from: first.start)
                if let year = parts.year, let date = calendar.date(from: DateComponents(year: year + period * interval, month: parts.month, day: parts.day)),
                   calendar.component(.day, from: date) == parts.day, let time = at(date) {
                    candidates = [time]
                }
            }
            if !take(candidates) { break }
            period += 1
        }
        return starts
    }
}
