import Foundation
import Testing
@testable import QuoteCore

func schedule(_ times: String, weekdays: String = "all", quiet: [String] = [], zone: String = "UTC",
              missed: Schedule.MissedSlots = .latest) throws -> Schedule {
    try Schedule(times: try Schedule.parseTimes(times), weekdays: try Schedule.parseWeekdays(weekdays),
                 quietHours: try quiet.map { try TimeRange.parse($0) }, timeZoneIdentifier: zone, missedSlots: missed)
}

@Suite struct ScheduleTests {
    @Test func fixedTimes() throws {
        let slots = try schedule("13:30,09:00").nextSlots(after: date("2026-11-20T10:00:00Z"), count: 3)
        #expect(slots.map(iso) == ["2026-11-20T13:30:00Z", "2026-11-21T09:00:00Z", "2026-11-21T13:30:00Z"])
    }

    @Test(arguments: [
        ("1 between 09:00-21:00", ["09:00"]),
        ("2 between 09:00-21:00", ["09:00", "21:00"]),
        ("3 between 09:00-21:00", ["09:00", "15:00", "21:00"]),
        ("5 between 08:00-10:00", ["08:00", "08:30", "09:00", "09:30", "10:00"]),
        ("4 between 09:00-10:00", ["09:00", "09:20", "09:40", "10:00"]),
    ])
    func evenlySpreadWindows(times: String, expected: [String]) throws {
        let slots = try schedule(times).slots(from: date("2026-11-20T00:00:00Z"), through: date("2026-11-20T23:59:00Z"))
        #expect(slots.map { String(iso($0).dropFirst(11).prefix(5)) } == expected)
    }

    @Test func jitterStaysInTheWindowAndIsTheSameEveryRun() throws {
        let jittered = try schedule("4 between 09:00-17:00 jitter 30")
        let day = jittered.slots(from: date("2026-11-20T00:00:00Z"), through: date("2026-11-20T23:59:00Z"))
        #expect(day.count == 4)
        #expect(day.allSatisfy { $0 >= date("2026-11-20T09:00:00Z") && $0 <= date("2026-11-20T17:00:00Z") })
        #expect(jittered.slots(from: date("2026-11-20T00:00:00Z"), through: date("2026-11-20T23:59:00Z")) == day)
    }

    @Test func weekdaysOnly() throws {
        // 2026-11-20 is a Friday.
        let slots = try schedule("09:00", weekdays: "mon-fri").nextSlots(after: date("2026-11-20T10:00:00Z"), count: 2)
        #expect(slots.map(iso) == ["2026-11-23T09:00:00Z", "2026-11-24T09:00:00Z"])
        let weekend = try schedule("09:00", weekdays: "sat,sun").nextSlots(after: date("2026-11-20T10:00:00Z"), count: 3)
        #expect(weekend.map(iso) == ["2026-11-21T09:00:00Z", "2026-11-22T09:00:00Z", "2026-11-28T09:00:00Z"])
        #expect(try Schedule.parseWeekdays("fri-mon") == [5, 6, 7, 1])
    }

    @Test func quietHoursDropSlotsAcrossMidnight() throws {
        let slots = try schedule("06:00,12:00,23:00", quiet: ["22:00-07:00"]).slots(from: date("2026-11-20T00:00:00Z"), through: date("2026-11-20T23:59:00Z"))
        #expect(slots.map(iso) == ["2026-11-20T12:00:00Z"])
    }

    // DST: spring forward skips 02:00–03:00 local; fall back repeats 01:00–02:00 (New York) or 02:00–03:00 (Berlin).
    @Test(arguments: [
        ("Europe/Berlin", "2026-03-29", "02:30", "2026-03-29T01:30:00Z"),      // does not exist: moves forward to 03:30 CEST
        ("Europe/Berlin", "2026-10-25", "02:30", "2026-10-25T00:30:00Z"),      // happens twice: the first, 02:30 CEST
        ("Europe/Berlin", "2026-03-29", "09:00", "2026-03-29T07:00:00Z"),
        ("Europe/Berlin", "2026-10-25", "09:00", "2026-10-25T08:00:00Z"),
        ("America/New_York", "2026-03-08", "02:30", "2026-03-08T07:30:00Z"),   // moves forward to 03:30 EDT
        ("America/New_York", "2026-11-01", "01:30", "2026-11-01T05:30:00Z"),   // first 01:30, EDT
        ("America/New_York", "2026-11-01", "09:00", "2026-11-01T14:00:00Z"),
    ])
    func daylightSavingTransitions(zone: String, day: String, time: String, expected: String) throws {
        let plan = try schedule(time, zone: zone)
        let slots = plan.slots(from: date("\(day)T00:00:00Z").addingTimeInterval(-86_400), through: date("\(day)T23:59:00Z").addingTimeInterval(86_400))
        #expect(slots.map(iso).contains(expected), "\(slots.map(iso))")
        // Exactly one slot that day, never two.
        let sameDay = slots.filter { abs($0.timeIntervalSince(date(expected))) < 12 * 3600 }
        #expect(sameDay.count == 1)
    }

    @Test func aRepeatedHourFiresOnceOverAWholeWeek() throws {
        let slots = try schedule("01:30", zone: "America/New_York").slots(from: date("2026-10-29T00:00:00Z"), through: date("2026-11-05T00:00:00Z"))
        #expect(slots.count == 7)
    }

    @Test(arguments: [
        ("25:00", "25:00 is not a time of day") , ("9", "is not a time like 09:00"), ("12:60", "is not a time"),
        ("3 between 21:00-09:00", "ends before it starts"), ("0 between 09:00-10:00", "the count must be 1 to 96"),
        ("x between 09:00-10:00", "is not a number"), ("", "is not a time like 09:00"), ("09:00,", "is not a time like 09:00"),
        ("3 between 09:00-10:00 jitter 999", "jitter must be 0 to 180"),
    ])
    func badTimesAreRefused(text: String, message: String) {
        #expect {
            try schedule(text)
        } throws: { error in
            guard case .invalidSchedule(let problem) = error as? QuoteError else { return false }
            return problem.description.contains(message)
        }
    }

    @Test func unknownTimeZonesAndWeekdaysAreRefused() {
        #expect(throws: QuoteError.invalidSchedule(.unknownTimeZone("Mars/Olympus"))) {
            try schedule("09:00", zone: "Mars/Olympus")
        }
        #expect(throws: QuoteError.invalidSchedule(.unknownWeekday("funday"))) { try Schedule.parseWeekdays("funday") }
    }
}

@Suite struct DeliveryTests {
    func store(clock: TestClock) throws -> QuoteStore {
        let store = try freshStore(now: { clock.now })
        try store.installStarterCollection()
        return store
    }

    @Test func tickingTwiceForOneSlotDeliversOnce() throws {
        let clock = TestClock(date("2026-11-20T09:00:10Z"))
        let store = try store(clock: clock)
        try store.setSchedule(try schedule("09:00,13:30"), user: "ada")
        #expect(try store.deliverDue(now: clock.now, user: "ada", channel: "stdout")?.slot == date("2026-11-20T09:00:00Z"))
        #expect(try store.deliverDue(now: date("2026-11-20T09:00:40Z"), user: "ada", channel: "stdout") == nil)
        #expect(try store.deliverDue(now: date("2026-11-20T13:29:00Z"), user: "ada", channel: "stdout") == nil)
        #expect(try store.deliverDue(now: date("2026-11-20T13:30:05Z"), user: "ada", channel: "stdout")?.slot == date("2026-11-20T13:30:00Z"))
        #expect(try store.history(user: "ada").count == 2)
    }

    @Test func afterAThreeDayGapOnlyTheLatestSlotIsDelivered() throws {
        let clock = TestClock(date("2026-11-20T09:00:00Z"))
        let store = try store(clock: clock)
        try store.setSchedule(try schedule("3 between 09:00-21:00"), user: "ada")
        _ = try store.deliverDue(now: date("2026-11-20T09:00:30Z"), user: "ada", channel: "stdout")
        let late = date("2026-11-23T16:00:00Z")
        #expect(try store.deliverDue(now: late, user: "ada", channel: "stdout")?.slot == date("2026-11-23T15:00:00Z"))
        #expect(try store.deliverDue(now: late.addingTimeInterval(30), user: "ada", channel: "stdout") == nil)
        #expect(try store.history(user: "ada").count == 2)
    }

    @Test func withSkipMissedSlotsAreNotDeliveredAtAll() throws {
        let clock = TestClock(date("2026-11-20T09:00:00Z"))
        let store = try store(clock: clock)
        try store.setSchedule(try schedule("3 between 09:00-21:00", missed: .skip), user: "ada")
        _ = try store.deliverDue(now: date("2026-11-20T09:00:30Z"), user: "ada", channel: "stdout")
        #expect(try store.deliverDue(now: date("2026-11-23T16:00:00Z"), user: "ada", channel: "stdout") == nil)
        #expect(try store.deliverDue(now: date("2026-11-23T21:01:00Z"), user: "ada", channel: "stdout")?.slot == date("2026-11-23T21:00:00Z"))
    }

    @Test func noScheduleMeansNothingDue() throws {
        let clock = TestClock(date("2026-11-20T09:00:00Z"))
        let store = try store(clock: clock)
        #expect(try store.deliverDue(now: clock.now, user: "ada", channel: "stdout") == nil)
        #expect(try store.due(now: clock.now, user: "ada") == nil)
    }
}
