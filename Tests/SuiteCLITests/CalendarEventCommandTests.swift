import Foundation
import Testing

/// `bundle events import` on a calendar written by Python's icalendar (TZID, RRULE, all-day),
/// `bundle upcoming`, and `bundle remind` before a timed event.
@Suite struct CalendarEventCommandTests {
    static let writer = """
        import datetime, sys, zoneinfo
        from icalendar import Calendar, Event
        cal = Calendar()
        cal.add('prodid', '-//Suite tests//EN')
        cal.add('version', '2.0')
        utc = datetime.timezone.utc
        ny, berlin = zoneinfo.ZoneInfo('America/New_York'), zoneinfo.ZoneInfo('Europe/Berlin')
        now = datetime.datetime.now(utc).replace(second=0, microsecond=0)
        dentist = Event()
        dentist.add('uid', 'dentist@suite.test')
        dentist.add('summary', 'Dentist')
        start = (now + datetime.timedelta(hours=3)).astimezone(ny)
        dentist.add('dtstart', start)
        dentist.add('dtend', start + datetime.timedelta(minutes=45))
        dentist.add('dtstamp', now)
        cal.add_component(dentist)
        standup = Event()
        standup.add('uid', 'standup@suite.test')
        standup.add('summary', 'Team standup')
        first = (now - datetime.timedelta(days=7)).astimezone(berlin).replace(hour=9, minute=30)
        standup.add('dtstart', first)
        standup.add('duration', datetime.timedelta(minutes=15))
        standup.add('rrule', {'freq': 'weekly', 'byday': ['MO', 'TU', 'WE', 'TH', 'FR'], 'count': 30})
        cal.add_component(standup)
        market = Event()
        market.add('uid', 'market@suite.test')
        market.add('summary', 'Go to the market')
        market.add('dtstart', (now + datetime.timedelta(days=2)).date())
        cal.add_component(market)
        open(sys.argv[1], 'wb').write(cal.to_ical())
        # What a reader must find: the dentist's start in UTC, and the standups from now on for 30 days.
        times, day = [], first
        while len(times) < 30:
            if day.weekday() < 5:
                times.append(day)
            day = (day + datetime.timedelta(days=1)).replace(hour=9, minute=30)
        coming = [t for t in times if t + datetime.timedelta(minutes=15) >= now and t <= now + datetime.timedelta(days=30)]
        print(start.astimezone(utc).strftime('%Y-%m-%dT%H:%M:%SZ'))
        print(len(coming))
        print(coming[0].astimezone(utc).strftime('%Y-%m-%dT%H:%M:%SZ') if coming else '-')
        """

    @Test(.enabled(if: icalendarPython != nil || inCI, "Python's icalendar is not installed (.ci/run installs it)"))
    func aCalendarFromPythonsIcalendarGivesEventsTimesAndReminders() throws {
        let python = try #require(icalendarPython, "CI must provide Python's icalendar (.ci/run installs it)")
        let suite = try Suite()
        let file = suite.path("calendar.ics")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.writer, file]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let expected = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0 && expected.count == 3)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("DTSTART;TZID=America/New_York:"))
        #expect(text.contains("RRULE:FREQ=WEEKLY;COUNT=30;BYDAY=MO,TU,WE,TH,FR") || text.contains("RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=30"))

        let imported = try suite.run("bundle", "events", "import", file)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Read 3 calendar events:"))
        #expect(imported.stdout.contains("3 new trigger events"))
        #expect(try suite.run("bundle", "add", "Bring the insurance card", "--before", "Dentist").status == 0)

        let upcoming = try JSONDecoder().decode([JSONValue].self, from: Data(try suite.run("bundle", "upcoming", "--within", "30d", "--json").stdout.utf8))
        let dentist = try #require(upcoming.first { $0["eventName"]?.string == "Dentist" })
        #expect(dentist["start"]?.string?.hasPrefix(String(expected[0].dropLast(4))) == true, "\(dentist["start"] ?? .null) vs \(expected[0])")
        #expect(dentist["todos"]?.array.count == 1)
        let standups = upcoming.filter { $0["eventName"]?.string == "Team standup" }
        #expect(standups.count == Int(expected[1]), "\(standups.count) standups, Python counts \(expected[1])")
        #expect(standups.first?["start"]?.string?.hasPrefix(String(expected[2].dropLast(4))) == true)
        #expect(upcoming.contains { $0["eventName"]?.string == "Go to the market" && $0["isAllDay"] == .bool(true) })

        // The text listing, then a reminder before the dentist (once).
        let listing = try suite.run("bundle", "upcoming", "--within", "1d")
        #expect(listing.stdout.contains("Dentist — "))
        // Times for people by the one rule: `Tue 2026-11-25 15:00`, never `Tue 25 Nov`.
        #expect(listing.stdout.range(of: #"Dentist — (Sun|Mon|Tue|Wed|Thu|Fri|Sat) \d{4}-\d{2}-\d{2} \d{2}:\d{2}"#, options: .regularExpression) != nil,
                "\(listing.stdout)")
        #expect(listing.stdout.contains(": 1 todo\n  "))
        let remind = try suite.run("bundle", "remind", "--within", "6h", "--stdout")
        #expect(remind.status == 0, "\(remind.stderr)")
        #expect(remind.stdout.hasPrefix("before Dentist at "), "\(remind.stdout)")
        #expect(remind.stdout.contains(": 1 todo\n  "))
        #expect(remind.stdout.contains("Bring the insurance card"))
        #expect(!(try suite.run("bundle", "remind", "--within", "6h", "--stdout").stdout.contains("before Dentist")))

        // A broken calendar changes nothing.
        let before = try suite.run("bundle", "upcoming", "--within", "30d", "--json").stdout
        try "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:Broken\r\nDTSTART:soon\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".write(toFile: suite.path("bad.ics"), atomically: true, encoding: .utf8)
        expectFailure(try suite.run("bundle", "events", "import", suite.path("bad.ics")), status: 65, "line 5")
        #expect(try suite.run("bundle", "upcoming", "--within", "30d", "--json").stdout == before)
        #expect(!(try suite.run("bundle", "events").stdout.contains("Broken")))
    }
}

/// `bundle add --link --attach` through the binary: checked before anything is written, shown,
/// and exported as VTODO ATTACH that Python's icalendar reads.
@Suite struct AttachmentCommandTests {
    @Test func addWithLinksAndFilesShowsAndExportsThem() throws {
        let suite = try Suite()
        let pdf = suite.path("lease.pdf")
        try Data("%PDF-1.4 lease".utf8).write(to: URL(fileURLWithPath: pdf))
        // A bad link or a missing file: refused, no todo written.
        expectFailure(try suite.run("bundle", "add", "Sign the lease", "--link", "javascript:alert(1)"), status: 65, "is not a link")
        expectFailure(try suite.run("bundle", "add", "Sign the lease", "--attach", suite.path("missing.pdf")), status: 66, "no such file")
        #expect(try suite.run("bundle", "list").stdout.hasPrefix("No todos"))
        let added = try suite.run("bundle", "add", "Sign the lease", "--before", "go to the agency",
                                  "--link", "https://example.org/lease", "--attach", pdf)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("With 1 link and 1 file ('suite bundle attachments 1')."))
        let listing = try suite.run("bundle", "attachments", "1")
        #expect(listing.stdout.contains("#1  link https://example.org/lease"))
        #expect(listing.stdout.contains("#2  file lease.pdf ("))
        let fileLine = try #require(listing.stdout.split(separator: "\n").last)
        let stored = String(try #require(fileLine.range(of: " at ").map { fileLine[$0.upperBound...] }))
        #expect(FileManager.default.fileExists(atPath: stored), "\(stored)")
        #expect(stored.hasPrefix(suite.storeFolder.appendingPathComponent("attachments").path))
        let file = suite.path("todos.ics")
        #expect(try suite.run("bundle", "export", "--format", "ics", "-o", file).status == 0)
        if let python = icalendarPython {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-c", "import sys, icalendar\nfor t in icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read()).walk('VTODO'):\n    a = t.get('ATTACH')\n    print('\\n'.join(str(x) for x in (a if isinstance(a, list) else [a])))", file]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(output.hasPrefix("https://example.org/lease\nfile:///"), "\(output)")
        } else {
            #expect(!inCI, "CI must provide Python's icalendar (.ci/run installs it)")
            print("SKIPPED: Python's icalendar is not installed: the link was not read back by it (.ci/run installs it)")
        }
        #expect(try suite.run("bundle", "detach", "2").status == 0)
        #expect(!FileManager.default.fileExists(atPath: stored))
    }
}
