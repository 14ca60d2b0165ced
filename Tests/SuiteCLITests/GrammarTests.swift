import Foundation
import Testing

/// The command grammar every app follows (README "The command grammar").
@Suite struct GrammarTests {
    /// A word that names no command says so, names the group and lists its commands, even when an
    /// option follows it (ArgumentParser blamed the option: "Unknown option '--store-dir'").
    @Test(arguments: [
        (["bmm", "lst", "--store-dir", "STORE"], "'lst' is not a command of 'suite bmm'; its commands: new, list"),
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
