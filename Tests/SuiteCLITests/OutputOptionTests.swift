import ArgumentParser
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
        "places fetch": "asks the network (OpenStreetMap, Yelp); its JSON is tested with a fake server in PlaceCommandTests",
    ]

    /// How each JSON command is run, in this order, on the store `seeded` makes (FILE: a fixture).
    static let runs: [[String]] = [
        ["check"],
        ["bmm", "add", "Second Co"],
        ["bmm", "list"],
        ["bmm", "sections", "--model", "Acme"],
        ["bmm", "show", "vp", "--model", "Acme"],
        ["bmm", "history", "vp", "--model", "Acme"],
        ["places", "location", "show"],
        ["places", "location", "set", "-34.6037,-58.3816"],
        ["places", "near"],
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
        ["quotes", "top"],
        ["quotes", "note", "1", "A note."],
        ["quotes", "notes"],
        ["quotes", "schedule", "show"],
        ["quotes", "schedule", "next"],
        ["quotes", "tick"],
        ["quotes", "history"],
        ["bundle", "add", "Pay the rent", "--before", "go to the bank"],
        ["bundle", "todos"],
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
        ["bundle", "import", "FILE:fuzz/todo.txt"],
    ]

    func seeded() throws -> Suite {
        let suite = try Suite()
        for arguments in [
            ["bmm", "add", "Acme"],
            ["places", "location", "set", "52.52,13.405"],
            ["quotes", "starter"],
            ["quotes", "fav", "1"],
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
        let words = ["bmm set": ["vp", "--text", "x"], "bmm restore": ["vp", "--version", "1"]]
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
