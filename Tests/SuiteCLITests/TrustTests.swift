import Foundation
import GRDB
import SuiteTestSupport
import Testing
@testable import SuiteCLI

/// Issue 14 §3: no command line traps. Each of these used to crash with a backtrace (an
/// overflow, a NaN or infinite number converted to an integer, an index out of range) or took
/// a value it could not use; now each is one `suite:` line and exit 64 (a bad option value) or
/// 65 (bad data).
@Suite struct NoTrapTests {
    static let unreachable = "http://127.0.0.1:9"
    static let hugeTime = """
        {"schema": "suite-bundle/1", "events": [], "bundles": [], "todos": [{"uuid": "D127DB1D-4DB8-4E8D-866F-56CD2AD109C9", \
        "text": "x", "preposition": "none", "status": "pending", "notes": "", "createdAt": %@, "modifiedAt": 0}]}
        """

    static let cases: [(String, [[String]], [String], Data, Int32, String)] = [
        ("browse page Int.max", [], ["quotes", "browse", "--page", "9223372036854775807"], Data(), 64, "--page must be 1 to 1000000"),
        ("browse page beyond Int", [], ["quotes", "browse", "--page", "99999999999999999999"], Data(), 64, "--page must be 1 to 1000000"),
        ("browse limit Int.max", [], ["quotes", "browse", "--limit", "9223372036854775807", "--page", "2"], Data(), 64, "--limit must be 1 to 1000"),
        ("search limit nan", [], ["quotes", "search", "love", "--limit", "nan"], Data(), 64, "--limit must be 1 to 1000"),
        ("similar limit Int.max", [], ["quotes", "similar", "1", "--limit", "9223372036854775807"], Data(), 64, "--limit must be 1 to 100"),
        ("top limit -0", [], ["quotes", "top", "--limit=-0"], Data(), 64, "--limit must be 1 to 1000"),
        ("sources limit 0", [], ["quotes", "sources", "--limit=0"], Data(), 64, "--limit must be 1 to 1000000"),
        ("history limit -1", [], ["quotes", "history", "--limit=-1"], Data(), 64, "--limit must be 1 to 1000000"),
        ("next count Int.max", [], ["quotes", "schedule", "next", "--count", "9223372036854775807"], Data(), 64, "--count must be 1 to 500"),
        ("fetch timeout nan", [], ["places", "fetch", "--at", "1,1", "--overpass-url", unreachable, "--timeout", "nan"], Data(), 64, "--timeout must be"),
        ("fetch timeout inf", [], ["places", "fetch", "--at", "1,1", "--overpass-url", unreachable, "--timeout", "inf"], Data(), 64, "--timeout must be"),
        ("fetch timeout -inf", [], ["places", "fetch", "--at", "1,1", "--overpass-url", unreachable, "--timeout=-inf"], Data(), 64, "--timeout must be"),
        ("fetch timeout 1e300", [], ["places", "fetch", "--at", "1,1", "--overpass-url", unreachable, "--timeout", "1e300"], Data(), 64, "--timeout must be"),
        ("fetch timeout 0", [], ["places", "fetch", "--at", "1,1", "--overpass-url", unreachable, "--timeout", "0"], Data(), 64, "--timeout must be"),
        ("yelp timeout nan", [], ["places", "fetch", "--provider", "yelp", "--at", "1,1", "--yelp-url", unreachable, "--timeout", "nan"], Data(), 64,
         "--timeout must be"),
        ("location set timeout inf", [], ["places", "location", "set", "Alexanderplatz", "--nominatim-url", unreachable, "--timeout", "inf"], Data(), 64,
         "--timeout must be"),
        ("add timeout 1e300", [], ["places", "add", "--name", "x", "--address", "Somewhere", "--nominatim-url", unreachable, "--timeout", "1e300"],
         Data(), 64, "--timeout must be"),
        ("fetch hours Int.max", [], ["places", "fetch", "--at", "1,1", "--overpass-url", unreachable, "--hours", "9223372036854775807"], Data(), 64,
         "--hours must be 0 to 240"),
        ("map limit Int.max", [], ["places", "map", "--at", "1,1", "--limit", "9223372036854775807"], Data(), 64, "--limit must be 1 to 10000"),
        ("restore version beyond Int", [], ["bmm", "restore", "vp", "--version", "99999999999999999999"], Data(), 64, "--version must be 1 or more"),
        ("pick a lone dash", [["bundle", "add", "Water the plant", "--when", "come home"]],
         ["bundle", "checkin", "come home", "--about-to", "--pick=-"], Data(), 64, "invalid --pick"),
        ("Suite JSON time 1e300", [], ["bundle", "import", "-", "--format", "json"], Data(String(format: hugeTime, "1e300").utf8), 65,
         "a time outside the years 1 to 9999"),
        ("Suite JSON time -2^63", [], ["bundle", "import", "-", "--format", "json"], Data(String(format: hugeTime, "-9223372036854775808").utf8), 65,
         "a time outside the years 1 to 9999"),
        ("Suite JSON time 2^63", [], ["bundle", "import", "-", "--format", "json"], Data(String(format: hugeTime, "9223372036854775808").utf8), 65,
         "a time outside the years 1 to 9999"),
    ]

    @Test(arguments: cases.indices)
    func oneLineNeverATrap(index: Int) throws {
        let (name, setup, arguments, stdin, status, message) = Self.cases[index]
        let suite = try Suite()
        for command in setup { #expect(try suite.run(command).status == 0, "\(name): setup \(command)") }
        let result = try suite.run(arguments, stdin: stdin)
        expectFailure(result, status: status, message)
        #expect(!result.stderr.contains("Backtrac") && !result.stderr.contains("Fatal error"), "\(name): \(result.stderr)")
    }

    /// A schedule stored by hand (or damaged) with a weekday 9 or a time beyond the day used to
    /// index out of range or overflow; it now counts as no schedule.
    @Test(arguments: [
        #"{"missedSlots":"latest","quietHours":[],"timeZoneIdentifier":"UTC","times":{"fixed":{"_0":[{"minutes":540}]}},"weekdays":[9]}"#,
        #"{"missedSlots":"latest","quietHours":[],"timeZoneIdentifier":"UTC","times":{"fixed":{"_0":[{"minutes":9223372036854775807}]}},"weekdays":[1]}"#,
        #"{"missedSlots":"latest","quietHours":[],"timeZoneIdentifier":"UTC","times":{"spread":{"_0":96,"_1":{"start":{"minutes":0},"end":{"minutes":900}},"_2":9223372036854775807}},"weekdays":[1]}"#,
    ])
    func aDamagedStoredScheduleCountsAsNone(definition: String) throws {
        let suite = try Suite()
        #expect(try suite.run("quotes", "schedule", "set", "09:00").status == 0)
        let queue = try DatabaseQueue(path: suite.storeFolder.appendingPathComponent("quotes.sqlite").path)
        try queue.write { db in try db.execute(sql: "UPDATE schedule SET definition = ?", arguments: [definition]) }
        try queue.close()
        for command in [["quotes", "schedule", "show"], ["quotes", "schedule", "next"], ["quotes", "tick", "--stdout"],
                        ["quotes", "tick", "--at", "2026-11-23T10:00:00Z"]] {
            let result = try suite.run(command)
            #expect(result.status == 0 || result.status == 1, "\(command): \(result.status) \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Backtrac"), "\(command): \(result.stderr)")
        }
        #expect(try suite.run("quotes", "schedule", "show").stdout.hasPrefix("No schedule"))
    }

    /// The fast path reads the same ranges: a value it refuses is left to ArgumentParser, which
    /// refuses it the same way.
    @Test func theFastPathChecksTheSameRanges() {
        #expect(FastPath.command(for: ["quotes", "search", "love", "--limit", "9223372036854775807"]) == nil)
        #expect(FastPath.command(for: ["quotes", "search", "love", "--limit", "nan"]) == nil)
        #expect(FastPath.command(for: ["quotes", "search", "love", "--limit", "1000"]) != nil)
    }

    @Test func numberOptionsSayTheirRange() {
        #expect(throws: (any Error).self) { try NumberOption.int("1001", in: 1...1000, option: "--limit") }
        #expect(throws: (any Error).self) { try NumberOption.seconds("nan", in: 0.1...3600, option: "--timeout") }
        #expect(throws: (any Error).self) { try NumberOption.seconds("-0", in: 0.1...3600, option: "--timeout") }
        #expect((try? NumberOption.seconds("2.5", in: 0.1...3600, option: "--timeout")) == 2.5)
        #expect((try? NumberOption.int(" 7 ", in: 1...10, option: "--n")) == 7)
    }
}

/// Issue 14 §5: time, secrets and generated scripts.
@Suite struct TrustedOutputTests {
    @Test func tryingAScheduleOutRecordsNothingAndRealTicksStillDeliver() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        #expect(try suite.run("quotes", "schedule", "set", "09:00", "--tz", "UTC").status == 0)
        // Far in the future: shown, not recorded.
        let tried = try suite.run("quotes", "tick", "--stdout", "--at", "2099-01-01T10:00:00Z")
        #expect(tried.status == 0, "\(tried.stderr)")
        #expect(tried.stdout.contains("nothing recorded"))
        #expect(tried.stdout.contains("2099-01-01 09:00"))
        let json = try suite.run("quotes", "tick", "--at", "2099-01-01T10:00:00Z", "--json")
        #expect(try JSONDecoder().decode([JSONValue].self, from: Data(json.stdout.utf8)).first?["slot"] == .string("2099-01-01T09:00:00.000Z"))
        #expect(try suite.run("quotes", "history", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]")
        // A real tick now delivers the latest 09:00 (within the last day), once.
        let real = try suite.run("quotes", "tick", "--stdout")
        #expect(real.status == 0)
        #expect(real.stdout.contains("-- "), "a real tick after trying out must deliver: \(real.stdout)")
        #expect(try suite.run("quotes", "tick", "--stdout").stdout.isEmpty)
        #expect(try JSONDecoder().decode([JSONValue].self, from: Data(try suite.run("quotes", "history", "--json").stdout.utf8)).count == 1)
        // Clearing the schedule and setting it again changes nothing about that.
        #expect(try suite.run("quotes", "schedule", "clear").status == 0)
        #expect(try suite.run("quotes", "schedule", "set", "09:00", "--tz", "UTC").status == 0)
        #expect(try suite.run("quotes", "tick", "--stdout", "--at", "2099-01-02T10:00:00Z").stdout.contains("nothing recorded"))
        #expect(try JSONDecoder().decode([JSONValue].self, from: Data(try suite.run("quotes", "history", "--json").stdout.utf8)).count == 1)
    }

    @Test func aProviderErrorQuotingTheKeyDoesNotPrintIt() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let key = "key-echoed-Zq9"
        await server.script.set("/v3/businesses/search", [.init(status: 400, body: """
            {"error": {"code": "VALIDATION_ERROR", "description": "Authorization: Bearer \(key) is not valid for 'radius' (\(key))"}}
            """)])
        var suite = try Suite()
        suite.environment["YELP_API_KEY"] = key
        let base = server.baseURL.absoluteString
        let result = try await suite.runAsync(["places", "fetch", "--provider", "yelp", "--at", "52.52,13.40", "--yelp-url", base + "/v3"])
        expectFailure(result, status: 69, "VALIDATION_ERROR")
        #expect(!result.stderr.contains(key), "\(result.stderr)")
        #expect(result.stderr.contains("[API key]"))
        #expect(await server.script.count("/v3/businesses/search") == 1)
    }

    @Test(arguments: ["abc\r\nX-Evil: 1", "abc\nX-Evil: 1", "abc\u{0}def", "abc\u{7F}"])
    func aKeyWithControlCharactersIsRefusedBeforeAnyRequest(key: String) async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        await server.script.set("/v3/businesses/search", [.init(status: 200, body: "{\"total\": 0, \"businesses\": []}")])
        var suite = try Suite()
        suite.environment["YELP_API_KEY"] = key
        let base = server.baseURL.absoluteString
        let result = try await suite.runAsync(["places", "fetch", "--provider", "yelp", "--at", "52.52,13.40", "--yelp-url", base + "/v3"])
        // A NUL cannot reach the process environment at all; the rest must be refused.
        if key.contains("\u{0}") { return }
        expectFailure(result, status: 69, "control character")
        #expect(!result.stderr.contains("X-Evil") && !result.stderr.contains("abc"))
        #expect(await server.script.requests.isEmpty, "a request was sent with a key holding control characters")
    }

    /// cron runs the command part of the line as `/bin/sh -c`, after turning `\%` into `%` (and a
    /// bare `%` into a line break). The test does the same, with `printf` in place of `suite`.
    @Test func theCrontabLineGivesBackEveryArgumentExactly() throws {
        let suite = try Suite()
        let evil = suite.path("x;touch${IFS}") + suite.path("pwned") + "'%\"$HOME `id` \\ * a\\%b"
        let result = try suite.run(["quotes", "schedule", "install", "--cron", "--store-dir", evil, "--user", "o'neil %s"])
        // Every % stands outside the single quotes, as '\%': a backslash inside the quotes (a\%b)
        // can never pair with cron's own escape, whatever the cron's rules for backslashes.
        let percents = result.stdout.indices.filter { result.stdout[$0] == "%" }
        #expect(!percents.isEmpty && percents.allSatisfy { result.stdout[..<$0].hasSuffix("'\\") }, "\(result.stdout)")
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.trimmingCharacters(in: .newlines)
        let environment = "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/\(getuid())/bus "
        #expect(line.hasPrefix("* * * * * " + environment + "'/"), "\(line)")
        #expect(!line.contains("\n"))
        // What cron hands to the shell.
        var command = ""
        var characters = Array(line.dropFirst("* * * * * ".count))[...]
        while let character = characters.popFirst() {
            if character == "\\", characters.first == "%" { command.append("%"); characters.removeFirst() }
            else if character == "%" { command.append("\n") }  // cron's line break: must not happen
            else { command.append(character) }
        }
        // The first word is the binary (absolute, single-quoted, no quote inside): printf instead.
        let words = command.dropFirst(environment.count)
        let binaryEnd = try #require(words.range(of: "' "))
        let script = environment + "printf '%s\\n' " + words[binaryEnd.upperBound...]
        let printed = try suite.run([script], viaShell: true)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout == ["quotes", "tick", "--store-dir", evil, "--user", "o'neil %s"].map { $0 + "\n" }.joined())
        #expect(!FileManager.default.fileExists(atPath: suite.path("pwned")))
    }

    @Test func theSystemdUnitQuotesByItsOwnRules() throws {
        var suite = try Suite()
        suite.environment["XDG_CONFIG_HOME"] = suite.path("config")
        let evil = suite.path("x;touch${IFS}") + "/tmp/pwned'%\"$HOME\\n"
        let result = try suite.run(["quotes", "schedule", "install", "--store-dir", evil])
        #expect(result.status == 0, "\(result.stderr)")
        let servicePath = suite.path("config/systemd/user/suite-quotes.service")
        let service = try String(contentsOfFile: servicePath, encoding: .utf8)
        let exec = try #require(service.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        // Written by hand after systemd.syntax(7): "…" words, \\ and \" escaped, $$ and %%.
        let folder = suite.folder.path
        #expect(exec.hasSuffix(" \"quotes\" \"tick\" \"--store-dir\" \"\(folder)/x;touch$${IFS}/tmp/pwned'%%\\\"$$HOME\\\\n\""), "\(exec)")
        #expect(exec.hasPrefix("ExecStart=\"/"))
        #expect(service.split(separator: "\n").filter { $0.hasPrefix("Exec") }.count == 1)
        // systemd's own reader accepts it (unbalanced quotes or an unknown %-specifier are fatal).
        if let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: FileManager.default.isExecutableFile(atPath:)) {
            let verified = try suite.run(["\"$1\" verify --man=no \"$2\" 2>&1", "sh", analyze, servicePath], viaShell: true)
            #expect(verified.status == 0, "\(verified.stdout)")
        } else {
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "CI must provide systemd-analyze (Debian's systemd; .ci/run)")
            print("SKIPPED: systemd-analyze is not installed: the unit was not verified by systemd (.ci/run installs it)")
        }
    }

    @Test func execStartQuotingLiteralCases() throws {
        #expect(try TimerScripts.execStart(["/usr/bin/suite", "a b"]) == #""/usr/bin/suite" "a b""#)
        #expect(try TimerScripts.execStart(["100%"]) == #""100%%""#)
        #expect(try TimerScripts.execStart(["$HOME", "${X}"]) == #""$$HOME" "$${X}""#)
        #expect(try TimerScripts.execStart(["back\\slash", "say \"hi\"", "it's"]) == #""back\\slash" "say \"hi\"" "it's""#)
        #expect(try TimerScripts.execStart([";"]) == #"";""#)
        #expect(TimerScripts.shellQuoted("it's") == #"'it'\''s'"#)
        #expect(try TimerScripts.cronLine(["/s", "50%"], uid: 7) == #"* * * * * DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/7/bus '/s' '50'\%''"#)
    }

    @Test(arguments: ["/tmp/a\nExecStartPre=/bin/touch /tmp/pwned", "/tmp/a\rb", "/tmp/a\u{1B}[2J", "/tmp/a\u{2028}b"])
    func aLineBreakOrControlCharacterIsRefused(storeDir: String) throws {
        var suite = try Suite()
        suite.environment["XDG_CONFIG_HOME"] = suite.path("config")
        expectFailure(try suite.run(["quotes", "schedule", "install", "--store-dir", storeDir]), status: 64, "line break or another control character")
        #expect(!FileManager.default.fileExists(atPath: suite.path("config/systemd/user/suite-quotes.service")))
        expectFailure(try suite.run(["quotes", "schedule", "install", "--cron", "--store-dir", storeDir]), status: 64, "line break or another control character")
    }

    @Test func theInstallersWriteTheAbsoluteStoreFolderInUse() throws {
        var suite = try Suite()
        suite.environment["XDG_CONFIG_HOME"] = suite.path("config")
        // A relative --store-dir is resolved against the working folder.
        let relative = try suite.run(["cd \"$1\" && exec \"$2\" quotes schedule install --cron --store-dir 'my store/q'", "sh", suite.folder.path, Suite.binary.path],
                                     viaShell: true)
        #expect(relative.stdout.contains(" '--store-dir' '\(suite.folder.path)/my store/q'"), "\(relative.stdout)")
        // Without --store-dir: the folder chosen from the environment ($SUITE_HOME here).
        let fromEnvironment = try suite.run("quotes", "schedule", "install", "--cron")
        #expect(fromEnvironment.stdout.contains(" '--store-dir' '\(suite.storeFolder.path)'"), "\(fromEnvironment.stdout)")
        #expect(try suite.run("quotes", "schedule", "install").status == 0)
        let service = try String(contentsOfFile: suite.path("config/systemd/user/suite-quotes.service"), encoding: .utf8)
        #expect(service.contains(" \"--store-dir\" \"\(suite.storeFolder.path)\""))
    }
}
