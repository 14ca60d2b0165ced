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
