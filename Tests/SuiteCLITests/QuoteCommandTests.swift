import Foundation
import Testing

@Suite struct QuoteCommandTests {
    @Test func aNewStoreWorksOutOfTheBoxWithTheStarterCollection() throws {
        let suite = try Suite()
        let random = try suite.run("quotes", "random")
        #expect(random.status == 0)
        #expect(random.stderr.contains("added the starter collection"))
        #expect(random.stdout.contains("-- "))
        let today = try suite.run("quotes", "today")
        #expect(today.status == 0)
        #expect(try suite.run("quotes", "today").stdout == today.stdout)
    }

    @Test func theShuffleBagSurvivesBetweenProcesses() throws {
        let suite = try Suite()
        let lines = (1...12).map { "Quote \($0) of twelve,Author,bag" }.joined(separator: "\n")
        let imported = try suite.run(["quotes", "import", "csv", "-"], stdin: Data(lines.utf8))
        #expect(imported.stdout.contains("imported 12"))
        var seen: [Int] = []
        for _ in 0..<12 {
            let pick = try suite.run("quotes", "random", "--category", "bag", "--json")
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(pick.stdout.utf8))
            if case .number(let id)? = json["id"] { seen.append(Int(id)) }
        }
        #expect(Set(seen).count == 12)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/games/fortunes/fortunes") || ProcessInfo.processInfo.environment["CI"] != nil,
                   "Debian's fortunes-min is not installed (.ci/run installs it)"))
    func importsFortunesAndSearchesThem() throws {
        let fortunes = "/usr/share/games/fortunes"
        try #require(FileManager.default.fileExists(atPath: fortunes + "/fortunes"), "CI must install fortunes-min (.ci/run)")
        let suite = try Suite()
        let imported = try suite.run("quotes", "import", "fortune", fortunes)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Read "))
        let search = try suite.run("quotes", "search", "kingdom for a horse")
        #expect(search.status == 0)
        #expect(search.stdout.hasPrefix("[A] [horse]!  [A] [horse]!  My [kingdom] [for] [a] [horse]!"))
        let none = try suite.run("quotes", "search", "xylophonequux")
        #expect(none.status == 1)
        #expect(none.stderr == "suite: no quote matches 'xylophonequux'\n")
        let categories = try suite.run("quotes", "categories", "--json")
        #expect(categories.stdout.contains("\"literature\""))
    }

    @Test func favouritesNotesHistoryAndSharing() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        #expect(try suite.run("quotes", "fav", "3").stdout.contains("Added #3"))
        #expect(try suite.run("quotes", "fav", "3", "--user", "bob").status == 0)
        #expect(try suite.run("quotes", "note", "3", "Read this on Mondays").status == 0)
        let show = try suite.run("quotes", "show", "3")
        #expect(show.stdout.contains("♥ 2"))
        #expect(show.stdout.contains("Note #1: Read this on Mondays"))
        let top = try suite.run("quotes", "top", "--json")
        #expect(top.stdout.contains("\"favoriteCount\" : 2"))
        let shared = try suite.run("quotes", "share", "--format", "markdown")
        #expect(shared.stdout.hasPrefix("# My favourite quotes\n\n> Diligence is the mother of good luck."))
        #expect(try suite.run("quotes", "note-edit", "1", "Mondays and Fridays").status == 0)
        #expect(try suite.run("quotes", "notes").stdout.contains("Mondays and Fridays"))
        #expect(try suite.run("quotes", "note-delete", "1").status == 0)
    }

    @Test func scheduleAndTickDeliverOncePerSlot() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        #expect(try suite.run("quotes", "schedule", "set", "09:00,13:30", "--tz", "Europe/Berlin", "--weekdays", "mon-fri").status == 0)
        let next = try suite.run("quotes", "schedule", "next", "--count", "3", "--json")
        #expect(try JSONDecoder().decode([String].self, from: Data(next.stdout.utf8)).count == 3)
        // Real ticks (now): the latest slot of the last days is delivered once.
        let first = try suite.run("quotes", "tick", "--stdout")
        #expect(first.status == 0)
        #expect(!first.stdout.isEmpty)
        let second = try suite.run("quotes", "tick", "--stdout")
        #expect(second.status == 0)
        #expect(second.stdout.isEmpty)
        // Trying a Monday afternoon out: only the latest slot before it, and nothing recorded.
        let tried = try suite.run("quotes", "tick", "--stdout", "--at", "2025-11-24T15:00:00Z", "--json")
        let delivered = try JSONDecoder().decode([JSONValue].self, from: Data(tried.stdout.utf8))
        #expect(delivered.count == 1)
        #expect(delivered.first?["slot"] == .string("2025-11-24T12:30:00.000Z"))
        let history = try suite.run("quotes", "history", "--json")
        #expect(try JSONDecoder().decode([JSONValue].self, from: Data(history.stdout.utf8)).count == 1)
    }

    @Test func scheduleInstallWritesATimerOrPrintsACrontabLine() throws {
        var suite = try Suite()
        suite.environment["XDG_CONFIG_HOME"] = suite.path("config")
        #expect(try suite.run("quotes", "schedule", "install").status == 0)
        let timer = try String(contentsOfFile: suite.path("config/systemd/user/suite-quotes.timer"), encoding: .utf8)
        #expect(timer.contains("OnCalendar=minutely"))
        #expect(timer.contains("Persistent=true"))
        let service = try String(contentsOfFile: suite.path("config/systemd/user/suite-quotes.service"), encoding: .utf8)
        #expect(service.contains("\"quotes\" \"tick\""))
        let cron = try suite.run("quotes", "schedule", "install", "--cron")
        #expect(cron.stdout.hasPrefix("* * * * * DBUS_SESSION_BUS_ADDRESS="))
        #expect(cron.stdout.contains("'quotes' 'tick'"))
    }
}

@Suite struct QuoteBadInputTests {
    static let cases: [(String, [String], Data, Int32, String)] = [
        ("empty text", ["quotes", "add", "  "], Data(), 65, "the quote is empty"),
        ("huge text", ["quotes", "add", String(repeating: "y", count: 30_000)], Data(), 65, "at most 20000"),
        ("control character", ["quotes", "add", "bell\u{7}"], Data(), 65, "control character"),
        ("unknown id", ["quotes", "show", "999"], Data(), 1, "no quote 999"),
        ("not a number", ["quotes", "fav", "abc"], Data(), 64, "'abc' is not a quote number"),
        ("unknown note", ["quotes", "note-delete", "77"], Data(), 1, "no note 77"),
        ("unknown category", ["quotes", "random", "--category", "nope"], Data(), 1, "no quotes in category 'nope'"),
        ("punctuation-only search", ["quotes", "search", "\"*\""], Data(), 64, "has no words"),
        ("FTS syntax is text", ["quotes", "search", "NEAR(", "--category", "nope"], Data(), 1, "no quotes in category"),
        ("invalid time", ["quotes", "schedule", "set", "25:00"], Data(), 64, "25:00 is not a time of day"),
        ("window end before start", ["quotes", "schedule", "set", "3 between 21:00-09:00"], Data(), 64, "ends before it starts"),
        ("unknown time zone", ["quotes", "schedule", "set", "09:00", "--tz", "Mars/Base"], Data(), 64, "unknown time zone 'Mars/Base'"),
        ("bad weekday", ["quotes", "schedule", "set", "09:00", "--weekdays", "someday"], Data(), 64, "'someday' is not a weekday"),
        ("bad quiet hours", ["quotes", "schedule", "set", "09:00", "--quiet", "late"], Data(), 64, "not a range"),
        ("every time quiet", ["quotes", "schedule", "set", "09:00", "--quiet", "08:00-10:00"], Data(), 64, "it would never deliver"),
        ("window quiet", ["quotes", "schedule", "set", "3 between 12:00-13:00", "--quiet", "11:00-14:00"], Data(), 64, "it would never deliver"),
        ("quiet over midnight", ["quotes", "schedule", "set", "23:30,06:00", "--quiet", "22:00-07:00"], Data(), 64, "it would never deliver"),
        ("schedule category unknown", ["quotes", "schedule", "set", "09:00", "--category", "nope"], Data(), 1, "no category 'nope'"),
        ("bad tick time", ["quotes", "tick", "--at", "noon"], Data(), 64, "invalid --at"),
        ("10 MB line", ["quotes", "import", "csv", "-"], Data(repeating: UInt8(ascii: "x"), count: 10_000_000), 65, "at most 20000"),
        ("malformed json", ["quotes", "import", "json", "-"], Data("[{\"content\": 5}]".utf8), 65, "item 1"),
        ("malformed csv", ["quotes", "import", "csv", "-"], Data("\"open,x\n".utf8), 65, "stdin:1"),
        ("binary fortune", ["quotes", "import", "fortune", "-"], Data([0x61, 0x0A, 0x00]), 65, "NUL byte"),
        ("invalid UTF-8 json", ["quotes", "import", "json", "-"], Data([0x5B, 0xFF, 0x5D]), 65, "not valid UTF-8"),
        ("missing file", ["quotes", "import", "fortune", "/nonexistent/fortunes"], Data(), 66, "no such file"),
        ("unknown import format", ["quotes", "import", "x", "--format", "xml"], Data(), 64, "xml"),
        ("format not told", ["quotes", "import", "-"], Data("just words, no header\n".utf8), 64, "give --format"),
        ("bad limit", ["quotes", "search", "love", "--limit", "0"], Data(), 64, "--limit must be 1 to 1000"),
        ("bad since", ["quotes", "history", "--since", "2026-02-30"], Data(), 64, "invalid --since"),
        ("path traversal is just a missing file", ["quotes", "import", "csv", "../../../../etc/nonexistent"], Data(), 66, "no such file"),
    ]

    @Test(arguments: cases.indices)
    func badInputGivesOneClearLineAndChangesNothing(index: Int) throws {
        let (name, arguments, stdin, status, message) = Self.cases[index]
        let suite = try Suite()
        try suite.run("quotes", "starter")
        try suite.run("quotes", "fav", "1")
        let before = try suite.dump("quotes.sqlite")
        let result = try suite.run(arguments, stdin: stdin)
        expectFailure(result, status: status, message)
        #expect(try suite.dump("quotes.sqlite") == before, "\(name) changed the store")
    }
}

/// A new quotes store has its starter collection from the first command that reads quotes, and
/// the quote of the day stays the same all day whatever is imported.
@Suite struct QuoteStarterAndTodayTests {
    @Test func aNewStoreShowsTheStarterCollectionFromItsFirstCommand() async throws {
        let suite = try Suite()
        let categories = try await suite.runProcessAsync(["quotes", "categories"])
        #expect(categories.status == 0, "\(categories.stderr)")
        #expect(!categories.stdout.isEmpty && categories.stderr.isEmpty, "\(categories.stdout)\(categories.stderr)")

        let other = try Suite()
        let favourite = try await other.runProcessAsync(["quotes", "fav", "19"])
        #expect(favourite.status == 0, "\(favourite.stderr)")
        #expect(try other.run(["quotes", "favorites"]).stdout.contains("#19"))

        let third = try Suite()
        let list = try await third.runProcessAsync(["quotes", "list", "--json"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("\"text\""), "\(list.stdout)")

        // An import into a new store brings its own quotes, not the starter collection as well.
        let fourth = try Suite()
        let file = fourth.path("mine.txt")
        try "One of mine.\n%\nAnother of mine.\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await fourth.runProcessAsync(["quotes", "import", file, "--format", "fortune"]).status == 0)
        let imported = try JSONSerialization.jsonObject(with: Data(try fourth.run(["quotes", "list", "--json"]).stdout.utf8)) as? [Any]
        #expect(imported?.count == 2)
    }

    @Test func todayStaysTheSameAllDayWhenQuotesAreImported() async throws {
        let suite = try Suite()
        let first = try await suite.runProcessAsync(["quotes", "today", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let file = suite.path("more.txt")
        // Enough new quotes that the rule alone would pick from a range twenty times larger.
        try (1...400).map { "Imported thought number \($0)." }.joined(separator: "\n%\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await suite.runProcessAsync(["quotes", "import", file, "--format", "fortune"]).status == 0)
        let again = try await suite.runProcessAsync(["quotes", "today", "--json"])
        #expect(again.stdout == first.stdout)
        // The day's quote removed: another one, kept from then on.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        let id = try #require(object["id"] as? Int)
        #expect(try suite.run(["quotes", "remove", String(id), "--yes"]).status == 0)
        let replaced = try await suite.runProcessAsync(["quotes", "today", "--json"])
        #expect(replaced.status == 0 && replaced.stdout != first.stdout)
        #expect(try await suite.runProcessAsync(["quotes", "today", "--json"]).stdout == replaced.stdout)
    }

    @Test func tickAtTakesTheLocalFormsDeadlineTakes() async throws {
        let suite = try Suite()
        #expect(try suite.run("quotes", "schedule", "set", "09:00", "--tz", "Europe/Berlin").status == 0)
        let berlin: [String: String?] = ["TZ": "Europe/Berlin"]
        // The same moment three ways: local with T, local with a space, and with an offset.
        var shown: [String] = []
        for at in ["2099-01-01T10:00", "2099-01-01 10:00", "2099-01-01T09:00:00Z"] {
            let tried = try await suite.runProcessAsync(["quotes", "tick", "--stdout", "--at", at, "--json"], environment: berlin)
            #expect(tried.status == 0, "\(at): \(tried.stderr)")
            shown.append(String(tried.stdout.split(separator: "\n").first { $0.contains("\"slot\"") } ?? ""))
        }
        #expect(shown[0] == shown[1] && shown[1] == shown[2] && !shown[0].isEmpty, "\(shown)")
        // A day alone is its start; an impossible day is refused with the forms named.
        #expect(try await suite.runProcessAsync(["quotes", "tick", "--stdout", "--at", "2099-01-02"], environment: berlin).status == 0)
        expectFailure(try await suite.runProcessAsync(["quotes", "tick", "--at", "2099-02-30T10:00"], environment: berlin), status: 64,
                      "invalid --at '2099-02-30T10:00': use YYYY-MM-DD, YYYY-MM-DDTHH:MM (local time) or 2026-11-23T09:00:00Z")
        // history --since takes the same forms.
        #expect(try await suite.runProcessAsync(["quotes", "history", "--since", "2026-11-01T08:30"], environment: berlin).status == 0)
        #expect(try await suite.runProcessAsync(["bundle", "review", "--since", "2026-11-01 08:30", "--until", "2026-12-01T00:00:00Z"], environment: berlin).status == 0)
    }
}
