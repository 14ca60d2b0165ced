import Foundation
import SuiteTestSupport
import Testing
@testable import SuiteCLI

/// Words a person reads in sync: a device's default name, whose favourites are published.
@Suite struct SyncWordingTests {
    @Test func aDeviceIsNamedByItsUserAndItsMachine() {
        #expect(AccountOptions.defaultDeviceName(user: "ada", host: "vm") == "ada on vm")
        #expect(AccountOptions.defaultDeviceName(user: nil, host: "vm") == "vm")
        #expect(AccountOptions.defaultDeviceName(user: "", host: "") == "this machine")
    }

    @Test func publishingTheDefaultUsersFavouritesSaysWhatThatUserIs() {
        #expect(SyncCommand.Publish.whoseFavourites("ada") == "the favourites of ada")
        let unnamed = SyncCommand.Publish.whoseFavourites("default")
        #expect(!unnamed.contains("favourites of default"))
        #expect(unnamed.contains("without a user name"))
    }
}

/// Re-importing a file that changes nothing says so, in every app that imports by identity.
@Suite struct UnchangedReimportTests {
    @Test func reimportingUnchangedTodosSaysUnchanged() async throws {
        let suite = try Suite()
        for text in ["Get the agreement signed", "Buy stamps", "Water the plant"] {
            #expect(try await suite.runAsync(["bundle", "add", text, "--before", "go to the Eastern branch"]).status == 0)
        }
        for format in ["taskwarrior", "ics", "json"] {
            let file = suite.path("todos.\(format)")
            #expect(try await suite.runAsync(["bundle", "export", "--format", format, "-o", file]).status == 0)
            let again = try await suite.runProcessAsync(["bundle", "import", file, "--format", format])
            #expect(again.status == 0, "\(format): \(again.stderr)")
            #expect(again.stdout.hasPrefix("Imported 0 new and 0 updated todos (3 unchanged, 0 new events"), "\(format): \(again.stdout)")
        }
        // A changed text is one update.
        let file = suite.path("todos.taskwarrior")
        let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "Buy stamps", with: "Buy ten stamps")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let changed = try await suite.runProcessAsync(["bundle", "import", file, "--format", "taskwarrior"])
        #expect(changed.stdout.hasPrefix("Imported 0 new and 1 updated todo (2 unchanged"), "\(changed.stdout)")
        // With a bundle and its items, Suite JSON read back leaves the store byte for byte as it was.
        #expect(try await suite.runAsync(["bundle", "checkin", "go to the Eastern branch", "--about-to", "--all"]).status == 0)
        #expect(try await suite.runAsync(["bundle", "done", "1"]).status == 0)
        let whole = suite.path("whole.json")
        #expect(try await suite.runAsync(["bundle", "export", "--format", "json", "-o", whole]).status == 0)
        #expect(try await suite.runProcessAsync(["bundle", "import", whole, "--format", "json"]).status == 0)
        let settled = try suite.dump("bundle.sqlite")
        let again = try await suite.runProcessAsync(["bundle", "import", whole, "--format", "json"])
        #expect(again.stdout.hasPrefix("Imported 0 new and 0 updated todos (3 unchanged"), "\(again.stdout)")
        #expect(try suite.dump("bundle.sqlite") == settled)
    }
}

/// README's tours, read from README itself: each shell block's commands in order, comments
/// dropped, `;` and `&&` lists split; a line with a pipe is left out (returned as skipped).
enum ReadmeTour {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md").standardizedFileURL

    static func commands(of app: String) throws -> (commands: [String], skipped: [String]) {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let heading = try #require(text.range(of: "## A short tour of `\(app)`"))
        let open = try #require(text.range(of: "```sh\n", range: heading.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "```", range: open.upperBound..<text.endIndex))
        var commands: [String] = [], skipped: [String] = []
        for line in text[open.upperBound..<close.lowerBound].split(separator: "\n") {
            let code = line.range(of: " # ").map { String(line[..<$0.lowerBound]) } ?? String(line)
            if code.contains(" | ") { skipped.append(code.trimmingCharacters(in: .whitespaces)); continue }
            for part in code.components(separatedBy: " ; ").flatMap({ $0.components(separatedBy: " && ") }) {
                let command = part.trimmingCharacters(in: .whitespaces)
                if !command.isEmpty { commands.append(command) }
            }
        }
        return (commands, skipped)
    }

    /// ``run(_:in:environment:)`` on a thread of its own: a tour's dozens of processes must not
    /// hold one of the few threads of Swift's cooperative pool, which async tests need.
    static func runAsync(_ command: String, in suite: Suite, environment: [String: String?] = [:]) async throws -> Suite.Result {
        try await InProcess.onThread { try run(command, in: suite, environment: environment) }
    }

    /// Runs one command as a shell runs it, in $HOME, `suite` on the PATH being the binary under
    /// test (a link to it, so `VAR=value suite …` works as it does for the installed one).
    static func run(_ command: String, in suite: Suite, environment: [String: String?] = [:]) throws -> Suite.Result {
        let bin = suite.path("tour-bin")
        if !FileManager.default.fileExists(atPath: bin + "/suite") {
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: bin + "/suite", withDestinationPath: Suite.binary.path)
        }
        var environment = environment
        let path = environment["PATH"].flatMap { $0 } ?? suite.environment["PATH"] ?? "/usr/bin:/bin"
        environment["PATH"] = bin + ":" + path
        return try suite.run(["cd \"$HOME\" && " + command], environment: environment, viaShell: true)
    }
}

@Suite struct ReadmeTourTests {
    /// Programs the tour hands work to (lp, the mail program, the editor), as small scripts
    /// that do what they would: take the document, change the file.
    static func tools(in suite: Suite) throws -> [String: String?] {
        let bin = suite.path("tools")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let scripts = [
            "lp": "#!/bin/sh\ncat > \"$HOME/printed\"\necho \"request id is Office-1 (1 file(s))\"\n",
            "lpstat": "#!/bin/sh\necho 'printer Office is idle.'\n",
            "xdg-email": "#!/bin/sh\necho \"$@\" > \"$HOME/mailed\"\n",
            "editor": "#!/bin/sh\nprintf 'Bread, cakes and coffee to take away.\\n' >> \"$1\"\n",
        ]
        for (name, body) in scripts {
            let path = bin + "/" + name
            try body.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }
        // A desktop session, as --mail needs one.
        return ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), "EDITOR": bin + "/editor", "VISUAL": bin + "/editor",
                "DISPLAY": ":0"]
    }

    @Test func theBmmTourRunsAsWritten() async throws {
        let (commands, skipped) = try ReadmeTour.commands(of: "suite bmm")
        #expect(commands.count >= 15 && commands.allSatisfy { $0.hasPrefix("suite bmm ") }, "\(commands)")
        #expect(skipped.isEmpty)
        let suite = try Suite()
        try "Commuters and night-shift nurses who want bread before work.\n".write(toFile: suite.path("needs.md"), atomically: true, encoding: .utf8)
        let tools = try Self.tools(in: suite)
        for command in commands {
            let result = try await ReadmeTour.runAsync(command, in: suite, environment: tools)
            #expect(result.status == 0, "\(command): exit \(result.status), \(result.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: suite.path("acme.html")))
        #expect(FileManager.default.fileExists(atPath: suite.path("printed")))
        #expect(FileManager.default.fileExists(atPath: suite.path("mailed")))
        #expect(try suite.run(["bmm", "list"]).stdout.contains("Acme (restored)"))
    }
}

extension ReadmeTourTests {
    static let fortunes = FileManager.default.fileExists(atPath: "/usr/share/games/fortunes/fortunes")
    static let espeak = ["/usr/bin/espeak-ng", "/usr/local/bin/espeak-ng"].contains { FileManager.default.isExecutableFile(atPath: $0) }

    /// The quotes tour needs Debian's fortunes and espeak-ng (CI installs both); Open Library is a
    /// loopback server answering as it does.
    @Test(.enabled(if: (fortunes && espeak) || inCI, "needs Debian's fortunes and espeak-ng (.ci/run installs them)"))
    func theQuotesTourRunsAsWritten() async throws {
        let (commands, skipped) = try ReadmeTour.commands(of: "suite quotes")
        #expect(skipped.isEmpty)
        // Installing a package is the reader's step, not suite's.
        let installing = commands.filter { $0.hasPrefix("sudo ") }
        #expect(installing == ["sudo apt-get install fortunes"])
        let tour = commands.filter { !$0.hasPrefix("sudo ") }
        #expect(tour.count >= 25 && tour.allSatisfy { $0.hasPrefix("suite quotes ") }, "\(tour)")
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/search.json", [.init(status: 200, body: try String(contentsOf: AuthorWorksTests.answer, encoding: .utf8),
                                                       headers: ["Content-Type": "application/json"])])
        let suite = try Suite()
        let openLibrary = server.baseURL.absoluteString
        for command in tour {
            let result = try await ReadmeTour.runAsync(command, in: suite, environment: ["SUITE_OPENLIBRARY_URL": openLibrary, "TZ": "Europe/Berlin"])
            #expect(result.status == 0, "\(command): exit \(result.status), \(result.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: suite.path("today.wav")))
        #expect(FileManager.default.fileExists(atPath: suite.path("favourites.md")))
    }
}

extension ReadmeTourTests {
    /// The places tour with OpenStreetMap, Yelp and Nominatim as loopback servers answering as
    /// they do (`SUITE_OVERPASS_URL`, `SUITE_YELP_URL`, `SUITE_NOMINATIM_URL`): fourteen places
    /// around Sydney, where the tour's second `location set` puts you, and Café Blau by address.
    @Test func thePlacesTourRunsAsWritten() async throws {
        let (commands, skipped) = try ReadmeTour.commands(of: "suite places")
        #expect(skipped.isEmpty)
        #expect(commands.count >= 13 && commands.allSatisfy { $0.hasPrefix("suite places ") || $0.hasPrefix("YELP_API_KEY=") }, "\(commands)")
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let nodes = (1...14).map { index in
            let kind = index % 2 == 0 ? "\"amenity\": \"cafe\"" : "\"amenity\": \"library\""
            return "{\"type\": \"node\", \"id\": \(index), \"lat\": \(-33.8688 + Double(index) * 0.0004), \"lon\": 151.2093, \"tags\": {\(kind), \"name\": \"Place \(index)\", \"opening_hours\": \"Mo-Su 00:00-24:00\"}}"
        }
        await server.script.set("/api/interpreter", [.init(status: 200, body: "{\"elements\": [\(nodes.joined(separator: ","))]}")])
        await server.script.set("/v3/businesses/search", [.init(status: 200, body: """
            {"total": 1, "businesses": [{"id": "abc", "name": "Harbour Coffee", "categories": [{"alias": "coffee", "title": "Coffee"}],
             "coordinates": {"latitude": -33.8690, "longitude": 151.2095}, "location": {"display_address": ["George St 1"]}, "display_phone": ""}]}
            """)])
        await server.script.set("/v3/businesses/abc", [.init(status: 200, body: "{\"hours\": [{\"hours_type\": \"REGULAR\", \"open\": [{\"day\": 0, \"start\": \"0700\", \"end\": \"1900\", \"is_overnight\": false}]}]}")])
        let nominatim = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/places/nominatim-cafe.json").standardizedFileURL
        await server.script.set("/search", [.init(status: 200, body: try String(contentsOf: nominatim, encoding: .utf8))])
        let base = server.baseURL.absoluteString
        let providers: [String: String?] = ["SUITE_OVERPASS_URL": base + "/api", "SUITE_YELP_URL": base + "/v3", "SUITE_NOMINATIM_URL": base]
        let suite = try Suite()
        for command in commands {
            let result = try await ReadmeTour.runAsync(command, in: suite, environment: providers)
            #expect(result.status == 0, "\(command): exit \(result.status), \(result.stderr)")
        }
        #expect(try suite.run(["places", "show", "12"]).stdout.contains("wifi"))
        #expect(FileManager.default.fileExists(atPath: suite.path("map.svg")))
        #expect(try suite.run(["places", "list"]).stdout.contains("Café Blau"))
    }
}
