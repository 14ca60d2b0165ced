import BundleCore
import Foundation
import Testing
@testable import SuiteCLI

/// Where CI puts a Python with the `icalendar` package (see .ci/run).
let icalendarPython: String? = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    let candidates: [String?] = [ProcessInfo.processInfo.environment["SUITE_ICAL_PYTHON"], root.appendingPathComponent(".build/ci-venv/bin/python").path]
    return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
}()

let taskwarrior: String? = ["/usr/bin/task", "/usr/local/bin/task"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// In CI these tools are installed by .ci/run, so the tests that need them must run there.
let inCI = ProcessInfo.processInfo.environment["CI"] != nil

@Suite struct BundleCommandTests {
    /// One set of labels for a whole list gives each todo the label of its own deadline and status,
    /// by the core's rule (`isOverdue`), whatever came before it.
    @Test func aListsDeadlineLabelsFollowTheCoresRule() throws {
        let zones = ["UTC", "Europe/Berlin", "America/Sao_Paulo", "Pacific/Kiritimati"].compactMap(TimeZone.init(identifier:))
        var generator = SystemRandomNumberGenerator()
        for zone in zones {
            let now = Date(timeIntervalSince1970: 1_795_000_000 + Double(Int.random(in: -200_000...200_000, using: &generator)))
            var labels = Bundles.DeadlineLabels(now: now, timeZone: zone)
            for index in 0..<400 {
                let deadline: Deadline = Bool.random(using: &generator)
                    ? .day(year: 2026, month: 11, day: Int.random(in: 20...30, using: &generator))
                    : .time(now.addingTimeInterval(Double(Int.random(in: -3...3, using: &generator) * 3600)))
                let status = TodoStatus.allCases.randomElement(using: &generator)!
                let todo = TodoSummary(id: Todo.ID(Int64(index + 1)), text: "t", eventID: nil, eventName: nil, preposition: .none,
                                       deadline: deadline, status: status, bundleID: nil)
                // A time as people read it, in the list's zone (issue 38, §5); a day as it is.
                let shown = Bundles.deadline(deadline, in: zone)
                let expected = todo.isOverdue(at: now, timeZone: zone) ? " [overdue: \(shown)]" : " [due \(shown)]"
                #expect(labels.label(deadline, status: status) == expected, "\(deadline) \(status) in \(zone.identifier)")
            }
        }
    }

    /// The seed's story, end to end through the real binary.
    @Test func theSecretarysDay() throws {
        let suite = try Suite()
        let event = "go to Eastern branch"
        #expect(try suite.run("bundle", "add", "Get the payment agreement signed", "--before", event, "--deadline", "2026-12-01").status == 0)
        #expect(try suite.run("bundle", "add", "Pick up the new badge", "--before", event).status == 0)
        #expect(try suite.run("bundle", "add", "Drop off the parcel", "--before", event).status == 0)
        #expect(try suite.run("bundle", "add", "Send the boss a summary", "--after", event).status == 0)

        let offer = try suite.run("bundle", "checkin", "Go to eastern branch", "--about-to")
        #expect(offer.status == 0)
        #expect(offer.stdout.contains("\n  #1 Get the payment agreement signed"))
        #expect(offer.stdout.contains("#2 Pick up the new badge"))
        #expect(offer.stdout.contains("#3 Drop off the parcel"))
        #expect(!offer.stdout.contains("Send the boss a summary"))

        let bundled = try suite.run("bundle", "checkin", event, "--about-to", "--pick", "1,2", "--icon", "🏦", "--title", "Eastern run")
        #expect(bundled.status == 0, "\(bundled.stderr)")
        #expect(bundled.stdout.contains("🏦 Eastern run"))
        #expect(try suite.run("bundle", "done", "1").status == 0)
        #expect(try suite.run("bundle", "throwback", "2").status == 0)
        #expect(try suite.run("bundle", "pull", "3").status == 0)
        expectFailure(try suite.run("bundle", "complete"), status: 1, "still has open todos (#3)")
        #expect(try suite.run("bundle", "done", "3").status == 0)
        let completed = try suite.run("bundle", "complete")
        #expect(completed.status == 0)

        let today = Review.day(Date())
        let review = try suite.run("bundle", "review")
        #expect(review.stdout.hasPrefix("\(today)\n"))
        #expect(review.stdout.contains("Eastern run (#1, go to Eastern branch): 2 of 3 done"))
        let byEvent = try suite.run("bundle", "review", "--by-event")
        #expect(byEvent.stdout.hasPrefix("go to Eastern branch\n"))
        #expect(byEvent.stdout.contains("Eastern run (#1, \(today))"))
        let pile = try suite.run("bundle", "todos", "--json")
        let pending = try JSONDecoder().decode([JSONValue].self, from: Data(pile.stdout.utf8)).compactMap { $0["text"]?.string }
        #expect(pending == ["Pick up the new badge", "Send the boss a summary"])
    }

    @Test func abandonReturnsTodosToThePile() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "a", "--when", "lunch")
        try suite.run("bundle", "add", "b", "--when", "lunch")
        #expect(try suite.run("bundle", "checkin", "lunch", "--just-finished", "--all").status == 0)
        try suite.run("bundle", "done", "1")
        let abandoned = try suite.run("bundle", "abandon")
        #expect(abandoned.stdout.contains("1 todo back in the pile"))
        let offer = try suite.run("bundle", "checkin", "lunch", "--about-to", "--json")
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(offer.stdout.utf8))
        #expect(json["todos"]?.array.compactMap { $0["text"]?.string } == ["b"])
        expectFailure(try suite.run("bundle", "current"), status: 1, "no open bundle")
    }

    @Test func eventsCanBeRenamedMergedAndArchived() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "sign", "--before", "eastern")
        try suite.run("bundle", "add", "badge", "--before", "east office", "--new-event")
        #expect(try suite.run("bundle", "events", "rename", "eastern", "go to Eastern branch").status == 0)
        #expect(try suite.run("bundle", "events", "merge", "east office", "go to Eastern branch").status == 0)
        let events = try suite.run("bundle", "events")
        #expect(events.stdout == "go to Eastern branch (also: east office, eastern): 2 pending, 0 check-ins\n")
        #expect(try suite.run("bundle", "move", "2", "--after", "EASTERN").status == 0)
        #expect(try suite.run("bundle", "todos").stdout.contains("#2 badge (after go to Eastern branch)"))
        #expect(try suite.run("bundle", "events", "archive", "go to eastern branch").status == 0)
        #expect(try suite.run("bundle", "events").stdout.contains("No trigger events"))
    }

    @Test(arguments: ["taskwarrior", "ics", "todotxt", "json"])
    func exportImportThroughTheBinary(format: String) throws {
        let source = try Suite()
        try source.run("bundle", "add", "Get the agreement signed, today; please", "--before", "go to Eastern branch", "--deadline", "2026-12-01")
        try source.run("bundle", "add", "Water the plant", "--after", "come back from work", "--notes", "the big one")
        try source.run("bundle", "checkin", "come back from work", "--just-finished", "--all")
        let file = source.path("todos.\(format)")
        #expect(try source.run("bundle", "export", "--format", format, "-o", file).status == 0)
        let target = try Suite()
        let imported = try target.run("bundle", "import", file, "--format", format)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported 2 new"))
        let before = try source.run("bundle", "todos", "--all").stdout
        let after = try target.run("bundle", "todos", "--all").stdout
        #expect(before == after)
    }

    @Test(.enabled(if: icalendarPython != nil || inCI, "Python's icalendar is not installed (.ci/run installs it)"))
    func vtodoOutputParsesWithPythonsIcalendar() throws {
        let python = try #require(icalendarPython, "CI must provide Python's icalendar (.ci/run installs it)")
        let suite = try Suite()
        try suite.run("bundle", "add", "Get the agreement signed; bring a pen, and 2 copies", "--before", "go to Eastern branch", "--deadline", "2026-12-01",
                      "--notes", String(repeating: "A long note that needs folding. ", count: 5))
        try suite.run("bundle", "add", "Buy dog food", "--when", "go to Eastern branch", "--deadline", "2026-11-30T17:45")
        let file = suite.path("todos.ics")
        try suite.run("bundle", "export", "--format", "ics", "-o", file)
        let script = """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            for todo in cal.walk('VTODO'):
                due = todo.decoded('DUE')
                print(str(todo['UID']), '|', str(todo['SUMMARY']), '|', str(todo['X-BUNDLE-PREPOSITION']), '|', due.isoformat(), '|', len(str(todo.get('DESCRIPTION', ''))))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, file]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].contains("| Get the agreement signed; bring a pen, and 2 copies | before | 2026-12-01 | 159"))
        #expect(lines[1].contains("| Buy dog food | when | 2026-11-30T17:45:00"))
    }

    @Test(.enabled(if: taskwarrior != nil || inCI, "Taskwarrior is not installed (.ci/run installs it)"))
    func realTaskwarriorExportImports() throws {
        let task = try #require(taskwarrior, "CI must provide Taskwarrior (.ci/run installs it)")
        let suite = try Suite()
        let data = suite.path("taskdata")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let rc = suite.path("taskrc")
        try "data.location=\(data)\nconfirmation=off\nverbose=nothing\n".write(toFile: rc, atomically: true, encoding: .utf8)
        func runTask(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: task)
            process.arguments = ["rc:\(rc)"] + arguments
            process.environment = ["HOME": suite.folder.path, "TASKRC": rc, "TASKDATA": data]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: output, as: UTF8.self)
        }
        _ = try runTask(["add", "Fix the fence", "project:house", "+diy", "due:2026-12-24"])
        _ = try runTask(["add", "Buy paint", "priority:H"])
        _ = try runTask(["1", "done"])
        let exported = try runTask(["export"])
        let file = suite.path("task-export.json")
        try exported.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try suite.run("bundle", "import", file)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported 2 new"))
        let todos = try JSONDecoder().decode([JSONValue].self, from: Data(try suite.run("bundle", "todos", "--all", "--json").stdout.utf8))
        #expect(Set(todos.compactMap { $0["text"]?.string }) == ["Fix the fence", "Buy paint"])
        #expect(todos.first { $0["text"]?.string == "Fix the fence" }?["status"] == .string("done"))
        let fence = todos.first { $0["text"]?.string == "Fix the fence" }
        #expect(fence?["foreignFields"]?["project"] == .string("house"))
        // And back: Taskwarrior reads our export.
        let ours = suite.path("ours.json")
        try suite.run("bundle", "export", "--format", "taskwarrior", "-o", ours)
        let data2 = suite.path("taskdata2")
        try FileManager.default.createDirectory(atPath: data2, withIntermediateDirectories: true)
        try "data.location=\(data2)\nconfirmation=off\nverbose=nothing\n".write(toFile: rc, atomically: true, encoding: .utf8)
        _ = try runTask(["import", ours])
        let reread = try runTask(["export"])
        #expect(reread.contains("Fix the fence"))
        #expect(reread.contains("\"project\":\"house\""))
    }
}

@Suite struct BundleBadInputTests {
    static let cases: [(String, [String], Data, Int32, String)] = [
        ("unknown todo", ["bundle", "done", "99"], Data(), 1, "no todo 99"),
        ("unknown todo uuid", ["bundle", "move", "deadbeef-0000", "--prep", "when"], Data(), 1, "no todo deadbeef-0000"),
        ("unknown bundle", ["bundle", "show", "42"], Data(), 1, "no bundle 42"),
        ("no open bundle", ["bundle", "complete"], Data(), 1, "no open bundle"),
        ("completing a finished bundle", ["bundle", "complete", "--bundle", "1"], Data(), 1, "bundle #1 is completed"),
        ("invalid deadline", ["bundle", "add", "x", "--before", "bank", "--deadline", "2026-02-30"], Data(), 65, "invalid deadline '2026-02-30'"),
        ("invalid time", ["bundle", "add", "x", "--before", "bank", "--deadline", "2026-12-01T25:00"], Data(), 65, "invalid deadline"),
        ("empty event phrase", ["bundle", "add", "x", "--before", "  "], Data(), 65, "the event phrase is empty"),
        ("empty text", ["bundle", "add", ""], Data(), 65, "the todo text is empty"),
        ("huge text", ["bundle", "add", String(repeating: "x", count: 20_000)], Data(), 65, "at most 10000"),
        ("control character", ["bundle", "add", "a\u{1B}[31mred"], Data(), 65, "control character"),
        ("two triggers", ["bundle", "add", "x", "--before", "a", "--after", "b"], Data(), 64, "give one of"),
        ("unknown event at check-in", ["bundle", "checkin", "go to Eastern brunch", "--about-to"], Data(), 1, "did you mean 'go to Eastern branch'"),
        ("no direction", ["bundle", "checkin", "go to Eastern branch"], Data(), 64, "--about-to or --just-finished"),
        ("pick an unknown todo", ["bundle", "checkin", "go to Eastern branch", "--about-to", "--pick", "7"], Data(), 1, "no todo #7"),
        ("pick a todo not offered", ["bundle", "checkin", "go to Eastern branch", "--about-to", "--pick", "1"], Data(), 1, "todo #1 is not offered when you are about to go to Eastern branch (it is done)"),
        ("pick a range of no listed todo", ["bundle", "checkin", "go to Eastern branch", "--about-to", "--pick", "5-9"], Data(), 64, "takes no todo of the list"),
        ("pick garbage", ["bundle", "checkin", "go to Eastern branch", "--about-to", "--pick", "one"], Data(), 64, "invalid --pick"),
        ("bad duration", ["bundle", "due", "--within", "soon"], Data(), 64, "invalid duration"),
        ("bad since", ["bundle", "review", "--since", "2026-13-01"], Data(), 64, "invalid --since"),
        ("unknown format", ["bundle", "export", "--format", "xml"], Data(), 64, "xml"),
        ("missing import file", ["bundle", "import", "/nonexistent/t.json"], Data(), 66, "no such file"),
        ("malformed taskwarrior", ["bundle", "import", "-", "--format", "taskwarrior"], Data("[{\"uuid\": 1}]".utf8), 65, "nothing was imported"),
        ("10 MB todo.txt line", ["bundle", "import", "-", "--format", "todotxt"], Data(repeating: UInt8(ascii: "y"), count: 10_000_000), 65, "at most 10000"),
        ("malformed ics", ["bundle", "import", "-", "--format", "ics"], Data("BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\n".utf8), 65, "nothing was imported"),
        ("malformed todo.txt", ["bundle", "import", "-", "--format", "todotxt"], Data("ok line\nx 2026-02-31 bad\n".utf8), 65, "-:2"),
        ("malformed suite json", ["bundle", "import", "-", "--format", "json"], Data("{}".utf8), 65, "nothing was imported"),
        ("invalid UTF-8 import", ["bundle", "import", "-", "--format", "todotxt"], Data([0xC3, 0x28]), 65, "not valid UTF-8"),
        ("unguessable format", ["bundle", "import", "-"], Data("  \n".utf8), 64, "cannot tell the format"),
        ("FTS and SQL metacharacters are just text", ["bundle", "todos", "--event", "'; DROP TABLE todo; --"], Data(), 1, "no trigger event"),
        ("throwback of a todo not in the bundle", ["bundle", "throwback", "2", "--bundle", "1"], Data(), 1, "bundle #1 is completed"),
        ("icon too long", ["bundle", "icon", "abcdefghij", "--bundle", "1"], Data(), 65, "at most 8"),
    ]

    @Test(arguments: cases.indices)
    func badInputGivesOneClearLineAndChangesNothing(index: Int) throws {
        let (name, arguments, stdin, status, message) = Self.cases[index]
        let suite = try Suite()
        try suite.run("bundle", "add", "Get the agreement signed", "--before", "go to Eastern branch")
        try suite.run("bundle", "add", "Pick up the badge", "--before", "go to Eastern branch")
        try suite.run("bundle", "checkin", "go to Eastern branch", "--about-to", "--pick", "1")
        try suite.run("bundle", "done", "1")
        try suite.run("bundle", "complete")
        let before = try suite.dump("bundle.sqlite")
        let result = try suite.run(arguments, stdin: stdin)
        expectFailure(result, status: status, message)
        #expect(try suite.dump("bundle.sqlite") == before, "\(name) changed the store")
    }
}

enum Review {
    static func day(_ date: Date) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: .current, from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }
}
