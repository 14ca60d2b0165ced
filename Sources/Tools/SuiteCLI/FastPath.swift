import ArgumentParser
import Foundation
import QuoteCore
import WorkplaceCore

/// The most frequent read commands, parsed without ArgumentParser.
///
/// ArgumentParser builds its view of a command by reflection, and on Linux every first
/// `as? Protocol` cast scans all of the binary's ~7,400 protocol conformance records: parsing
/// `suite quotes search love` cost about half of the instructions of the whole process. These
/// commands are short-lived and run often (from prompts, status bars, scripts), so their plain
/// shapes are read here and run through the same code as the parsed commands.
///
/// Anything unusual (help, an unknown or repeated option, `--opt=value`, a value starting with
/// `-` after an option that ArgumentParser reads only up to the next option, a number out of
/// range, `--`) is left to ArgumentParser, so errors and help stay its own. Options declared
/// `parsing: .unconditional` there (coordinates and numbers, which may be negative) take the
/// next word here too.
/// `SUITE_NO_FAST_PATH=1` turns this off; the CLI tests compare both ways on the same stores.
enum FastPath {
    /// Runs `arguments` in `context` when they have one of the shapes handled here; nil otherwise.
    static func run(_ arguments: [String], context: CLIContext) -> Int32? {
        if context.environment["SUITE_NO_FAST_PATH"].map({ !$0.isEmpty && $0 != "0" }) == true { return nil }
        let context = context.forOneRun()
        return CLIContext.$bound.withValue(context) { () -> Int32? in
            guard let run = command(for: arguments) else { return nil }
            defer { context.standardOutput.flush() }
            do {
                try run()
                return 0
            } catch {
                return ErrorReport.report(error)
            }
        }
    }

    /// What to run for `arguments`, when they have one of the shapes handled here.
    static func command(for arguments: [String]) -> (() throws -> Void)? {
        if arguments == ["--version"] { return { print(SuiteVersion.current) } }
        let arguments = SuiteMain.hoistingSharedOptions(arguments)
        guard arguments.count >= 2 else { return nil }
        let rest = arguments.dropFirst(2)
        let common: Set = ["--store-dir", "--color"], commonFlags: Set = ["--json"]
        let run: () throws -> Void
        switch (arguments[0], arguments[1]) {
        case ("quotes", "random"):
            guard let words = Words(rest, options: common.union(["--user", "--category", "--source"]),
                                    flags: commonFlags.union(["--favorites"]), positionals: 0...0) else { return nil }
            run = { try QuotesCommand.Random.run(words.quotesOptions, filter: words.quoteFilter) }
        case ("quotes", "search"):
            guard let words = Words(rest, options: common.union(["--user", "--category", "--source", "--limit"]),
                                    flags: commonFlags.union(["--favorites"]), positionals: 1...1),
                  let limit = words.int("--limit", default: 20, in: QuotesCommand.Search.limits) else { return nil }
            run = { try QuotesCommand.Search.run(words.quotesOptions, query: words.positionals[0], filter: words.quoteFilter, limit: limit) }
        case ("places", "near"):
            // --at, --radius and --limit take their next word whatever it is (a negative
            // coordinate or number), as ArgumentParser's `.unconditional` options do.
            guard let words = Words(rest, options: common.union(["--at", "--radius", "--limit", "--type", "--min", "--max"]),
                                    flags: commonFlags.union(["--open-now"]), positionals: 0...0, unconditional: ["--at", "--radius", "--limit"]),
                  // Any whole number, as ArgumentParser takes it: the store checks 1…10000 (exit 64).
                  let limit = words.int("--limit", default: 20, in: Int.min...Int.max) else { return nil }
            run = {
                try PlacesCommand.Near.run(words.storeOptions, at: words.options["--at"], radius: words.options["--radius"], anywhere: false,
                                   limit: limit, type: words.options["--type"], min: words.options["--min"], max: words.options["--max"],
                                   openNow: words.flags.contains("--open-now"), sort: .distance)
            }
        case ("bundle", "list"), ("bundle", "todos"):
            guard let words = Words(rest, options: common.union(["--event"]), flags: commonFlags.union(["--all"]), positionals: 0...0)
            else { return nil }
            run = { try BundleCommand.Todos.run(words.storeOptions, event: words.options["--event"], all: words.flags.contains("--all")) }
        case ("bundle", "checkin"):
            // Only the listing: choosing (--pick, --all, a terminal to ask on) goes the usual way.
            guard !Terminal.stdinIsTerminal,
                  let words = Words(rest, options: common, flags: commonFlags.union(["--about-to", "--just-finished"]), positionals: 1...1),
                  words.flags.contains("--about-to") != words.flags.contains("--just-finished") else { return nil }
            run = {
                try BundleCommand.CheckIn.run(words.storeOptions, event: words.positionals[0], aboutTo: words.flags.contains("--about-to"),
                                      pick: nil, all: false, title: nil, icon: nil)
            }
        default:
            return nil
        }
        // --color as ArgumentParser reads it: a value it refuses (or a bad $SUITE_ACCENT) is left to it.
        var mode = ColorMode.auto
        if let option = arguments.firstIndex(of: "--color") {
            guard arguments.indices.contains(option + 1), let given = ColorMode(rawValue: arguments[option + 1]) else { return nil }
            mode = given
        }
        guard (try? Colour.choose(mode)) != nil else { return nil }
        return run
    }

    /// The words after the command: `--name value` options, flags and positionals, each at most once.
    /// An option in `unconditional` takes the next word even when it starts with `-`.
    struct Words {
        var options: [String: String] = [:]
        var flags: Set<String> = []
        var positionals: [String] = []

        /// Nil for anything this reader does not take on.
        init?(_ words: ArraySlice<String>, options allowedOptions: Set<String>, flags allowedFlags: Set<String>, positionals count: ClosedRange<Int>,
              unconditional: Set<String> = []) {
            var index = words.startIndex
            while index < words.endIndex {
                let word = words[index]
                if word.hasPrefix("-") {
                    if allowedFlags.contains(word) {
                        guard flags.insert(word).inserted else { return nil }
                    } else if allowedOptions.contains(word) {
                        index += 1
                        guard index < words.endIndex, options[word] == nil, unconditional.contains(word) || !words[index].hasPrefix("-") else { return nil }
                        options[word] = words[index]
                    } else {
                        return nil
                    }
                } else {
                    positionals.append(word)
                }
                index += 1
            }
            guard count.contains(positionals.count) else { return nil }
        }

        /// The option as a number checked as ArgumentParser's `transform:` checks it (``NumberOption``),
        /// `fallback` when absent; nil when it is not a number in `range` (ArgumentParser then says so).
        func int(_ name: String, default fallback: Int, in range: ClosedRange<Int>) -> Int? {
            guard let text = options[name] else { return fallback }
            return try? NumberOption.int(text, in: range, option: name)
        }

        var storeOptions: PlainStoreOptions {
            PlainStoreOptions(storeDir: options["--store-dir"], json: flags.contains("--json"))
        }

        var quotesOptions: PlainQuotesOptions {
            PlainQuotesOptions(common: storeOptions, user: options["--user"])
        }

        var quoteFilter: QuoteFilter {
            QuoteFilter(category: options["--category"], source: options["--source"], favoritesOnly: flags.contains("--favorites"))
        }
    }
}
