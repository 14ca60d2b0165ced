import Foundation
import Testing

@Suite struct BusinessModelCommandTests {
    @Test func theSeedFlowThroughTheRealBinary() throws {
        let suite = try Suite()
        #expect(try suite.run("bmm", "new", "Acme Bakery").status == 0)
        // walk: answer VP (two lines), keep CN, answer CT, then stop.
        let walk = try suite.run("bmm", "walk", stdin: "Fresh bread by 7 am,\ntwo streets from you.\n.\n.\nCommuters and night-shift nurses\n.\n:q\n")
        #expect(walk.status == 0, "\(walk.stderr)")
        #expect(walk.stdout.contains("Value Proposition drives Required Competency"))
        #expect(walk.stdout.contains("2 sections saved"))

        let sections = try suite.run("bmm", "sections")
        #expect(sections.status == 0)
        let lines = sections.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Acme Bakery: 2 of 10 sections written (20%)")
        #expect(lines.contains { $0.hasPrefix("[x]  1. vp") })
        #expect(lines.contains { $0.hasPrefix("[!]  2. cn") })
        #expect(lines.contains { $0.hasPrefix("[x]  3. ct") })
        #expect(lines.filter { $0.hasPrefix("[!]") }.count == 8)

        let output = suite.path("acme.md")
        let export = try suite.run("bmm", "export", "--format", "markdown", "-o", output)
        #expect(export.status == 0)
        let markdown = try String(contentsOfFile: output, encoding: .utf8)
        #expect(markdown.contains("## Value Proposition\n\nFresh bread by 7 am,\\\ntwo streets from you.\n"))
        #expect(markdown.contains("## Customer Type\n\nCommuters and night-shift nurses\n"))
        #expect(export.stderr.contains("core: Customer Needs, Products & Services, Cost & Revenue Models"))

        // The JSON view of sections agrees.
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(try suite.run("bmm", "sections", "--json").stdout.utf8))
        #expect(json["percent"] == .number(20))
        #expect(json["sections"]?.array.filter { $0["done"] == .bool(true) }.compactMap { $0["shortID"]?.string } == ["vp", "ct"])
    }

    /// The seed's INTRO on a new model, and its Back button (`:b`, labelled with the previous
    /// section's short title) going back one section.
    @Test func aNewModelStartsWithTheIntroAndBackGoesToTheSectionBefore() throws {
        let suite = try Suite()
        #expect(try suite.run("bmm", "new", "Acme Bakery").status == 0)
        // VP answered; at CN ':b' goes back; VP answered again; CN answered; stop.
        let walk = try suite.run("bmm", "walk", stdin: "Fresh bread.\n.\n:b\nFresh bread by 7 am.\n.\nWarm breakfast on the way to work\n.\n:q\n")
        #expect(walk.status == 0, "\(walk.stderr)")
        #expect(walk.stdout.contains("The walk asks for ten sections, one at a time, in this order:"))
        #expect(walk.stdout.contains(" 1. Value Proposition (required): "))
        #expect(walk.stdout.contains("10. "))
        // The first section has nothing before it; the second names the first.
        #expect(walk.stdout.contains("── 1/10 ──\n"))
        #expect(walk.stdout.contains("── 2/10 · ':b' ← VP Value Proposition ──"))
        #expect(walk.stdout.contains("':b' back to Value Proposition; ':q' stops"))
        #expect(walk.stdout.components(separatedBy: "── 1/10 ──").count == 3, "VP is shown twice")
        #expect(walk.stdout.contains("3 sections saved"))
        let vp = try JSONDecoder().decode(JSONValue.self, from: Data(try suite.run("bmm", "show", "vp", "--json").stdout.utf8))
        #expect(vp["text"] == .string("Fresh bread by 7 am."))
        let cn = try JSONDecoder().decode(JSONValue.self, from: Data(try suite.run("bmm", "show", "cn", "--json").stdout.utf8))
        #expect(cn["text"] == .string("Warm breakfast on the way to work"))
        // A model with something written starts at the sections; ':b' on the first changes nothing.
        let again = try suite.run("bmm", "walk", "--from", "vp", stdin: ":b\n:q\n")
        #expect(!again.stdout.contains("The walk asks for ten sections"))
        #expect(again.stdout.contains("This is the first section: there is none before it."))
        // about tells what the walk asks as well.
        let about = try suite.run("bmm", "about")
        #expect(about.stdout.contains("Enterprise Business Motivation Model"))
        #expect(about.stdout.contains("The walk asks for ten sections"))
    }

    @Test func walkStopsAtEndOfInputKeepingWhatWasTyped() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        let walk = try suite.run("bmm", "walk", "--from", "channels", stdin: "Market stall\nand a website")
        #expect(walk.status == 0)
        let show = try JSONDecoder().decode(JSONValue.self, from: Data(try suite.run("bmm", "show", "ch", "--json").stdout.utf8))
        #expect(show["text"] == .string("Market stall\nand a website"))
        #expect(show["leadsHere"] == .string("Products & Services are delivered through Channels"))
    }

    @Test func showAcceptsTitlesAndListsContinueLinks() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "ps", "--text", "Sourdough")
        let show = try suite.run("bmm", "show", "CUSTOMER NEEDS")
        #expect(show.status == 0)
        #expect(show.stdout.contains("Value Proposition addresses Customer Needs"))
        #expect(show.stdout.contains("[x] Products & Services (ps)"))
        #expect(show.stdout.contains("[!] Customer Type (ct)"))
        let ascii = try suite.run("bmm", "show", "ps", "--ascii")
        #expect(ascii.stdout.hasPrefix("[x] Products & Services"))
    }

    @Test func refusesToShareWithoutTheValuePropositionAndWritesNoFile() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "cn", "--text", "Bread early")
        for format in ["markdown", "html", "text", "canvas"] {
            let output = suite.path("out.\(format)")
            let refused = try suite.run("bmm", "export", "--format", format, "-o", output)
            expectFailure(refused, status: 1, "lacks Value Proposition")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let printed = try suite.run("bmm", "print")
        expectFailure(printed, status: 1, "lacks Value Proposition")

        let output = suite.path("forced.md")
        let forced = try suite.run("bmm", "export", "-o", output, "--force")
        #expect(forced.status == 0)
        #expect(FileManager.default.fileExists(atPath: output))
        #expect(forced.stderr.contains("lacks Value Proposition (--force)"))
        #expect(forced.stderr.contains("core: Customer Type, Products & Services, Cost & Revenue Models"))
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("> **Unfinished:** required: Value Proposition; core:"))
    }

    @Test func jsonExportImportExportIsIdentical() throws {
        let first = try Suite()
        try first.run("bmm", "new", "Acme")
        try first.run("bmm", "set", "vp", "--text", "Bread by 7", "--confidence", "assumption")
        try first.run("bmm", "set", "vp", "--text", "Bread by 6 — \"earlier\" ✓")
        try first.run("bmm", "set", "ra", "-", stdin: "Ovens\nA van\n")
        try first.run("bmm", "clear", "ra")
        let exported = try first.run("bmm", "export", "--format", "json")
        #expect(exported.status == 0)
        let file = first.path("acme.json")
        try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: file))

        let second = try Suite()
        let imported = try second.run("bmm", "import", file)
        #expect(imported.status == 0, "\(imported.stderr)")
        let again = try second.run("bmm", "export", "--format", "json")
        #expect(again.stdout == exported.stdout)
        // Same name again is refused; --as imports a copy.
        expectFailure(try second.run("bmm", "import", file), status: 1, "exists already")
        #expect(try second.run("bmm", "import", file, "--as", "Acme 2").status == 0)
        #expect(try second.run("bmm", "list").stdout.contains("Acme 2"))
    }

    /// The saved format is stable: a literal `suite-bmm/1` file written by an earlier build
    /// imports and exports back byte for byte.
    @Test func theFixtureDocumentRoundTripsByteForByte() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/bmm/acme-bakery.json").standardizedFileURL
        let suite = try Suite()
        let imported = try suite.run("bmm", "import", fixture.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("5 of 10 sections written (50%)"))
        let exported = try suite.run("bmm", "export", "--format", "json")
        #expect(exported.stdout == (try String(contentsOf: fixture, encoding: .utf8)))
        let history = try suite.run("bmm", "history", "vp")
        #expect(history.stdout.split(separator: "\n").count == 2)
    }

    @Test func htmlExportEscapesHostileText() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme <script>")
        try suite.run("bmm", "set", "vp", "--text", "<script>alert(1)</script>")
        let html = try suite.run("bmm", "export", "--format", "html")
        #expect(html.status == 0)
        #expect(!html.stdout.contains("<script>"))
        #expect(html.stdout.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    @Test func historyAndRestore() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "one")
        try suite.run("bmm", "set", "vp", "--text", "two")
        let history = try JSONDecoder().decode(JSONValue.self, from: Data(try suite.run("bmm", "history", "vp", "--json").stdout.utf8))
        #expect(history["versions"]?.array.compactMap { $0["text"]?.string } == ["one", "two"])
        #expect(try suite.run("bmm", "restore", "vp", "--version", "1").status == 0)
        #expect(try suite.run("bmm", "show", "vp").stdout.contains("  one"))
        expectFailure(try suite.run("bmm", "restore", "vp", "--version", "7"), status: 1, "has no version 7")
        expectFailure(try suite.run("bmm", "restore", "vp", "--version", "0"), status: 64, "--version must be 1 or more")
    }

    @Test func modelsCanBeCopiedRenamedAndDeleted() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "bread")
        #expect(try suite.run("bmm", "copy", "Acme Online").status == 0)
        #expect(try suite.run("bmm", "rename", "Acme Web").status == 0)
        let list = try suite.run("bmm", "list").stdout
        #expect(list == "  Acme  10%\n* Acme Web  10%\n")
        expectFailure(try suite.run("bmm", "delete", "Acme"), status: 64, "needs --yes")
        #expect(try suite.run("bmm", "delete", "Acme", "--yes").status == 0)
        expectFailure(try suite.run("bmm", "use", "Acme"), status: 1, "no business model named 'Acme'")
    }

    @Test func editUsesTheEditorAndStripsCommentLines() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "old text")
        let script = suite.path("editor.sh")
        try "#!/bin/sh\ngrep -c '^#|' \"$1\" > \(suite.path("comments"))\nprintf 'new text\\n#| a comment\\nsecond line\\n' > \"$1\"\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script)
        let edited = try suite.run(["bmm", "edit", "vp"], environment: ["EDITOR": script, "VISUAL": nil])
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try Int(String(contentsOfFile: suite.path("comments"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 3)
        let show = try JSONDecoder().decode(JSONValue.self, from: Data(try suite.run("bmm", "show", "vp", "--json").stdout.utf8))
        #expect(show["text"] == .string("new text\nsecond line"))
    }

    @Test func anEditorThatFailsLeavesTheSectionUnchanged() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "keep me")
        let before = try suite.dump("bmm.sqlite")
        let script = suite.path("failing-editor.sh")
        try "#!/bin/sh\necho 'scribbled' > \"$1\"\nexit 3\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script)
        let result = try suite.run(["bmm", "edit", "vp"], environment: ["EDITOR": script])
        expectFailure(result, status: 1, "exited with status 3")
        #expect(try suite.dump("bmm.sqlite") == before)
    }

    @Test func printSendsPaginatedTextToLpOrExplainsWhenItIsMissing() throws {
        var suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "Bread by 7")
        let bin = suite.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        suite.environment["PATH"] = bin
        expectFailure(try suite.run("bmm", "print"), status: 69, "no 'lp' print spooler found")

        let lp = bin + "/lp"
        try "#!/bin/sh\necho \"$@\" > \(suite.path("lp-args"))\ncat > \(suite.path("lp-input"))\n"
            .write(toFile: lp, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: lp)
        suite.environment["PATH"] = bin + ":/usr/bin:/bin"
        let printed = try suite.run("bmm", "print", "--printer", "Office")
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(try String(contentsOfFile: suite.path("lp-args"), encoding: .utf8).hasPrefix("-d Office -t Acme"))
        let input = try String(contentsOfFile: suite.path("lp-input"), encoding: .utf8)
        #expect(input.contains("Bread by 7"))
        #expect(input.contains("Acme — page 1 of"))
    }

    @Test func aboutNamesTheModelAndItsAuthor() throws {
        let about = try Suite().run("bmm", "about")
        #expect(about.status == 0)
        #expect(about.stdout.contains("Nick Malik"))
        #expect(about.stdout.contains("motivationmodel.com/ebmm"))
    }
}

@Suite struct BusinessModelBadInputTests {
    /// Each case: arguments, stdin, expected exit code, a fragment of the one stderr line.
    static let cases: [(String, [String], Data, Int32, String)] = [
        ("unknown section", ["bmm", "show", "mission"], Data(), 64, "one of the following: vp, cn"),
        ("unknown section for set", ["bmm", "set", "nope", "--text", "x"], Data(), 64, "is invalid for '<section>'"),
        ("empty business name", ["bmm", "new", "   "], Data(), 65, "the name is empty"),
        ("control character in name", ["bmm", "new", "a\u{7}b"], Data(), 65, "control character"),
        ("duplicate name", ["bmm", "new", "acme"], Data(), 1, "exists already"),
        ("unknown model", ["bmm", "use", "Nope"], Data(), 1, "no business model named 'Nope'"),
        ("unknown model option", ["bmm", "sections", "--model", "Nope"], Data(), 1, "no business model named 'Nope'"),
        ("5 MB text", ["bmm", "set", "vp", "-"], Data(repeating: UInt8(ascii: "a"), count: 5_000_000), 65, "at most 1000000 bytes"),
        ("10 MB import", ["bmm", "import", "-"], Data(repeating: UInt8(ascii: "["), count: 10_000_000), 65, "malformed"),
        ("invalid UTF-8 on stdin", ["bmm", "set", "vp", "-"], Data([0x66, 0x6F, 0xFF, 0xFE, 0x6F]), 65, "not valid UTF-8"),
        ("invalid UTF-8 in walk", ["bmm", "walk"], Data([0xC3, 0x28, 0x0A, 0x2E, 0x0A]), 65, "not valid UTF-8"),
        ("NUL in text", ["bmm", "set", "vp", "-"], Data([0x61, 0x00, 0x62]), 65, "U+0000"),
        ("two text sources", ["bmm", "set", "vp", "--text", "a", "-"], Data("b".utf8), 64, "one way"),
        ("no text at all", ["bmm", "set", "vp"], Data(), 64, "give the text"),
        ("bad confidence", ["bmm", "set", "vp", "--confidence", "certain"], Data(), 64, "certain"),
        ("bad format", ["bmm", "export", "--format", "pdf"], Data(), 64, "pdf"),
        ("missing import file", ["bmm", "import", "/nonexistent/x.json"], Data(), 66, "no such file: /nonexistent/x.json"),
        ("malformed import", ["bmm", "import", "-"], Data("{\"schema\": \"suite-bmm/1\", \"model\": 3}".utf8), 65, "malformed business model document"),
        ("import that is not JSON", ["bmm", "import", "-"], Data("<html>".utf8), 65, "invalid JSON"),
        ("import of invalid UTF-8", ["bmm", "import", "-"], Data([0xFF, 0xFF]), 65, "malformed"),
        ("missing text file", ["bmm", "set", "vp", "--file", "/nonexistent/t.md"], Data(), 66, "no such file"),
        ("export to a folder", ["bmm", "export", "--force", "-o", "/tmp"], Data(), 74, "it is a folder"),
        ("version not a number", ["bmm", "restore", "vp", "--version", "two"], Data(), 64, "two"),
    ]

    @Test(arguments: cases.indices)
    func badInputGivesOneClearLineAndChangesNothing(index: Int) throws {
        let (name, arguments, stdin, status, message) = Self.cases[index]
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "original")
        let before = try suite.dump("bmm.sqlite")
        let result = try suite.run(arguments, stdin: stdin)
        expectFailure(result, status: status, message)
        #expect(try suite.dump("bmm.sqlite") == before, "\(name) changed the store")
    }
}
