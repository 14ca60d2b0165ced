import Foundation
import Testing

/// §6 of issue 14: `bundle import` takes what RFC 5545 allows and warns about what it leaves out.
@Suite struct ICalendarImport {
    @Test func aPythonICalendarFileImportsWithAWarningLine() throws {
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        let file = suite.path("python.ics")
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//\r\nBEGIN:VTODO\r\nSUMMARY:Sign it\r\n"
            + "DUE;TZID=Europe/Berlin:20261201T170000\r\nDTSTAMP:20261120T120000Z\r\nUID:42@example.com\r\nRRULE:FREQ=DAILY\r\n"
            + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let result = try suite.run("bundle", "import", file)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines == ["suite: warning: not imported, as Suite has no place for them: RRULE in 1 todo, VALARM in 1 todo"])
        // A time for people: local (issue 38, §5).
        let listed = try suite.runProcess(["bundle", "todos"], environment: ["TZ": "UTC"]).stdout
        #expect(listed.contains("Sign it [due Tue 2026-12-01 16:00]"), "\(listed)")
        #expect(try suite.run("bundle", "export", "--format", "ics").stdout.contains("UID:42@example.com\r\n"))
    }
}
