import Foundation
import Testing
@testable import SuiteCLI

/// The fast path (`FastPath`) must be invisible: every command line it takes gives the same
/// output, errors and exit status as ArgumentParser's way (`SUITE_NO_FAST_PATH=1`).
@Suite(.serialized) struct FastPathTests {
    static let quotesFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/quotes/sample.csv").standardizedFileURL.path

    /// A store folder with quotes, places, a location and todos in two events.
    func populated() throws -> Suite {
        let suite = try Suite()
        for arguments in [
            ["quotes", "import", "csv", Self.quotesFixture],
            ["quotes", "starter"],
            ["places", "import", placesFixture],
            ["places", "location", "set", "52.52,13.405"],
            ["bundle", "add", "Get the agreement signed", "--before", "go to the bank", "--deadline", "2026-12-01"],
            ["bundle", "add", "Pay the rent", "--before", "go to the bank"],
            ["bundle", "add", "Water the plant", "--after", "come back from work"],
        ] {
            let result = try suite.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        return suite
    }

    static let readCommands: [[String]] = [
        ["--version"],
        ["quotes", "search", "love"],
        ["quotes", "search", "hungry"],
        ["quotes", "search", "courage", "--limit", "2", "--json"],
        ["quotes", "search", "the", "--category", "courage"],
        ["quotes", "search", "stay", "--source", "Whole Earth Catalog"],
        ["quotes", "search", "zzzznothing"],
        ["quotes", "search", "love", "--limit", "0"],
        ["quotes", "search", "love", "--limit", "x"],
        ["quotes", "search", "love", "--limit", "9223372036854775807"],
        ["quotes", "search", "love", "--limit", "nan"],
        ["places", "near", "--limit", "9223372036854775807"],
        ["quotes", "search", "\"unclosed"],
        ["quotes", "search"],
        ["quotes", "search", "love", "--nope"],
        ["--json", "quotes", "search", "love", "--favorites", "--user", "ann"],
        ["places", "near"],
        ["places", "near", "--radius", "800m", "--limit", "2"],
        ["places", "near", "--at", "48.8566,2.3522", "--json"],
        ["places", "near", "--at", "-33.8688,151.2093", "--anywhere", "--limit", "2"],
        ["places", "near", "--at", "-33.8688,-151.2093", "--json"],
        ["places", "near", "--at", "52.52,13.405", "--limit", "-1"],
        ["places", "near", "--radius", "-5m"],
        ["places", "near", "--max", "noise=2", "--json"],
        ["places", "near", "--max", "noise=9"],
        ["places", "near", "--max", "volume=1"],
        ["places", "near", "--at", "--json"],
        ["places", "near", "--at", "91,0"],
        ["places", "near", "--radius", "far"],
        ["places", "near", "--type", "library,coffee-shop", "--min", "wifi=9"],
        ["places", "near", "--type", "castle"],
        ["places", "near", "--open-now", "--limit", "-1"],
        ["bundle", "todos"],
        ["bundle", "todos", "--event", "go to the bank"],
        ["bundle", "todos", "--event", "go to the moon"],
        ["bundle", "todos", "--all", "--json"],
        ["bundle", "checkin", "go to the bank", "--about-to"],
        ["bundle", "checkin", "go to the bank", "--about-to", "--json"],
        ["bundle", "checkin", "go to the bank"],
        ["bundle", "checkin", "go to the bank", "--about-to", "--just-finished"],
        ["bundle", "checkin", "nowhere", "--just-finished"],
    ]

    @Test func readCommandsAnswerTheSameBothWays() throws {
        let suite = try populated()
        for arguments in Self.readCommands {
            let fast = try suite.run(arguments)
            let parsed = try suite.run(arguments, environment: ["SUITE_NO_FAST_PATH": "1"])
            #expect(fast.status == parsed.status, "\(arguments)")
            #expect(fast.stdout == parsed.stdout, "\(arguments)")
            #expect(fast.stderr == parsed.stderr, "\(arguments)")
        }
        // The table covers successes and failures alike.
        #expect(try suite.run(["quotes", "search", "hungry"]).stdout.contains("hungry"))
        #expect(try suite.run(["bundle", "todos"]).stdout.contains("Pay the rent"))
        #expect(try suite.run(["places", "near", "--at", "91,0"]).status == 65)
    }

    /// The table above is not all left to ArgumentParser: these shapes are the fast path's.
    @Test func theFastPathTakesThePlainShapesAndLeavesTheRest() {
        let taken: [[String]] = [
            ["--version"], ["quotes", "random"], ["--store-dir", "/s", "--json", "quotes", "random", "--favorites"],
            ["quotes", "search", "love", "--limit", "5", "--category", "c", "--source", "s", "--user", "u"],
            ["places", "near"], ["places", "near", "--at", "1,2", "--radius", "1km", "--limit", "20", "--type", "library", "--min", "wifi=3", "--open-now"],
            ["places", "near", "--at", "-33.9,-151.2", "--radius", "-1km", "--limit", "-3", "--max", "noise=2,cost=1"],
            ["bundle", "todos", "--event", "e", "--all", "--json"],
        ]
        let left: [[String]] = [
            [], ["--help"], ["quotes"], ["quotes", "random", "--help"], ["quotes", "random", "-h"], ["quotes", "random", "extra"],
            ["quotes", "search"], ["quotes", "search", "a", "b"], ["quotes", "search", "a", "--limit", "0"], ["quotes", "search", "a", "--limit", "x"],
            ["quotes", "search", "a", "--limit=5"], ["quotes", "search", "--", "-a"], ["quotes", "search", "-a"],
            ["quotes", "random", "--category", "a", "--category", "b"], ["quotes", "random", "--category"], ["quotes", "random", "--json", "--json"],
            ["places", "near", "--sort", "score"], ["places", "near", "--anywhere"], ["places", "near", "--type", "-x"],
            ["bundle", "todos", "--event"], ["bundle", "add", "x"], ["quotes", "import", "csv", "f"], ["bmm", "sections"],
        ]
        for arguments in taken { #expect(FastPath.command(for: arguments) != nil, "\(arguments)") }
        for arguments in left { #expect(FastPath.command(for: arguments) == nil, "\(arguments)") }
    }

    @Test func randomGivesTheSameSequenceBothWays() throws {
        let fast = try populated()
        let variants = [["quotes", "random"], ["quotes", "random", "--json"], ["quotes", "random", "--category", "courage"],
                        ["quotes", "random", "--category", "no-such-category"], ["quotes", "random", "--favorites"]]
        // Each filter's shuffle bag gets a random seed when it starts: start them before copying.
        for arguments in variants { _ = try fast.run(arguments) }
        var parsed = try Suite()
        try FileManager.default.removeItem(at: parsed.folder)
        try FileManager.default.copyItem(at: fast.folder, to: parsed.folder)
        parsed.environment["SUITE_NO_FAST_PATH"] = "1"
        for arguments in variants {
            for _ in 0..<3 {
                let one = try fast.run(arguments), other = try parsed.run(arguments)
                #expect(one.status == other.status && one.stdout == other.stdout && one.stderr == other.stderr, "\(arguments)")
            }
        }
        #expect(try fast.dump("quotes.sqlite") == (try parsed.dump("quotes.sqlite")))
    }
}
