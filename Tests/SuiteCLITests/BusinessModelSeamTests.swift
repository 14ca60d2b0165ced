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
}
