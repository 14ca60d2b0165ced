import BundleCore
import Foundation
import Testing

/// §6 of issue 14: a VTODO file as python-icalendar writes it (a zoned DUE, a floating DUE, UIDs
/// that are not UUIDs, a recurrence and an alarm) imports, says what it leaves out, and exports
/// its UIDs back.
@Suite(.enabled(if: Readers.enabled, "needs Python with icalendar (.ci/run installs it)"))
struct ICalendarFromPython {
    static let writer = """
        import sys, datetime
        from zoneinfo import ZoneInfo
        from icalendar import Calendar, Todo, Alarm
        cal = Calendar(); cal.add('prodid', '-//suite tests//python-icalendar//'); cal.add('version', '2.0')
        todo = Todo(); todo.add('uid', 'python-1@example.com'); todo.add('summary', 'Sign the agreement')
        todo.add('due', datetime.datetime(2026, 12, 1, 17, 0, tzinfo=ZoneInfo('Europe/Berlin')))
        todo.add('dtstamp', datetime.datetime(2026, 11, 20, 12, 0, tzinfo=datetime.timezone.utc))
        todo.add('rrule', {'freq': 'weekly'})
        alarm = Alarm(); alarm.add('action', 'DISPLAY'); alarm.add('description', 'soon')
        alarm.add('trigger', datetime.timedelta(minutes=-15)); todo.add_component(alarm)
        cal.add_component(todo)
        floating = Todo(); floating.add('uid', 'python-2'); floating.add('summary', 'Floating')
        floating.add('due', datetime.datetime(2026, 12, 1, 17, 0)); cal.add_component(floating)
        sys.stdout.buffer.write(cal.to_ical())
        """

    @Test func pythonICalendarsTodosImportAndComeBack() throws {
        let python = try #require(Readers.python, "no Python with icalendar: run .ci/run or set SUITE_READERS_PYTHON")
        let written = try Readers.run(python, ["-c", Self.writer])
        try #require(written.status == 0, "python-icalendar failed: \(String(decoding: written.stderr, as: UTF8.self))")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-format-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try BundleStore(url: folder.appendingPathComponent(BundleStore.fileName))
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let summary = try store.importData(written.stdout, format: .ics, timeZone: newYork)
        #expect(summary.created == 2)
        #expect(summary.dropped == ["RRULE in 1 todo", "VALARM in 1 todo"])
        let todos = try store.todos()
        let signing = try #require(todos.first { $0.text == "Sign the agreement" })
        let floating = try #require(todos.first { $0.text == "Floating" })
        #expect(signing.deadline == .time(Date(timeIntervalSince1970: 1_796_140_800)))  // 2026-12-01 16:00 UTC = 17:00 CET
        #expect(floating.deadline == .time(Date(timeIntervalSince1970: 1_796_162_400)))  // 17:00 in New York = 22:00 UTC
        let exported = String(decoding: try store.export(.ics, timeZone: newYork), as: UTF8.self)
        #expect(exported.contains("\r\nUID:python-1@example.com\r\n"))
        #expect(exported.contains("\r\nUID:python-2\r\n"))
        // Python's reader sees the same two todos in Suite's export.
        let read = try Readers.read("ics", Data(exported.utf8))
        let uids = (read["bytes"] as? [[String: Any]])?.compactMap { $0["UID"] as? String }
        #expect(Set(uids ?? []) == ["python-1@example.com", "python-2"])
    }
}
