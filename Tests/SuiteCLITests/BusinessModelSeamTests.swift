import Foundation
import Testing

/// Everyday seams a new user of `suite bmm` found (issue 38).
@Suite struct BusinessModelSeamTests {
    private func text(_ suite: Suite, _ section: String) throws -> JSONValue? {
        try JSONDecoder().decode(JSONValue.self, from: Data(try suite.run("bmm", "show", section, "--json").stdout.utf8))["text"]
    }

    private func versions(_ suite: Suite, _ section: String) throws -> Int {
        let history = try JSONDecoder().decode(JSONValue.self, from: Data(try suite.run("bmm", "history", section, "--json").stdout.utf8))
        return history["versions"]?.array.count ?? -1
    }

    /// A mistyped walk command is refused and asked again, never saved as the answer; ':g SECTION'
    /// goes to a section by any name `show` takes; '::' writes a line that starts with ':'.
    @Test func aMistypedWalkCommandIsRefusedAndGoGoesToASection() throws {
        let suite = try Suite()
        try suite.run("bmm", "add", "Acme")
        // Typed at a terminal: a mistyped command is refused and asked again.
        let walk = suite.runTyped(["bmm", "walk"], stdin: """
            :go ps
            :g ps
            Sourdough
            .
            :g nowhere
            :goto customer needs
            Warm bread
            ::-) before seven
            .
            :q

            """)
        #expect(walk.status == 0, "\(walk.stderr)")
        #expect(walk.stdout.contains("':go ps' is not a walk command; nothing was saved from that line. Walk commands, on a line of their own: '.' ends the answer, ':b' goes back, ':g SECTION' goes to a section"))
        #expect(walk.stdout.contains("'nowhere' is not a section; nothing was saved from that line. Sections: vp, cn, ct, ps, ch"))
        #expect(walk.stdout.contains("':q' stops; ':g SECTION' goes to a section):"))
        #expect(walk.stdout.contains("── 4/10 · ':b' ← CT Customer Type ──"))
        #expect(walk.stdout.contains("2 sections saved"))
        #expect(try text(suite, "vp") == .string(""))
        #expect(try versions(suite, "vp") == 0)
        #expect(try text(suite, "ps") == .string("Sourdough"))
        #expect(try text(suite, "cn") == .string("Warm bread\n:-) before seven"))
        #expect(try text(suite, "ch") == .string(""))
    }

    /// From a pipe nobody can be asked again: a line that is no walk command stops the walk with
    /// exit 65, and the section it was in is not saved (its text would be lost otherwise).
    @Test func aPipedWalkStopsAtALineThatIsNoCommandAndSavesNothingOfThatSection() throws {
        let suite = try Suite()
        try suite.run("bmm", "add", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "Bread by 7")
        let before = try suite.dump("bmm.sqlite")
        let walk = try suite.runProcess(["bmm", "walk"], stdin: Data("Hi\n:-) yes\n.\n".utf8))
        expectFailure(walk, status: 65, "':-) yes' is not a walk command; Customer Needs was not saved (write '::' to start a line with ':')")
        #expect(try suite.dump("bmm.sqlite") == before)
    }

    /// The walk resumes at the first section not written, saying so; with every section written it
    /// starts at the first; a new model still gets the intro.
    @Test func theWalkResumesAtTheFirstSectionNotWritten() throws {
        let suite = try Suite()
        try suite.run("bmm", "add", "Acme")
        let first = try suite.run("bmm", "walk", stdin: ":q\n")
        #expect(first.stdout.contains("The walk asks for ten sections"))
        #expect(!first.stdout.contains("Resuming"))
        try suite.run("bmm", "set", "vp", "--text", "Bread by 7")
        try suite.run("bmm", "set", "cn", "--text", "Breakfast on the way")
        let resumed = try suite.run("bmm", "walk", stdin: "Commuters\n.\n:q\n")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("Resuming at Customer Type (2 of 10 written)."))
        #expect(!resumed.stdout.contains("The walk asks for ten sections"))
        #expect(!resumed.stdout.contains("── 1/10"))
        #expect(resumed.stdout.contains("── 3/10"))
        #expect(try text(suite, "ct") == .string("Commuters"))
        // --from still starts where it is told, without the resume line.
        let from = try suite.run("bmm", "walk", "--from", "cn", stdin: ":q\n")
        #expect(from.stdout.contains("── 2/10"))
        #expect(!from.stdout.contains("Resuming"))
        for section in ["ps", "ch", "gl", "pt", "rc", "ra", "cr"] {
            #expect(try suite.run("bmm", "set", section, "--text", "Written").status == 0)
        }
        let done = try suite.run("bmm", "walk", stdin: ":q\n")
        #expect(done.stdout.contains("All 10 sections are written; starting at Value Proposition."))
        #expect(done.stdout.contains("── 1/10 ──"))
    }

    /// `set` with the text (and confidence) a section has already adds no version.
    @Test func settingTheSameTextAddsNoVersion() throws {
        let suite = try Suite()
        try suite.run("bmm", "add", "Acme")
        #expect(try suite.run("bmm", "set", "vp", "--text", "Bread by 7", "--confidence", "assumption").status == 0)
        let before = try suite.dump("bmm.sqlite")
        for arguments in [["bmm", "set", "vp", "--text", "Bread by 7"], ["bmm", "set", "vp", "--text", "  Bread by 7\n"],
                          ["bmm", "set", "vp", "--confidence", "assumption"], ["bmm", "set", "value proposition", "--text", "Bread by 7", "--confidence", "assumption"]] {
            let same = try suite.run(arguments)
            #expect(same.status == 0, "\(same.stderr)")
            #expect(same.stdout.hasPrefix("Value Proposition unchanged."), "\(arguments): \(same.stdout)")
        }
        let piped = try suite.run("bmm", "set", "vp", "-", stdin: "Bread by 7\n")
        #expect(piped.stdout.hasPrefix("Value Proposition unchanged."))
        #expect(try suite.dump("bmm.sqlite") == before)
        #expect(try versions(suite, "vp") == 1)
        // Another confidence, or another text, is a new version.
        #expect(try suite.run("bmm", "set", "vp", "--confidence", "validated").stdout.hasPrefix("Saved Value Proposition."))
        #expect(try suite.run("bmm", "set", "vp", "--text", "Bread by 6").stdout.hasPrefix("Saved Value Proposition."))
        #expect(try versions(suite, "vp") == 3)
        // An empty text is still refused, also on an empty section.
        expectFailure(try suite.run("bmm", "set", "cn", "--text", " "), status: 65, "the text is empty")
    }

    /// `rename NEW` renames the current model, `rename OLD NEW` the one named; an unknown OLD or
    /// a NEW in use is one error line and changes nothing.
    @Test func renameTakesTheModelByName() throws {
        let suite = try Suite()
        try suite.run("bmm", "add", "Acme")
        try suite.run("bmm", "add", "Other")
        let renamed = try suite.run("bmm", "rename", "Acme", "Acme Web")
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stdout == "Renamed 'Acme' to 'Acme Web'.\n")
        #expect(try suite.run("bmm", "list").stdout == "  Acme Web  0%\n* Other  0%\n")
        #expect(try suite.run("bmm", "rename", "Other Co").stdout == "Renamed 'Other' to 'Other Co'.\n")

        let before = try suite.dump("bmm.sqlite")
        expectFailure(try suite.run("bmm", "rename", "Nobody", "X"), status: 1, "no business model named 'Nobody'")
        expectFailure(try suite.run("bmm", "rename", "Acme Web", "other co"), status: 1, "a business model named 'other co' exists already")
        expectFailure(try suite.run("bmm", "rename", "A", "B", "C"), status: 64, "give the new name, or the model's name and then the new name")
        expectFailure(try suite.run("bmm", "rename", "--model", "Acme Web", "A", "B"), status: 64, "name the model once")
        #expect(try suite.dump("bmm.sqlite") == before)
    }

    /// Help shows today's grammar (`bmm add`); the older `bmm new` still works, unlisted.
    @Test func helpShowsAddAndHidesTheOlderNew() throws {
        let suite = try Suite()
        let top = try suite.run("--help")
        #expect(top.stdout.contains("suite bmm add \"Acme Bakery\""))
        #expect(!top.stdout.contains("bmm new"))
        let bmm = try suite.run("bmm", "--help")
        #expect(bmm.stdout.contains("Start with 'add'"))
        #expect(!bmm.stdout.contains("add, new"), "\(bmm.stdout)")
        #expect(!bmm.stdout.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("new ") }, "\(bmm.stdout)")
        let made = try suite.run("bmm", "new", "Acme")
        #expect(made.status == 0)
        #expect(made.stdout.contains("Created 'Acme' (now current)."))
        let empty = try Suite()
        expectFailure(try empty.run("bmm", "set", "vp", "--text", "Bread"), status: 1, "create one with 'suite bmm add NAME'")
        #expect(try empty.run("bmm", "list").stdout.contains("suite bmm add \"Business name\""))
    }

    /// With $COLUMNS, `about`, the walk and `show` wrap their prose at spaces to that width;
    /// without it and without a terminal nothing is wrapped.
    @Test func proseIsWrappedToColumnsBetweenWords() throws {
        let suite = try Suite()
        let plain = try suite.run("bmm", "about")
        #expect(plain.stdout.split(separator: "\n").contains { $0.count > 100 })
        let wrapped = try suite.run(["bmm", "about"], environment: ["COLUMNS": "40"])
        #expect(wrapped.status == 0)
        #expect(wrapped.stdout.split(separator: "\n").allSatisfy { $0.count <= 40 }, "\(wrapped.stdout)")
        // The same words in the same order: none is broken.
        #expect(wrapped.stdout.split(whereSeparator: \.isWhitespace) == plain.stdout.split(whereSeparator: \.isWhitespace))
        // A list item goes on under its text.
        #expect(wrapped.stdout.contains(" 1. Value Proposition (required): Why\n    your offer"), "\(wrapped.stdout)")

        try suite.run("bmm", "add", "Acme")
        try suite.run("bmm", "set", "vp", "--text", "Fresh bread by seven in the morning, two streets from where you live.")
        let walk = try suite.run(["bmm", "walk", "--from", "vp"], stdin: Data(":q\n".utf8), environment: ["COLUMNS": "50"])
        #expect(walk.status == 0)
        #expect(walk.stdout.split(separator: "\n").allSatisfy { $0.count <= 50 }, "\(walk.stdout)")
        #expect(walk.stdout.contains("  Fresh bread by seven in the morning, two streets\n  from where you live."), "\(walk.stdout)")
        let show = try suite.run(["bmm", "show", "vp"], environment: ["COLUMNS": "50"])
        #expect(show.stdout.split(separator: "\n").allSatisfy { $0.count <= 50 }, "\(show.stdout)")
        #expect(try suite.run("bmm", "show", "vp").stdout.contains("  Fresh bread by seven in the morning, two streets from where you live."))
    }
}
