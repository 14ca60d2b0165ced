import Foundation
import GRDB
import Testing

/// Text from arguments, files and stores can never control the terminal, forge an error line or
/// smuggle bytes past the text rule (issue: trust, part 1).
@Suite struct TextSafetyTests {
    /// `0xFF` is not UTF-8: Swift would store it as U+FFFD. Passed through the shell as raw bytes.
    @Test(arguments: [
        ("quotes.sqlite", "quotes add \"$(printf 'caf\\377')\""),
        ("bundle.sqlite", "bundle add \"$(printf 'buy \\377 milk')\""),
        ("bmm.sqlite", "bmm rename \"$(printf '\\377')\""),
        ("places.sqlite", "places add --name \"$(printf 'x\\377')\" --at 52.5,13.4"),
    ])
    func anArgumentThatIsNotUTF8IsRefusedWith65(store: String, command: String) throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        try suite.run("bundle", "add", "seed")
        try suite.run("bmm", "new", "Acme")
        try suite.run("places", "add", "--name", "seed", "--at", "52.5,13.4")
        let before = try suite.dump(store)
        let result = try suite.run(["exec \"$0\" \(command)", Suite.binary.path], viaShell: true)
        expectFailure(result, status: 65, "argument")
        #expect(result.stderr.contains("not valid UTF-8"))
        #expect(try suite.dump(store) == before)
    }

    /// An error that quotes user text holding a line break stays one line: no forged `suite:` line.
    @Test(arguments: [
        ["bmm", "show", "vp\nsuite: everything is fine"],
        ["bundle", "checkin", "nowhere\nsuite: forged", "--about-to"],
        ["quotes", "random", "--category", "x\r\nsuite: forged"],
        ["places", "near", "--type", "cafe\nsuite: forged"],
    ])
    func anErrorQuotingALineBreakStaysOneLine(arguments: [String]) throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("quotes", "starter")
        let result = try suite.run(arguments)
        #expect(result.status != 0)
        #expect(result.errorLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("suite: "))
        #expect(!result.stderr.dropFirst().contains("\nsuite:"))
    }

    /// Text that reached a store some other way (an older version, another program writing SQL)
    /// is printed with its control characters visible, never raw.
    @Test func storedControlCharactersArePrintedVisibly() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        let path = suite.storeFolder.appendingPathComponent("quotes.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE quote SET text = ? WHERE id = 1", arguments: ["Be\u{1B}]0;pwned\u{7} \u{1B}[2Jbold\u{9B}1m\rgone"])
        }
        try queue.close()
        let show = try suite.run("quotes", "show", "1")
        #expect(show.status == 0, "\(show.stderr)")
        let bytes = Array(show.stdout.utf8)
        #expect(!bytes.contains(0x1B) && !bytes.contains(0x07) && !bytes.contains(0x0D), "raw control bytes in \(show.stdout.debugDescription)")
        #expect(!show.stdout.unicodeScalars.contains("\u{9B}"))
        #expect(show.stdout.contains("Be\\u{1B}]0;pwned\\u{7} \\u{1B}[2Jbold\\u{9B}1m\\rgone"), "\(show.stdout.debugDescription)")
    }

    /// One policy for line endings: CRLF and a lone CR become LF in every multi-line field, from
    /// arguments and files alike, so a lone CR never reaches an output format or the terminal.
    @Test func lineEndingsAreStoredAsLineFeeds() throws {
        let suite = try Suite()
        let added = try suite.run("quotes", "add", "one\r\ntwo\rthree")
        #expect(added.status == 0, "\(added.stderr)")
        try suite.run("bundle", "add", "first\rsecond", "--notes", "a\r\nb")
        try suite.run("bmm", "new", "Acme")
        try suite.run(["bmm", "set", "vp", "-"], stdin: Data("Fresh bread\r\nby 7 am\r".utf8))
        for store in ["quotes.sqlite", "bundle.sqlite", "bmm.sqlite"] {
            let dump = try suite.dump(store)
            #expect(!dump.contains("\r"), "\(store): \(dump)")
        }
        func value(_ store: String, _ sql: String) throws -> String? {
            let queue = try DatabaseQueue(path: suite.storeFolder.appendingPathComponent(store).path)
            defer { try? queue.close() }
            return try queue.read { db in try String.fetchOne(db, sql: sql) }
        }
        #expect(try value("quotes.sqlite", "SELECT text FROM quote WHERE personal") == "one\ntwo\nthree")
        #expect(try value("bundle.sqlite", "SELECT text || '|' || notes FROM todo") == "first\nsecond|a\nb")
        #expect(try value("bmm.sqlite", "SELECT text FROM section_entry WHERE section = 'value-proposition'") == "Fresh bread\nby 7 am")
    }
}

/// Nothing Suite writes on request can destroy a store, and nothing can make it wait forever on one.
@Suite struct StoreProtectionTests {
    @Test func anOutputFileIsNeverAStore() throws {
        let suite = try Suite()
        try suite.run("quotes", "starter")
        try suite.run("bundle", "add", "Water the plant")
        let folder = suite.storeFolder.path
        try FileManager.default.createSymbolicLink(atPath: suite.path("link"), withDestinationPath: folder + "/bundle.sqlite")
        let before = try suite.dump("quotes.sqlite") + (try suite.dump("bundle.sqlite"))
        for (arguments, target) in [
            (["quotes", "export", "-o"], folder + "/quotes.sqlite"), (["bundle", "export", "-o"], suite.path("link")),
            (["quotes", "export", "-o"], folder + "/quotes.sqlite.lock"), (["bmm", "export", "--force", "--format", "json", "-o"], folder + "/quotes.sqlite"),
        ] {
            if arguments.first == "bmm" { try suite.run("bmm", "add", "Acme") }
            expectFailure(try suite.run(arguments + [target]), status: 74, "it is a store")
        }
        #expect(try suite.dump("quotes.sqlite") + (try suite.dump("bundle.sqlite")) == before)
        #expect(try suite.run("check").status == 0)
    }

    @Test func aFIFOWhereAStoreShouldBeIsRefusedAtOnce() throws {
        let suite = try Suite()
        try FileManager.default.createDirectory(at: suite.storeFolder, withIntermediateDirectories: true)
        #expect(mkfifo(suite.storeFolder.appendingPathComponent("quotes.sqlite").path, 0o600) == 0)
        expectFailure(try suite.run("quotes", "list"), status: 74, "not a regular file")
    }
}

/// An endless input is refused, not read until memory runs out (it once took 24 GB).
@Suite struct EndlessInputTests {
    @Test func anEndlessFileOrPipeForATextIsRefused() throws {
        let suite = try Suite()
        try suite.run("bmm", "add", "Acme")
        let before = try suite.dump("bmm.sqlite")
        expectFailure(try suite.run("bmm", "set", "ps", "--file", "/dev/zero"), status: 65, "larger than 16 MiB")
        let piped = try suite.run(["exec \"$0\" bmm set ps - < /dev/zero", Suite.binary.path], viaShell: true)
        expectFailure(piped, status: 65, "standard input is larger than 16 MiB")
        #expect(try suite.dump("bmm.sqlite") == before)
    }
}

/// Text that reached a store before the text rule (or from another program) leaves in no output
/// format as raw control characters.
@Suite struct LegacyTextInExportsTests {
    static let hostile = "Be\u{1B}]0;pwned\u{7} bold\u{9B}1m\rgone\u{2028}x"

    func poke(_ suite: Suite, _ store: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: suite.storeFolder.appendingPathComponent(store).path)
        try queue.write { db in try db.execute(sql: sql, arguments: [Self.hostile]) }
        try queue.close()
    }

    @Test func theTodoListShowsControlCharactersVisibly() throws {
        let suite = try Suite()
        try suite.run("bundle", "add", "placeholder", "--before", "go out")
        try suite.run("bundle", "add", "second", "--after", "go out")
        try poke(suite, "bundle.sqlite", "UPDATE todo SET text = ? WHERE id = 1")
        try poke(suite, "bundle.sqlite", "UPDATE event SET name = ?")
        for arguments in [["bundle", "list"], ["bundle", "todos", "--all"]] {
            let result = try suite.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(!result.stdout.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) },
                    "\(arguments): \(result.stdout.debugDescription)")
            #expect(result.stdout.contains("#1 Be\\u{1B}]0;pwned\\u{7} bold\\u{9B}1m\\rgone"), "\(arguments): \(result.stdout.debugDescription)")
            #expect(result.stdout.contains("#2 second (after Be\\u{1B}]0;pwned"), "\(arguments): \(result.stdout.debugDescription)")
        }
    }

    @Test func everyTextExportIsClean() throws {
        let suite = try Suite()
        try suite.run("quotes", "add", "placeholder", "--source", "someone")
        try suite.run("bmm", "add", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "placeholder")
        try suite.run("places", "add", "--name", "placeholder", "--at", "-33.87,151.21")
        try suite.run("bundle", "add", "placeholder", "--before", "go out")
        try poke(suite, "quotes.sqlite", "UPDATE quote SET text = ?")
        try poke(suite, "quotes.sqlite", "UPDATE source SET name = ?")
        try poke(suite, "bmm.sqlite", "UPDATE section_entry SET text = ?")
        try poke(suite, "places.sqlite", "UPDATE place SET name = ?")
        try poke(suite, "bundle.sqlite", "UPDATE todo SET text = ?")
        try poke(suite, "bundle.sqlite", "UPDATE event_name SET phrase = ?")
        for arguments in [
            ["quotes", "export", "--format", "text"], ["quotes", "export", "--format", "markdown"],
            ["bmm", "export", "--format", "text", "--force"], ["bmm", "export", "--format", "html", "--force"],
            ["bmm", "export", "--format", "markdown", "--force"], ["places", "export", "--format", "csv"],
            ["bundle", "export", "--format", "todotxt"], ["bundle", "export", "--format", "ics"],
        ] {
            let result = try suite.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let scalars = result.stdout.unicodeScalars.filter { $0 != "\n" && $0 != "\t" && !(arguments.last == "ics" && $0 == "\r") }
            #expect(!scalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" }, "\(arguments): \(result.stdout.debugDescription)")
            #expect(result.stdout.contains("bold"), "\(arguments) lost the text")
        }
    }
}
