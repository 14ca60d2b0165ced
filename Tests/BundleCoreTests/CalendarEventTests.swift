import Foundation
import Testing
@testable import BundleCore

/// Calendar events as trigger events with times (seed 003: "choose trigger event from the
/// calendar"), read from iCalendar text as calendar programs write it.
@Suite struct CalendarEventTests {
    static let now = ISO8601DateFormatter().date(from: "2026-11-24T08:00:00Z")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    func store() throws -> BundleStore { try BundleStore.inMemory(now: { Self.now }) }

    func times(_ store: BundleStore, _ name: String, within: TimeInterval = BundleStore.calendarHorizon) throws -> [String] {
        let formatter = ISO8601DateFormatter()
        return try store.upcoming(within: within).filter { $0.eventName == name }.map { formatter.string(from: $0.start) }
    }

    static let calendar = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Example//Calendar//EN\r
        BEGIN:VTIMEZONE\r
        TZID:Europe/Berlin\r
        END:VTIMEZONE\r
        BEGIN:VEVENT\r
        UID:dentist-1@example.org\r
        DTSTAMP:20261120T100000Z\r
        DTSTART;TZID=Europe/Berlin:20261125T150000\r
        DTEND;TZID=Europe/Berlin:20261125T154500\r
        SUMMARY:Dentist\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT30M\r
        SUMMARY:not the event's name\r
        END:VALARM\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:standup@example.org\r
        DTSTART;TZID=Europe/Berlin:20261102T093000\r
        DURATION:PT15M\r
        RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=12\r
        EXDATE;TZID=Europe/Berlin:20261125T093000\r
        SUMMARY:Team stand\r
         up\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:standup@example.org\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261130T093000\r
        DTSTART;TZID=Europe/Berlin:20261130T110000\r
        DURATION:PT15M\r
        SUMMARY:Team stand up (moved)\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:standup@example.org\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261202T093000\r
        STATUS:CANCELLED\r
        SUMMARY:Team stand up\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:market@example.org\r
        DTSTART;VALUE=DATE:20261128\r
        SUMMARY:Go to the market\r
        RRULE:FREQ=MONTHLY;BYDAY=4SA\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:call@example.org\r
        DTSTART:20261126T180000\r
        SUMMARY:Call mum\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:old@example.org\r
        DTSTART:20250101T100000Z\r
        SUMMARY:Last year\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:gym@example.org\r
        DTSTART:20200106T063000Z\r
        RRULE:FREQ=DAILY;INTERVAL=2;UNTIL=20261130T000000Z\r
        SUMMARY:Gym\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test func eventsBecomeTriggerEventsWithTheirTimesExpandedForThirtyDays() throws {
        let store = try store()
        _ = try store.addTodo("Bring the insurance card", event: "dentist", preposition: .before, allowNewEvent: true)
        let summary = try store.importCalendarEvents(Data(Self.calendar.utf8), timeZone: Self.berlin)
        #expect(summary.events == 6)
        #expect(summary.eventsCreated == 5, "'Dentist' matched the event the todo made")
        // A TZID time, in UTC (15:00 in Berlin in winter is 14:00Z).
        #expect(try times(store, "dentist") == ["2026-11-25T14:00:00Z"])
        let dentist = try #require(try store.upcoming(within: 3 * 86_400).first { $0.eventName == "dentist" })
        let length = try #require(dentist.end).timeIntervalSince(dentist.start)
        #expect(abs(length - 45 * 60) < 0.001, "\(length)")
        #expect(dentist.todos.map(\.text) == ["Bring the insurance card"])
        // Weekly on Monday and Wednesday from 2 Nov, twelve times: those from now on, the 25th
        // left out (EXDATE), the 30th moved to 11:00, 2 Dec cancelled; the folded SUMMARY is
        // unfolded as RFC 5545 says (the line break and the one space after it go).
        #expect(try times(store, "Team standup") == ["2026-11-30T10:00:00Z", "2026-12-07T08:30:00Z", "2026-12-09T08:30:00Z"])
        // All day, the fourth Saturday of each month, from the start of the day where imported
        // (the next, 26 December, is past the thirty days).
        #expect(try times(store, "Go to the market") == ["2026-11-27T23:00:00Z"])
        #expect(try store.upcoming(within: 86_400 * 5).first { $0.eventName == "Go to the market" }?.isAllDay == true)
        // Floating: read in the given zone.
        #expect(try times(store, "Call mum") == ["2026-11-26T17:00:00Z"])
        // Past events leave no times; a rule of every other day from 2020 is expanded up to its
        // UNTIL (today's 06:30 is over, without an end it is not under way).
        #expect(try times(store, "Last year").isEmpty)
        #expect(try times(store, "Gym") == ["2026-11-26T06:30:00Z", "2026-11-28T06:30:00Z"])
        // Upcoming within a day: only what starts by then, soonest first.
        #expect(try store.upcoming(within: 86_400).map(\.eventName).isEmpty)
        #expect(try store.upcoming(within: 2 * 86_400).map(\.eventName) == ["dentist", "Gym"])

        // Importing again replaces the times (the dentist moved to the 26th).
        let moved = Self.calendar.replacingOccurrences(of: "20261125T150000", with: "20261126T090000")
            .replacingOccurrences(of: "20261125T154500", with: "20261126T094500")
        try store.importCalendarEvents(Data(moved.utf8), timeZone: Self.berlin)
        #expect(try times(store, "dentist") == ["2026-11-26T08:00:00Z"])
    }

    @Test func remindersGoOutOnceForTimedEventsThatHaveTodos() throws {
        let store = try store()
        try store.importCalendarEvents(Data(Self.calendar.utf8), timeZone: Self.berlin)
        _ = try store.addTodo("Bring the insurance card", event: "Dentist", preposition: .before)
        _ = try store.addTodo("Floss", event: "Dentist", preposition: .before)
        let reminders = try store.takeEventReminders(within: 2 * 86_400)
        #expect(reminders.map(\.eventName) == ["Dentist"], "the gym has no todos")
        #expect(reminders.first?.todos.count == 2)
        #expect(try store.takeEventReminders(within: 2 * 86_400).isEmpty)
    }

    @Test func aMalformedCalendarChangesNothing() throws {
        let store = try store()
        try store.importCalendarEvents(Data(Self.calendar.utf8), timeZone: Self.berlin)
        let before = try store.upcoming(within: BundleStore.calendarHorizon)
        let events = try store.events()
        for (broken, words) in [
            (Self.calendar.replacingOccurrences(of: "DTSTART:20261126T180000", with: "DTSTART:tomorrow"), "is not a date-time"),
            (Self.calendar.replacingOccurrences(of: "RRULE:FREQ=MONTHLY;BYDAY=4SA", with: "RRULE:FREQ=HOURLY"), "FREQ=DAILY"),
            (Self.calendar.replacingOccurrences(of: "END:VCALENDAR", with: ""), "never closed"),
            (Self.calendar.replacingOccurrences(of: "SUMMARY:Call mum", with: "SUMMARY:"), "SUMMARY"),
            (Self.calendar.replacingOccurrences(of: "UID:call@example.org\r\n", with: ""), "no UID"),
        ] {
            #expect(throws: BundleError.self) { try store.importCalendarEvents(Data(broken.utf8), timeZone: Self.berlin) }
            do {
                try store.importCalendarEvents(Data(broken.utf8), timeZone: Self.berlin)
            } catch {
                #expect(error.description.contains(words), "\(error.description)")
            }
        }
        #expect(try store.upcoming(within: BundleStore.calendarHorizon) == before)
        #expect(try store.events() == events)
    }

    /// A calendar of one VEVENT per rule, each starting at `start` (UTC).
    static func rules(_ rules: [String], start: String = "20261120T070000Z") -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        for (index, rule) in rules.enumerated() {
            text += "BEGIN:VEVENT\r\nUID:rule-\(index)@example.org\r\nDTSTART:\(start)\r\nSUMMARY:Rule \(index)\r\nRRULE:\(rule)\r\nEND:VEVENT\r\n"
        }
        return text + "END:VCALENDAR\r\n"
    }

    @Test func byDayAndByMonthDayLimitDailyAndMonthlyRules() throws {
        let store = try store()
        try store.importCalendarEvents(Data(Self.rules([
            "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",                  // working days only
            "FREQ=MONTHLY;BYDAY=TU;BYMONTHDAY=1,2,3,4,5,6,7",   // the first Tuesday: both limits at once
            "FREQ=WEEKLY;BYDAY=WE,WE,WE;COUNT=3",               // a day named three times is one day
        ]).utf8), timeZone: Self.berlin)
        #expect(try times(store, "Rule 0", within: 7 * 86_400)
                == ["2026-11-25T07:00:00Z", "2026-11-26T07:00:00Z", "2026-11-27T07:00:00Z", "2026-11-30T07:00:00Z", "2026-12-01T07:00:00Z"])
        #expect(try times(store, "Rule 1") == ["2026-12-01T07:00:00Z"])
        // Wednesdays from 25 Nov (20 Nov was a Friday): 25 Nov, 2 and 9 Dec; not nine times.
        #expect(try times(store, "Rule 2") == ["2026-11-25T07:00:00Z", "2026-12-02T07:00:00Z", "2026-12-09T07:00:00Z"])
    }

    @Test func rulesFromLongAgoAreExpandedToTodayWithoutWalkingEveryDay() throws {
        let store = try store()
        // Daily since 1700 (no COUNT) and daily with a COUNT that reaches past today: both have
        // today's window, found by skipping the periods before it.
        try store.importCalendarEvents(Data(Self.rules(["FREQ=DAILY", "FREQ=DAILY;COUNT=200000"], start: "17000101T070000Z").utf8), timeZone: Self.berlin)
        #expect(try times(store, "Rule 0", within: 2 * 86_400) == ["2026-11-25T07:00:00Z", "2026-11-26T07:00:00Z"])
        #expect(try times(store, "Rule 1", within: 2 * 86_400) == ["2026-11-25T07:00:00Z", "2026-11-26T07:00:00Z"])
        // A rule that must be walked period by period (a COUNT of days limited to the 31st)
        // stops at its limit with a note; a file full of them is refused, changing nothing.
        let summary = try store.importCalendarEvents(Data(Self.rules(["FREQ=DAILY;BYMONTHDAY=31;COUNT=1000000"], start: "17000101T070000Z").utf8),
                                                     timeZone: Self.berlin)
        #expect(summary.notes.contains { $0.contains("repeats more often than Suite expands") }, "\(summary.notes)")
        let before = try store.upcoming(within: BundleStore.calendarHorizon)
        let many = Self.rules(Array(repeating: "FREQ=DAILY;BYMONTHDAY=31;COUNT=1000000", count: 5), start: "17000101T070000Z")
            .replacingOccurrences(of: "SUMMARY:Rule", with: "SUMMARY:Many")
        #expect { try store.importCalendarEvents(Data(many.utf8), timeZone: Self.berlin) } throws: { error in
            (error as? BundleError)?.description.contains("need more than") == true
        }
        #expect(try store.upcoming(within: BundleStore.calendarHorizon) == before)
        // Numbered days out of range, or with a weekly rule, are refused.
        for rule in ["FREQ=MONTHLY;BYDAY=6MO", "FREQ=WEEKLY;BYDAY=2MO", "FREQ=MONTHLY;BYDAY=0MO", "FREQ=MONTHLY;BYDAY=-9223372036854775808MO",
                     "FREQ=MONTHLY;BYMONTHDAY=-9223372036854775808", "FREQ=MONTHLY;BYMONTHDAY=0"] {
            #expect(throws: BundleError.self) { try store.importCalendarEvents(Data(Self.rules([rule]).utf8), timeZone: Self.berlin) }
        }
    }

    @Test func importingAgainKeepsRemindersSentAndTakesCancelledEventsAway() throws {
        let store = try store()
        try store.importCalendarEvents(Data(Self.calendar.utf8), timeZone: Self.berlin)
        _ = try store.addTodo("Bring the insurance card", event: "Dentist", preposition: .before)
        #expect(try store.takeEventReminders(within: 2 * 86_400).map(\.eventName) == ["Dentist"])
        // The same calendar again (as a timer that imports and reminds would): no second reminder.
        try store.importCalendarEvents(Data(Self.calendar.utf8), timeZone: Self.berlin)
        #expect(try store.takeEventReminders(within: 2 * 86_400).isEmpty)
        // The dentist cancelled: its time goes, and no trigger event is made for it.
        let cancelled = Self.calendar.replacingOccurrences(of: "SUMMARY:Dentist\r\n", with: "SUMMARY:Dentist\r\nSTATUS:CANCELLED\r\n")
        let summary = try store.importCalendarEvents(Data(cancelled.utf8), timeZone: Self.berlin)
        #expect(summary.events == 5)
        #expect(try times(store, "Dentist").isEmpty)
        #expect(try times(store, "Call mum") == ["2026-11-26T17:00:00Z"])
    }

    @Test func durationsAndUnsupportedRulesAreReadCarefully() {
        #expect(CalendarEvents.durationSeconds("PT1H30M") == 5_400)
        #expect(CalendarEvents.durationSeconds("P1DT2H") == 93_600)
        #expect(CalendarEvents.durationSeconds("P1W") == 604_800)
        #expect(CalendarEvents.durationSeconds("-PT5M") == nil)
        #expect(CalendarEvents.durationSeconds("PT") == nil)
        #expect(CalendarEvents.durationSeconds("P9999W") == nil)
    }
}
