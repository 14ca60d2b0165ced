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
