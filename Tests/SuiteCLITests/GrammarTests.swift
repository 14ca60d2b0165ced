import Foundation
import Testing

/// The command grammar every app follows (README "The command grammar").
@Suite struct GrammarTests {
    /// A word that names no command says so, names the group and lists its commands, even when an
    /// option follows it (ArgumentParser blamed the option: "Unknown option '--store-dir'").
    @Test(arguments: [
        (["bmm", "lst", "--store-dir", "STORE"], "'lst' is not a command of 'suite bmm'; its commands: add, list"),
        (["quotes", "fetch"], "'fetch' is not a command of 'suite quotes'; its commands: "),
        (["bundle", "todo"], "'todo' is not a command of 'suite bundle'; its commands: add, "),
        (["places", "nearby", "--radius", "1km"], "'nearby' is not a command of 'suite places'; its commands: "),
        (["quote", "random"], "'quote' is not a command of 'suite'; its commands: bmm, places, quotes, bundle"),
        (["--store-dir", "STORE", "bundle", "evnts"], "'evnts' is not a command of 'suite bundle'"),
    ])
    func anUnknownCommandSaysSoAndListsTheValidOnes(arguments: [String], message: String) throws {
        let suite = try Suite()
        let result = try suite.run(arguments.map { $0 == "STORE" ? suite.storeFolder.path : $0 })
        expectFailure(result, status: 64, message)
        #expect(!result.stderr.contains("Unknown option"))
    }

    /// A word close to a command (a typo: a letter swapped, missing or extra) suggests it, on the
    /// same one line; a word far from every command suggests nothing.
    @Test(arguments: [
        (["bmm", "wlak"], "'wlak' is not a command of 'suite bmm'; its commands: add, ", "; did you mean 'walk'?"),
        (["bundle", "chekin"], "'chekin' is not a command of 'suite bundle'", "; did you mean 'checkin'?"),
        (["quots", "random"], "'quots' is not a command of 'suite'; its commands: bmm, ", "; did you mean 'quotes'?"),
        (["bmm", "lst", "--store-dir", "STORE"], "'lst' is not a command of 'suite bmm'", "; did you mean 'list'?"),
        (["bmm", "zebra"], "'zebra' is not a command of 'suite bmm'", nil),
        (["places", "xy"], "'xy' is not a command of 'suite places'", nil),
    ])
    func anUnknownCommandSuggestsTheNearestWhenClose(arguments: [String], message: String, suggestion: String?) throws {
        let suite = try Suite()
        let result = try suite.run(arguments.map { $0 == "STORE" ? suite.storeFolder.path : $0 })
        expectFailure(result, status: 64, message)
        if let suggestion {
            #expect(result.stderr.hasSuffix(suggestion + "\n"), "\(result.stderr)")
        } else {
            #expect(!result.stderr.contains("did you mean"), "\(result.stderr)")
        }
    }

    /// Words that are commands, help and options still reach ArgumentParser as before.
    @Test func helpAndKnownCommandsAreUnchanged() throws {
        let suite = try Suite()
        #expect(try suite.run("help", "bmm").stdout.contains("OVERVIEW"))
        #expect(try suite.run("bmm", "--help").stdout.contains("OVERVIEW"))
        #expect(try suite.run("bundle", "events").status == 0)
        #expect(try suite.run("quotes", "schedule").status == 0)
    }
}

/// Rough edges a new user of `suite quotes` hit (issue: one grammar, part 3).
@Suite struct QuoteRoughEdgeTests {
    @Test func aSearchWithoutAMatchSaysSoOnStderr() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        for arguments in [["quotes", "search", "zyxwvut"], ["quotes", "search", "zyxwvut", "--limit", "5"]] {
            let result = try suite.run(arguments)
            expectFailure(result, status: 1, "no quote matches 'zyxwvut'")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func shareWritesToAFileWithO() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        try suite.run("quotes", "fav", "1")
        let file = suite.path("favourites.md")
        let result = try suite.run("quotes", "share", "--format", "markdown", "-o", file)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Wrote \(file).\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("# My favourite quotes\n"))
    }

    @Test func aCSVWithAHeaderRowImportsOnlyTheQuotes() throws {
        let suite = try Suite()
        let csv = "\u{FEFF}Quote,Author,Category\n\"Well begun is half done.\",Aristotle,work\n"
        let result = try suite.run(["quotes", "import", "csv", "-"], stdin: Data(csv.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let search = try suite.run("quotes", "search", "quote")
        #expect(search.status == 1, "the header became a quote: \(search.stdout)")
    }
}

extension QuoteRoughEdgeTests {
    /// After an import, `random` draws the new quotes right away instead of finishing the starter
    /// collection first.
    @Test func importedQuotesAreDrawnRightAfterTheImport() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        for _ in 0..<3 { #expect(try suite.run("quotes", "random").status == 0) }
        let fortunes = (0..<2_000).map { "Imported saying number \($0).\n\t\t-- Importer" }.joined(separator: "\n%\n") + "\n"
        #expect(try suite.run(["quotes", "import", "fortune", "-"], stdin: Data(fortunes.utf8)).status == 0)
        var drawn: [String] = []
        for _ in 0..<5 { drawn.append(try suite.run("quotes", "random").stdout) }
        // 2,000 new quotes against 32 starter ones still to come: five starter picks in a row
        // would have a chance of about 1 in 10^9 if the new ones had joined the bag.
        #expect(drawn.contains { $0.contains("Imported saying number") }, "\(drawn)")
    }
}

/// Rough edges of `suite bmm` (issue: one grammar, part 5).
@Suite struct BusinessModelRoughEdgeTests {
    /// A first walk introduces the model and asks for the business name, then goes to the Value
    /// Proposition (piped here; the same on a terminal).
    @Test func aFirstWalkAsksForTheBusinessName() throws {
        let suite = try Suite()
        let result = try suite.run(["bmm", "walk"], stdin: Data("Acme Bakery\nFresh bread by 7 am.\n.\n:q\n".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Enterprise Business Motivation Model"))
        #expect(result.stdout.contains("What is the business called? Created 'Acme Bakery'."))
        #expect(result.stdout.contains("── 1/10 ──\nValue Proposition") || result.stdout.contains("── 1/10 ──"))
        let list = try suite.run("bmm", "sections")
        #expect(list.stdout.hasPrefix("Acme Bakery: 1 of 10 sections written"))
        // No name: nothing is created.
        let empty = try Suite()
        expectFailure(try empty.run(["bmm", "walk"], stdin: Data()), status: 1, "no business name given")
        let dump = try empty.dump("bmm.sqlite")
        #expect(dump == "(no store)" || dump.contains("[model]\n[section_entry]"), "a model was created: \(dump)")
    }

    /// `set` from an empty pipe or file does not empty a section: `clear` does.
    @Test func anEmptyTextIsRefusedBySet() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "Fresh bread by 7 am.")
        let before = try suite.dump("bmm.sqlite")
        expectFailure(try suite.run(["bmm", "set", "vp", "-"], stdin: Data("\n  \n".utf8)), status: 65, "suite bmm clear vp")
        expectFailure(try suite.run("bmm", "set", "vp", "--text", " "), status: 65, "the text is empty")
        #expect(try suite.dump("bmm.sqlite") == before)
        #expect(try suite.run("bmm", "clear", "vp").status == 0)
    }
}

extension QuoteRoughEdgeTests {
    /// `list --mine` shows the quotes you wrote yourself (and `browse` still works for a release).
    @Test func listMineShowsOnlyYourOwnQuotes() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        try suite.run("quotes", "add", "Bake before dawn.", "--source", "Me")
        let mine = try suite.run("quotes", "list", "--mine")
        #expect(mine.status == 0, "\(mine.stderr)")
        #expect(mine.stdout.contains("Bake before dawn."))
        #expect(mine.stdout.components(separatedBy: "\n[#").count == 2, "\(mine.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(try suite.run("quotes", "list", "--mine", "--json").stdout.utf8)) as? [[String: Any]]
        #expect(json?.count == 1)
        #expect(try suite.run("quotes", "browse", "--mine").stdout == mine.stdout)
        #expect(try suite.run("quotes", "random", "--mine").stdout.contains("Bake before dawn."))
    }
}

/// Rough edges of `suite bundle` (issue: one grammar, part 4).
@Suite struct BundleRoughEdgeTests {
    @Test func aTodoCanBeEditedAndReopened() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "Get the agreement signed", "--before", "go to Eastern branch", "--deadline", "2026-12-01")
        let before = try suite.dump("bundle.sqlite")
        expectFailure(try suite.run("bundle", "edit", "1"), status: 64, "say what to change")
        expectFailure(try suite.run("bundle", "edit", "1", "--text", "bell\u{7}"), status: 65, "control character")
        expectFailure(try suite.run("bundle", "edit", "1", "--deadline", "2026-02-30"), status: 65, "invalid deadline '2026-02-30'")
        #expect(try suite.dump("bundle.sqlite") == before)

        let edited = try suite.run("bundle", "edit", "1", "--text", "Get the agreement signed (2 copies)", "--notes", "Room 4", "--no-deadline")
        #expect(edited.status == 0, "\(edited.stderr)")
        var todos = try suite.run("bundle", "todos", "--json").stdout
        #expect(todos.contains("Get the agreement signed (2 copies)") && todos.contains("Room 4") && !todos.contains("2026-12-01"))
        #expect(try suite.run("bundle", "edit", "1", "--deadline", "2026-12-03T16:00").status == 0)
        todos = try suite.run("bundle", "todos", "--json").stdout
        #expect(todos.contains("2026-12-03T16:00"))

        #expect(try suite.run("bundle", "done", "1").status == 0)
        expectFailure(try suite.run("bundle", "done", "1"), status: 1, "todo #1 is done already")
        expectFailure(try suite.run("bundle", "reopen", "2"), status: 1, "no todo")
        let reopened = try suite.run("bundle", "reopen", "1")
        #expect(reopened.status == 0, "\(reopened.stderr)")
        #expect(reopened.stdout.hasPrefix("Reopened #1 Get the agreement signed (2 copies)"))
        expectFailure(try suite.run("bundle", "reopen", "1"), status: 1, "not finished")
        #expect(try suite.run("bundle", "todos").stdout.contains("#1 Get the agreement signed (2 copies)"))
    }

    @Test func aDefaultBundleTitleReadsAsATitle() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "Pick up the badge", "--before", "go to Eastern branch")
        let result = try suite.run("bundle", "checkin", "go to Eastern branch", "--about-to", "--all")
        #expect(result.status == 0, "\(result.stderr)")
        let header = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.range(of: #"^📦 Go to Eastern branch, (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}  \(bundle #1"#, options: .regularExpression) != nil, "\(header)")
    }
}

extension BundleRoughEdgeTests {
    /// Reminders get the same timer installer as quotes, with the absolute store folder in use.
    @Test func remindersInstallATimerWithTheAbsoluteStoreFolder() throws {
        let suite = try Suite()
        let result = try suite.run("bundle", "remind", "install", "--within", "2h")
        #expect(result.status == 0, "\(result.stderr)")
        let folder = suite.path(".config/systemd/user")
        let service = try String(contentsOfFile: folder + "/suite-bundle-remind.service", encoding: .utf8)
        let timer = try String(contentsOfFile: folder + "/suite-bundle-remind.timer", encoding: .utf8)
        #expect(service.contains("\"bundle\" \"remind\" \"--within\" \"2h\" \"--store-dir\" \"\(suite.storeFolder.path)\""), "\(service)")
        #expect(timer.contains("OnCalendar=*:0/15"))
        let cron = try suite.run("bundle", "remind", "install", "--cron")
        #expect(cron.stdout.hasPrefix("*/15 * * * * DBUS_SESSION_BUS_ADDRESS="))
        #expect(cron.stdout.contains("'bundle' 'remind' '--within' '1d' '--store-dir' '\(suite.storeFolder.path)'"))
        // The default subcommand still sends.
        #expect(try suite.run("bundle", "remind", "--within", "2h", "--stdout").status == 0)
        expectFailure(try suite.run("bundle", "remind", "install", "--within", "soon"), status: 64, "soon")
    }
}

/// The same verbs for the same acts in every app (README "The command grammar").
@Suite struct SameVerbsTests {
    @Test func removeAsksOnATerminalAndTakesYesInScriptsInEveryApp() throws {
        let suite = try Suite()
        try suite.run("bmm", "add", "Old idea")
        try suite.run("quotes", "add", "My own words.")
        try suite.run("bundle", "add", "Water the plant")
        let cases: [(String, [String])] = [
            ("bmm.sqlite", ["bmm", "remove", "Old idea"]), ("quotes.sqlite", ["quotes", "remove", "1"]), ("bundle.sqlite", ["bundle", "remove", "1"]),
        ]
        for (store, arguments) in cases {
            let before = try suite.dump(store)
            expectFailure(try suite.run(arguments), status: 64, "needs --yes")
            #expect(try suite.dump(store) == before, "\(arguments) changed the store without --yes")
            let removed = try suite.run(arguments + ["--yes"])
            #expect(removed.status == 0, "\(arguments): \(removed.stderr)")
            #expect(removed.stdout.hasPrefix("Removed"))
        }
        #expect(try suite.run("bmm", "list").stdout.contains("Old idea") == false)
        expectFailure(try suite.run("quotes", "show", "1"), status: 1, "no quote 1")
        expectFailure(try suite.run("bundle", "remove", "1", "--yes"), status: 1, "no todo")
        // The old spellings still work for a release.
        try suite.run("bmm", "new", "Acme")
        #expect(try suite.run("bmm", "delete", "Acme", "--yes").status == 0)
    }

    @Test func importTakesTheFormatFromTheFileAndExportHasADefault() throws {
        let suite = try Suite()
        let json = suite.path("q.json")
        try Data(#"[{"content": "Well begun is half done.", "author": "Aristotle"}]"#.utf8).write(to: URL(fileURLWithPath: json))
        let imported = try suite.run("quotes", "import", json)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try suite.run("quotes", "import", "json", json).stdout.contains("duplicates 1"))  // the older form
        let export = try suite.run("quotes", "export", "--format", "text")
        #expect(export.stdout.contains("Well begun is half done.\n\t\t-- Aristotle"))
        try suite.run("bundle", "add", "Water the plant")
        let bundleExport = try suite.run("bundle", "export")
        #expect(bundleExport.status == 0 && bundleExport.stdout.contains("\"schema\" : \"suite-bundle/1\""), "\(bundleExport.stdout.prefix(200))")
    }

    @Test func quotesCanBeEdited() throws {
        let suite = try Suite()
        try suite.run("quotes", "add", "Bake before dawn", "--source", "Me")
        let edited = try suite.run("quotes", "edit", "1", "--text", "Bake before dawn.", "--source", "The baker")
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(edited.stdout.hasPrefix("Bake before dawn.\n\t\t-- The baker"))
        expectFailure(try suite.run("quotes", "edit", "1"), status: 64, "say what to change")
        expectFailure(try suite.run("quotes", "edit", "1", "--text", "a\u{1B}b"), status: 65, "control character")
    }
}

/// One time convention for people: local time, the zone named only when it is not the local one.
@Suite struct PeopleTimeTests {
    @Test func scheduleTimesNameAZoneThatIsNotTheLocalOne() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        // Processes of their own: $TZ is read by the process (TimeZone.current).
        let set = try suite.runProcess(["quotes", "schedule", "set", "09:00", "--tz", "Europe/Berlin"], environment: ["TZ": "Asia/Tokyo"])
        #expect(set.status == 0, "\(set.stderr)")
        let other = try suite.runProcess(["quotes", "schedule", "next", "--count", "2"], environment: ["TZ": "Asia/Tokyo"])
        let lines = other.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines.allSatisfy { $0.hasSuffix(" 09:00 Europe/Berlin") }, "\(lines)")
        let local = try suite.runProcess(["quotes", "schedule", "next", "--count", "2"], environment: ["TZ": "Europe/Berlin"])
        #expect(local.stdout.split(separator: "\n").allSatisfy { $0.hasSuffix(" 09:00") }, "\(local.stdout)")
    }

    @Test func businessModelHistoryIsInLocalTime() throws {
        let suite = try Suite()
        try suite.run("bmm", "add", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "Bread")
        // A process of its own: $TZ is read by the process (TimeZone.current).
        let history = try suite.runProcess(["bmm", "history", "vp"], environment: ["TZ": "America/Sao_Paulo"])
        let line = history.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.range(of: #"^  1  (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} \d{2}:\d{2}  Bread"#, options: .regularExpression) != nil, "\(line)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/Sao_Paulo") ?? .current
        let hour = String(format: "%02d:", calendar.component(.hour, from: Date()))
        #expect(line.contains(" \(hour)") || line.contains(String(format: " %02d:", (calendar.component(.hour, from: Date()) + 23) % 24)), "\(line) is not local time")
    }
}

/// `list` in every app, and `remove` asking in places too (issue 15, §1: one grammar).
@Suite struct ListAndRemoveEverywhereTests {
    static let berlin = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/places/berlin.geojson").standardizedFileURL.path

    @Test func placesListShowsEveryPlaceByNumberAndFiltersByType() throws {
        let suite = try Suite()
        #expect(try suite.run("places", "list").stdout == "No places yet: 'suite places add', 'import' or 'fetch'.\n")
        #expect(try suite.run("places", "import", Self.berlin).status == 0)
        let added = try suite.run("places", "add", "--name", "Far library", "--at", "-33.8665,151.2128", "--type", "library")
        #expect(added.status == 0, "\(added.stderr)")
        let list = try suite.run("places", "list")
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n")
        let ids = lines.compactMap { $0.split(separator: " ").first.flatMap { Int($0.dropFirst()) } }
        #expect(ids.count == lines.count && ids.count >= 2 && ids == ids.sorted(), "\(list.stdout)")
        // Every place, wherever it is (no location needed, unlike near).
        #expect(list.stdout.contains("Far library  (library)  -33.866500,151.212800  [blue pin]"), "\(list.stdout)")
        let libraries = try suite.run("places", "list", "--type", "library", "--json")
        #expect(libraries.status == 0, "\(libraries.stderr)")
        let decoded = try JSONSerialization.jsonObject(with: Data(libraries.stdout.utf8)) as? [[String: Any]]
        #expect(decoded?.isEmpty == false)
        #expect(decoded?.allSatisfy { $0["type"] as? String == "library" } == true, "\(libraries.stdout)")
        expectFailure(try suite.run("places", "list", "--type", "castle"), status: 64, "unknown type 'castle'")
    }

    @Test func placesRemoveAsksOnATerminalAndNeedsYesInScripts() throws {
        let suite = try Suite()
        #expect(try suite.run("places", "add", "--name", "Corner Cafe", "--at", "52.52,13.405", "--type", "coffee-shop").status == 0)
        let before = try suite.dump("places.sqlite")
        expectFailure(try suite.run("places", "remove", "1"), status: 64, "Remove place #1 \"Corner Cafe\": this needs --yes when not asked on a terminal")
        #expect(try suite.dump("places.sqlite") == before)
        let removed = try suite.run("places", "remove", "1", "--yes")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "Removed #1 Corner Cafe.\n")
        expectFailure(try suite.run("places", "show", "1"), status: 1, "no place 1")
        expectFailure(try suite.run("places", "remove", "1", "--yes"), status: 1, "no place 1")
    }

    /// `bundle list` is today's `bundle todos`, which stays as an alias, with and without the fast path.
    @Test func bundleListIsTheTodosListingAndTodosStaysAnAlias() throws {
        let suite = try Suite()
        #expect(try suite.run("bundle", "add", "Pay the rent", "--before", "go to the bank").status == 0)
        for fast in [true, false] {
            let environment: [String: String?] = fast ? [:] : ["SUITE_NO_FAST_PATH": "1"]
            let list = try suite.run(["bundle", "list"], environment: environment)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.hasPrefix("go to the bank\n  "), "\(list.stdout)")
            #expect(list.stdout.contains("Pay the rent"))
            #expect(try suite.run(["bundle", "todos"], environment: environment).stdout == list.stdout)
            let json = try suite.run(["bundle", "list", "--json", "--event", "go to the bank"], environment: environment)
            #expect(try suite.run(["bundle", "todos", "--json", "--event", "go to the bank"], environment: environment).stdout == json.stdout)
        }
        #expect(try suite.run("bundle", "--help").stdout.contains("list"))
    }
}

/// `bundle checkin … --pick N` means the todo the listing showed as #N, also after some of the
/// check-in's todos were bundled (issue 15, §1; since issue 38, §3, N is the todo's number, not a
/// position in the list).
@Suite struct StableCheckInNumberTests {
    @Test func aSecondPickMeansWhatTheFirstListingShowed() throws {
        let suite = try Suite()
        for text in ["Get the agreement signed", "Pay the rent", "Ask about the card"] {
            #expect(try suite.run("bundle", "add", text, "--before", "go to the bank").status == 0)
        }
        let checkin = ["bundle", "checkin", "go to the bank", "--about-to"]
        let first = try suite.run(checkin)
        #expect(first.status == 0, "\(first.stderr)")
        let firstLines = first.stdout.split(separator: "\n").dropFirst().map(String.init)
        #expect(firstLines.count == 3 && firstLines[1].hasPrefix("  #2 Pay the rent"), "\(first.stdout)")
        let picked = try suite.run(checkin + ["--pick", "2"])
        #expect(picked.status == 0, "\(picked.stderr)")
        #expect(picked.stdout.contains("Pay the rent") && !picked.stdout.contains("Ask about the card"), "\(picked.stdout)")
        // The listing keeps #2 where it was, marked.
        let second = try suite.run(checkin)
        let secondLines = second.stdout.split(separator: "\n").dropFirst().map(String.init)
        #expect(secondLines.count == 3, "\(second.stdout)")
        #expect(secondLines[0] == firstLines[0] && secondLines[2] == firstLines[2], "\(second.stdout)")
        #expect(secondLines[1].hasPrefix("  (in bundle #1) #2 Pay the rent"), "\(second.stdout)")
        // Picking it again is refused, nothing changes; 3 is still the third todo of the first listing.
        let before = try suite.dump("bundle.sqlite")
        expectFailure(try suite.run(checkin + ["--pick", "2"]), status: 1, "todo #2 is already in bundle #1; pick from the unmarked ones")
        #expect(try suite.dump("bundle.sqlite") == before)
        let third = try suite.run(checkin + ["--pick", "3", "--json"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("Ask about the card") && !third.stdout.contains("Pay the rent"), "\(third.stdout)")
        // The JSON listing has the same numbering: every listed todo, the bundled ones by their status.
        let listing = try suite.run(checkin + ["--json"])
        let todos = (try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any])?["todos"] as? [[String: Any]]
        #expect(todos?.compactMap { $0["text"] as? String } == ["Get the agreement signed", "Pay the rent", "Ask about the card"], "\(listing.stdout)")
        #expect(todos?.compactMap { $0["status"] as? String } == ["pending", "in-bundle", "in-bundle"])
        // --all takes only the unmarked ones.
        let rest = try suite.run(checkin + ["--all"])
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(rest.stdout.contains("Get the agreement signed") && !rest.stdout.contains("Pay the rent"), "\(rest.stdout)")
        expectFailure(try suite.run(checkin + ["--all"]), status: 1, "nothing is offered")
    }
}

/// Small things the adversarial re-test found in the import grammar and the error wording.
@Suite struct ImportWordingTests {
    @Test func todoTxtFromAPipeIsRecognisedAndAnotherSuiteSchemaIsNamed() throws {
        let source = try Suite()
        try source.run("bundle", "add", "Water the plant", "--when", "come back from work")
        let text = try source.run("bundle", "export", "--format", "todotxt").stdout
        let target = try Suite()
        let imported = try target.run(["bundle", "import", "-"], stdin: Data(text.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try target.run("bundle", "list").stdout.contains("Water the plant"))
        let newer = #"{"schema": "suite-bundle/2", "events": [], "todos": [], "bundles": []}"#
        expectFailure(try target.run(["bundle", "import", "-"], stdin: Data(newer.utf8)), status: 65, "schema is 'suite-bundle/2'")
    }

    @Test func aStoreFolderThatCannotBeMadeSaysWhyInPlainWords() throws {
        let suite = try Suite()
        let result = try suite.run("quotes", "list", "--store-dir", "/proc/suite-cannot-be-here/store")
        expectFailure(result, status: 74, "cannot create the store folder")
        #expect(!result.stderr.contains("NSCocoaErrorDomain"))
    }

    @Test func aBrokenOverpassFileSaysNothingWasImportedOnce() throws {
        let suite = try Suite()
        let result = try suite.run(["places", "import", "-"], stdin: Data(#"{"elements": [{"type": "node", "id": 1, "tags": {"name": "x"}}]}"#.utf8))
        expectFailure(result, status: 65, "has no coordinates")
        #expect(result.stderr.components(separatedBy: "nothing was imported").count == 2, "\(result.stderr)")
    }
}
