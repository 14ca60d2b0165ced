import Foundation
import Testing
@testable import BundleCore

/// §6 of issue 14: iCalendar files are read as RFC 5545 allows them to be written, and what
/// Suite has no place for is reported, not dropped silently.
@Suite struct ICalendarReadingTests {
    /// What python-icalendar writes for a todo with a zoned due time and a foreign UID, with a
    /// recurrence, an alarm and an event beside it.
    static let pythonStyle = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//example//python-icalendar//EN\r
        BEGIN:VTIMEZONE\r
        TZID:Europe/Berlin\r
        BEGIN:STANDARD\r
        DTSTART:19701025T030000\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        END:STANDARD\r
        END:VTIMEZONE\r
        BEGIN:VTODO\r
        SUMMARY:Sign the agreement\r
        DUE;TZID=Europe/Berlin:20261201T170000\r
        DTSTAMP:20261120T120000Z\r
        UID:20261120T120000-42@example.com\r
        RRULE:FREQ=WEEKLY\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT15M\r
        END:VALARM\r
        END:VTODO\r
        BEGIN:VTODO\r
        SUMMARY:Floating\r
        DUE:20261201T170000\r
        CREATED:20261120T080000\r
        UID:floating-1\r
        END:VTODO\r
        BEGIN:VEVENT\r
        UID:event-1\r
        SUMMARY:A meeting\r
        DTSTART:20261201T100000Z\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    static func moment(_ text: String) -> Date { CompactTime.date(text) ?? .distantPast }

    @Test func zonedAndFloatingTimesAndForeignUIDsAreRead() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let (todos, dropped) = try ICalendarFormat.decodeReporting(Data(Self.pythonStyle.utf8), timeZone: newYork)
        #expect(todos.map(\.text) == ["Sign the agreement", "Floating"])
        #expect(todos[0].deadline == .time(Self.moment("20261201T160000Z")))  // 17:00 in Berlin (CET)
        #expect(todos[1].deadline == .time(Self.moment("20261201T220000Z")))  // 17:00 in the user's zone
        #expect(todos[1].createdAt == Self.moment("20261120T130000Z"))
        #expect(todos[0].foreignFields["icalendar_uid"] == .string("20261120T120000-42@example.com"))
        #expect(todos[0].uuid == ICalendarReading.uuid(forForeignUID: "20261120T120000-42@example.com"))
        #expect(todos[0].uuid != todos[1].uuid)
        #expect(dropped == ["RRULE in 1 todo", "VALARM in 1 todo", "VEVENT ×1 (not todos)"])
    }

    @Test func anUnknownTimeZoneIsReadAsLocalTimeAndSaidSo() throws {
        let text = "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:x1\r\nSUMMARY:a\r\nDUE;TZID=W. Europe Standard Time:20261201T170000\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let (todos, dropped) = try ICalendarFormat.decodeReporting(Data(text.utf8), timeZone: utc)
        #expect(todos.first?.deadline == .time(Self.moment("20261201T170000Z")))
        #expect(dropped == ["time zone 'W. Europe Standard Time' unknown, read as local time"])
    }

    @Test func aForeignUIDComesBackOnExportAndReimportUpdatesTheSameTodo() throws {
        let store = try freshStore()
        let first = try store.importData(Data(Self.pythonStyle.utf8), format: .ics, timeZone: utc)
        #expect(first.created == 2)
        #expect(first.dropped == ["RRULE in 1 todo", "VALARM in 1 todo", "VEVENT ×1 (not todos)"])
        let exported = String(decoding: try store.export(.ics, timeZone: utc), as: UTF8.self)
        #expect(exported.contains("\r\nUID:20261120T120000-42@example.com\r\n"))
        #expect(exported.contains("\r\nUID:floating-1\r\n"))
        let again = try store.importData(Data(exported.utf8), format: .ics, timeZone: utc)
        // The same todos, found by their UIDs; the export changed nothing about them.
        #expect(again.created == 0 && again.updated + again.unchanged == 2, "\(again)")
        #expect(again.dropped.isEmpty)
        #expect(try store.todos().count == 2)
    }

    @Test func aUIDWithControlCharactersIsRefused() throws {
        let text = "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:a\\nb\r\nSUMMARY:a\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        #expect(throws: BundleError.self) { try ICalendarFormat.decodeReporting(Data(text.utf8), timeZone: utc) }
    }
}
