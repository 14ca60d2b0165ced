import ArgumentParser
import GRDB
import SuiteTestSupport
import Foundation
import Testing
@testable import SuiteCLI

/// `--json` is offered only where it works and works everywhere it is offered (grammar: "--json
/// prints exactly one JSON document; times in JSON are RFC 3339 with offset").
@Suite struct JSONEverywhereTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures").standardizedFileURL

    /// Every leaf command under `command`, with its words.
    static func leaves(_ command: any ParsableCommand.Type, path: [String] = []) -> [([String], any ParsableCommand.Type)] {
        let subcommands = command.configuration.subcommands
        if subcommands.isEmpty { return [(path, command)] }
        return subcommands.flatMap { leaves($0, path: path + [SuiteMain.names(of: $0)[0]]) }
    }

    /// Whether the command declares `--json` (its help lists it).
    static func declaresJSON(_ command: any ParsableCommand.Type) -> Bool {
        SuiteCommand.helpMessage(for: command, columns: 200).split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--json ") }
    }

    /// Commands that declare `--json` but are not run here, with the reason.
    static let exceptions: [String: String] = [
        "places fetch": "asks the network: fetchPrintsOneJSONDocument runs it against a loopback Overpass server",
        "sync now": "asks the sync server: Scripts/check-sync runs it against a real suite-server",
        "sync devices": "asks the sync server: Scripts/check-sync runs it against a real suite-server",
    ]

    /// How each JSON command is run, in this order, on the store `seeded` makes (FILE: a fixture).
    static let runs: [[String]] = [
        ["check"],
        ["bmm", "add", "Second Co"],
        ["bmm", "new", "Third Co"],  // the older spelling of add, a command of its own hidden from help
        ["bmm", "list"],
        ["bmm", "sections", "--model", "Acme"],
        ["bmm", "show", "vp", "--model", "Acme"],
        ["bmm", "history", "vp", "--model", "Acme"],
        ["places", "location", "show"],
        ["places", "location", "set", "-34.6037,-58.3816"],
        ["places", "near"],
        ["places", "list", "--type", "other"],
        ["places", "add", "--name", "Corner Cafe", "--at", "52.5201,13.4051"],
        ["places", "rate", "1", "--wifi", "4"],
        ["places", "show", "1"],
        ["places", "import", "FILE:places/berlin.geojson"],
        ["quotes", "import", "FILE:quotes/sample.csv"],
        ["quotes", "add", "Mine, all mine."],
        ["quotes", "edit", "1", "--text", "Edited text."],
        ["quotes", "random"],
        ["quotes", "today"],
        ["quotes", "show", "1"],
        ["quotes", "similar", "1"],
        ["quotes", "search", "the"],
        ["quotes", "categories"],
        ["quotes", "sources"],
        ["quotes", "list"],
        ["quotes", "favorites"],
        ["quotes", "random", "--tailored"],
        ["quotes", "skipped"],
        ["quotes", "works", "Lao Tzu"],
        ["quotes", "nottodo", "add", "Check e-mail before noon", "--category", "work"],
        ["quotes", "nottodo", "list"],
        ["quotes", "nottodo", "edit", "1", "--no-category"],
        ["quotes", "top"],
        ["quotes", "note", "1", "A note."],
        ["quotes", "notes"],
        ["quotes", "schedule", "show"],
        ["quotes", "schedule", "next"],
        ["quotes", "tick"],
        ["quotes", "history"],
        ["bundle", "add", "Pay the rent", "--before", "go to the bank"],
        ["bundle", "list"],
        ["bundle", "edit", "1", "--notes", "bring the form"],
        ["bundle", "move", "3", "--before", "go to the bank"],
        ["bundle", "due"],
        ["bundle", "events", "list"],
        ["bundle", "checkin", "go to the bank", "--about-to", "--pick", "1"],
        ["bundle", "current"],
        ["bundle", "show"],
        ["bundle", "rename", "Bank run"],
        ["bundle", "icon", "🏦"],
        ["bundle", "throwback", "1"],
        ["bundle", "pull", "1"],
        ["bundle", "done", "1"],
        ["bundle", "complete"],
        ["bundle", "reopen", "1"],
        ["bundle", "checkin", "go to the bank", "--about-to", "--pick", "1"],
        ["bundle", "abandon"],
        ["bundle", "review"],
        ["bundle", "upcoming", "--within", "1w"],
        ["bundle", "checkin", "go to the bank", "--about-to", "--all"],
        ["bundle", "routine", "save", "Bank run", "--bundle", "1"],
        ["bundle", "routine", "list"],
        ["bundle", "attach", "1", "--link", "https://example.org/agreement"],
        ["bundle", "attachments", "1"],
        // A routine brings back its own todos: not while they are in the open bundle.
        ["bundle", "abandon"],
        ["bundle", "checkin", "go to the bank", "--about-to", "--routine", "Bank run"],
        ["bundle", "events", "import", "FILE:bundles/events.ics"],
        ["bundle", "import", "FILE:fuzz/todo.txt"],
        ["sync", "status"],
        ["sync", "conflicts"],
        ["sync", "set-aside"],
    ]

    func seeded() throws -> Suite {
        let suite = try Suite()
        for arguments in [
            ["bmm", "add", "Acme"],
            ["places", "location", "set", "52.52,13.405"],
            ["quotes", "starter"],
            ["quotes", "fav", "1"],
            ["quotes", "skip", "2"],
            ["bundle", "add", "Get the agreement signed", "--before", "go to the bank", "--deadline", "2026-12-01"],
            ["bundle", "add", "Water the plant", "--after", "come back from work"],
        ] {
            let result = try suite.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let set = try suite.run(["bmm", "set", "vp", "-"], stdin: Data("Fresh bread at dawn.".utf8))
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try suite.run("quotes", "schedule", "set", "3 between 09:00-21:00").status == 0)
        return suite
    }

    @Test func everyCommandThatOffersJSONPrintsOneDocumentWithOffsetTimes() throws {
        let all = Self.leaves(SuiteCommand.self).filter { $0.0 != ["help"] }
        let offering = Set(all.filter { Self.declaresJSON($0.1) }.map { $0.0.joined(separator: " ") })
        #expect(offering.count > 40)
        let covered = Set(Self.runs.map { run in offering.first { run.starts(with: $0.split(separator: " ").map(String.init)) } ?? "?" })
        for name in offering.subtracting(covered).subtracting(Self.exceptions.keys) {
            Issue.record("'suite \(name)' offers --json but JSONEverywhereTests.runs does not run it (add it, or an exception with a reason)")
        }
        let suite = try seeded()
        for run in Self.runs {
            let arguments = run.map { $0.hasPrefix("FILE:") ? Self.fixtures.appendingPathComponent(String($0.dropFirst(5))).path : $0 } + ["--json"]
            let result = try suite.run(arguments)
            #expect(result.status == 0, "\(run): \(result.stderr)")
            guard let data = result.stdout.data(using: .utf8), let document = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
                Issue.record("\(run) --json did not print one JSON document: \(result.stdout.prefix(300))")
                continue
            }
            for problem in Self.timeProblems(document, path: "") { Issue.record("\(run) --json: \(problem)") }
        }
    }

    @Test func fetchPrintsOneJSONDocument() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/api/interpreter", [.init(status: 200, body: "{\"elements\": [{\"type\": \"node\", \"id\": 7, \"lat\": 52.5199, \"lon\": 13.4051, \"tags\": {\"amenity\": \"library\", \"name\": \"OSM Library\"}}]}")])
        let suite = try Suite()
        #expect(try suite.run("places", "location", "set", "52.52,13.405").status == 0)
        let fetched = try await suite.runAsync(["places", "fetch", "--provider", "osm", "--overpass-url", server.baseURL.absoluteString + "/api", "--json"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(fetched.stdout.utf8), options: [.fragmentsAllowed])
        #expect(Self.timeProblems(document, path: "").isEmpty)
    }

    /// Times as epoch numbers, or strings that look like times without an offset.
    static func timeProblems(_ value: Any, path: String) -> [String] {
        switch value {
        case let object as [String: Any]:
            return object.flatMap { key, value -> [String] in
                let lower = key.lowercased()
                let timeKey = key.hasSuffix("At") || key.hasSuffix("Date") || lower == "date" || lower.hasSuffix("time") || lower == "deadline" || lower == "since"
                if timeKey, value is NSNumber {
                    return ["\(path).\(key) is a number (\(value)), not an RFC 3339 time"]
                }
                return timeProblems(value, path: path + "." + key)
            }
        case let array as [Any]:
            return array.enumerated().flatMap { timeProblems($1, path: path + "[\($0)]") }
        case let string as String:
            let timeLike = string.range(of: #"^\d{4}-\d{2}-\d{2}[T ]\d"#, options: .regularExpression) != nil
            let rfc3339 = string.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#, options: .regularExpression) != nil
            return timeLike && !rfc3339 ? ["\(path) is '\(string)', a time without an RFC 3339 offset"] : []
        default:
            return []
        }
    }

    /// Every command that prints only text refuses --json as an unknown option (exit 64) instead
    /// of taking it and printing text (`bmm set`, `bmm walk` and `places map` took it), also when
    /// it stands before the app's name.
    @Test func everyTextCommandRefusesJSON() throws {
        let suite = try Suite()
        let text = Self.leaves(SuiteCommand.self).filter { $0.0 != ["help"] && !Self.declaresJSON($0.1) }
        #expect(text.count > 30)
        // Words for the positionals (a section name is one) and required options, so that only --json is wrong.
        let account = ["--server", "http://127.0.0.1:9", "--account", "ada", "--password-stdin"]
        let words = ["bmm set": ["vp", "--text", "x"], "bmm restore": ["vp", "--version", "1"], "sync signup": account, "sync login": account,
                     "sync revoke": ["device"], "sync logout": [], "sync publish": ["favourites", "on"],
                     "sync password": ["--stdin"], "sync delete-account": ["--stdin", "--yes"],
                     "sync recover": ["--server", "http://127.0.0.1:9", "--account", "ada", "--stdin"],
                     "backup": ["dir"], "restore": ["dir"]]
        for (path, _) in text {
            let filler = words[path.joined(separator: " ")] ?? ["vp", "vp"]
            for arguments in [path + filler + ["--json"], ["--json"] + path + filler] {
                let result = try suite.run(arguments)
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("--json"), "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(arguments)")
            }
        }
    }
}

/// Colour where the seeds ask for it: ✓ green and ! red in `bmm`, red and blue pins in `places`,
/// `--color auto|always|never`, `NO_COLOR`, and the accent colour `$SUITE_ACCENT`.
@Suite struct ColourTests {
    static let green = "\u{1B}[32m", red = "\u{1B}[31m", blue = "\u{1B}[34m", cyan = "\u{1B}[36m", reset = "\u{1B}[0m"

    func seeded() throws -> Suite {
        let suite = try Suite()
        for arguments in [
            ["bmm", "add", "Acme"], ["bmm", "set", "vp", "--text", "Fresh bread at dawn."],
            ["places", "import", JSONEverywhereTests.fixtures.appendingPathComponent("places/berlin.geojson").path],
            ["places", "add", "--name", "My desk", "--at", "52.5201,13.4051"],
        ] {
            let result = try suite.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        return suite
    }

    @Test func alwaysColoursTheMarksThePercentagesAndThePins() throws {
        let suite = try seeded()
        let sections = try suite.run("bmm", "sections", "--color", "always")
        #expect(sections.status == 0, "\(sections.stderr)")
        #expect(sections.stdout.contains("\(Self.green)✓\(Self.reset)  1. vp"), "\(sections.stdout.debugDescription)")
        #expect(sections.stdout.contains("\(Self.red)!\(Self.reset)  2. cn"))
        #expect(sections.stdout.hasPrefix("\(Self.cyan)Acme\(Self.reset): 1 of 10 sections written (\(Self.red)10%\(Self.reset))"))
        // The walk's "Continue to:" listing shows the same marks.
        let walk = try suite.run(["bmm", "walk", "--color", "always"], stdin: Data(":q\n".utf8))
        #expect(walk.stdout.contains("Continue to:\n  \(Self.red)!\(Self.reset) "), "\(walk.stdout.debugDescription)")
        let list = try suite.run("--color", "always", "bmm", "list")
        #expect(list.stdout == "* \(Self.cyan)Acme\(Self.reset)  \(Self.red)10%\(Self.reset)\n")
        // Red pins: places you have not rated; blue: yours. The fast path and ArgumentParser agree.
        let near = try suite.run("places", "near", "--at", "52.52,13.405", "--color", "always")
        #expect(near.stdout.contains("[\(Self.red)red\(Self.reset) pin]"), "\(near.stdout.debugDescription)")
        #expect(near.stdout.contains("[\(Self.blue)blue\(Self.reset) pin]"))
        let slow = try suite.run(["places", "near", "--at", "52.52,13.405", "--color", "always"], environment: ["SUITE_NO_FAST_PATH": "1"])
        #expect(slow.stdout == near.stdout)
        let show = try suite.run("places", "show", "1", "--color", "always")
        #expect(show.stdout.contains("pin:      \(Self.red)red\(Self.reset)"), "\(show.stdout.debugDescription)")
    }

    /// Plain text when stdout is not a terminal (these tests' pipes), with --color never, and with
    /// NO_COLOR set unless --color always says otherwise.
    @Test func neverNoColorAndAPipeArePlain() throws {
        let suite = try seeded()
        for command in [["bmm", "sections"], ["bmm", "list"], ["places", "near", "--at", "52.52,13.405"], ["places", "show", "1"]] {
            for (extra, environment) in [([], [:]), (["--color", "never"], [:]), (["--color", "auto"], ["NO_COLOR": "1"]), ([], ["NO_COLOR": "1"]),
                                         (["--color", "never"], ["SUITE_ACCENT": "blue"])] as [([String], [String: String?])] {
                let result = try suite.run(command + extra, environment: environment)
                #expect(result.status == 0, "\(command + extra): \(result.stderr)")
                #expect(!result.stdout.utf8.contains(0x1B), "\(command + extra) \(environment): \(result.stdout.debugDescription)")
                #expect(!result.stdout.unicodeScalars.contains { (0xFDD0...0xFDEF).contains($0.value) })
            }
        }
        #expect(try suite.run("bmm", "sections").stdout.contains("[x]  1. vp"))
        let forced = try suite.run(["bmm", "sections", "--color", "always"], environment: ["NO_COLOR": "1"])
        #expect(forced.stdout.contains("\(Self.green)✓\(Self.reset)"))
    }

    @Test func theAccentColourComesFromSuiteAccent() throws {
        let suite = try seeded()
        let blue = try suite.run(["bmm", "list", "--color", "always"], environment: ["SUITE_ACCENT": "Blue"])
        #expect(blue.stdout.hasPrefix("* \(Self.blue)Acme\(Self.reset)"), "\(blue.stdout.debugDescription)")
        let wrong = try suite.run(["bmm", "list"], environment: ["SUITE_ACCENT": "purple"])
        expectFailure(wrong, status: 64, "SUITE_ACCENT 'purple' is not a colour: use red, green, yellow, blue, magenta or cyan")
        let wrongFast = try suite.run(["places", "near", "--at", "52.52,13.405"], environment: ["SUITE_ACCENT": "purple"])
        expectFailure(wrongFast, status: 64, "SUITE_ACCENT 'purple' is not a colour")
        expectFailure(try suite.run("bmm", "list", "--color", "sometimes"), status: 64, "--color")
    }

    /// Colour codes are added after stored text is made visible: an ESC in a stored name stays
    /// `\u{1B}` while the marks around it are coloured.
    @Test func storedEscapesStayVisibleWithColourOn() throws {
        let suite = try seeded()
        let queue = try DatabaseQueue(path: suite.storeFolder.appendingPathComponent("bmm.sqlite").path)
        try queue.write { db in try db.execute(sql: "UPDATE model SET name = ?", arguments: ["Acme\u{1B}[2J\u{1B}]0;pwned\u{7}"]) }
        try queue.close()
        let sections = try suite.run("bmm", "sections", "--color", "always")
        #expect(sections.status == 0, "\(sections.stderr)")
        #expect(sections.stdout.hasPrefix("\(Self.cyan)Acme\\u{1B}[2J\\u{1B}]0;pwned\\u{7}\(Self.reset): 1 of 10"), "\(sections.stdout.debugDescription)")
        let escapes = sections.stdout.components(separatedBy: "\u{1B}").dropFirst()
        #expect(escapes.allSatisfy { $0.hasPrefix("[3") || $0.hasPrefix("[0m") }, "\(sections.stdout.debugDescription)")
    }
}
