import ArgumentParser
import Foundation
import QuoteCore
import SuiteStorage
import WorkplaceCore

/// The most frequent read commands, parsed without ArgumentParser.
///
/// ArgumentParser builds its view of a command by reflection, and on Linux every first
/// `as? Protocol` cast scans all of the binary's ~9,300 protocol conformance records: parsing
/// `suite quotes search love` cost about half of the instructions of the whole process. These
/// commands are short-lived and run often (from prompts, status bars, scripts), so their plain
/// shapes are read here and run through the same code as the parsed commands: their static `run`
/// functions, which take the options as plain values (``PlainStoreOptions``, ``PlainQuotesOptions``)
/// that the parsed commands make from theirs. The option names are the declarations' own
/// (``OptionName``).
///
/// Anything unusual (help, an unknown or repeated option, `--opt=value`, a value starting with
/// `-` after an option that ArgumentParser reads only up to the next option, a number out of
/// range, `--`) is left to ArgumentParser, so errors and help stay its own. Options declared
/// `parsing: .unconditional` there (coordinates and numbers, which may be negative) take the
/// next word here too.
/// `SUITE_NO_FAST_PATH=1` turns this off; the CLI tests compare both ways on the same stores.
enum FastPath {
    /// Runs `arguments` in `context` when they have one of the shapes handled here; nil otherwise.
    /// These commands open one store connection (`StoreConnections.single`), left open for the
    /// exit to close when `endsProcess`.
    static func run(_ arguments: [String], context: CLIContext, endsProcess: Bool = false) -> Int32? {
        if context.environment["SUITE_NO_FAST_PATH"].map({ !$0.isEmpty && $0 != "0" }) == true { return nil }
        let context = context.forOneRun()
        return StoreOpening.$connections.withValue(endsProcess ? .singleUntilExit : .single) {
            CLIContext.$bound.withValue(context) { () -> Int32? in
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
    }

    /// What to run for `arguments`, when they have one of the shapes handled here.
    static func command(for arguments: [String]) -> (() throws -> Void)? {
        if arguments == ["--version"] { return { print(SuiteVersion.current) } }
        let arguments = SuiteMain.hoistingSharedOptions(arguments)
        guard arguments.count >= 2 else { return nil }
        let rest = arguments.dropFirst(2)
        // Arrays, not sets: a first `Set<OptionName>` costs a scan of every conformance record.
        let common: [OptionName] = [.storeDir, .color], commonFlags: [OptionName] = [.json]
        let run: () throws -> Void
        switch (arguments[0], arguments[1]) {
        case ("quotes", "random"):
            guard let words = Words(rest, options: common + [.user, .category, .source],
                                    flags: commonFlags + [.favorites], positionals: 0...0) else { return nil }
            run = { try QuotesCommand.Random.run(words.quotesOptions, filter: words.quoteFilter) }
        case ("quotes", "search"):
            guard let words = Words(rest, options: common + [.user, .category, .source, .limit],
                                    flags: commonFlags + [.favorites], positionals: 1...1),
                  let limit = words.int(.limit, default: QuotesCommand.Search.defaultLimit, in: QuotesCommand.Search.limits) else { return nil }
            run = { try QuotesCommand.Search.run(words.quotesOptions, query: words.positionals[0], filter: words.quoteFilter, limit: limit) }
        case ("places", "near"):
            // --at, --radius and --limit take their next word whatever it is (a negative
            // coordinate or number), as ArgumentParser's `.unconditional` options do.
            guard let words = Words(rest, options: common + [.at, .radius, .limit, .type, .min, .max],
                                    flags: commonFlags + [.openNow], positionals: 0...0, unconditional: [.at, .radius, .limit]),
                  // Any whole number, as ArgumentParser takes it: the store checks 1…10000 (exit 64).
                  let limit = words.int(.limit, default: PlacesCommand.Near.defaultLimit, in: Int.min...Int.max) else { return nil }
            run = {
                try PlacesCommand.Near.run(words.storeOptions, at: words.options[.at], radius: words.options[.radius], anywhere: false,
                                           limit: limit, type: words.options[.type], min: words.options[.min], max: words.options[.max],
                                           openNow: words.flags.contains(.openNow), sort: .distance)
            }
        case ("bundle", "list"), ("bundle", "todos"):
            guard let words = Words(rest, options: common + [.event], flags: commonFlags + [.all], positionals: 0...0)
            else { return nil }
            run = { try BundleCommand.Todos.run(words.storeOptions, event: words.options[.event], all: words.flags.contains(.all)) }
        case ("bundle", "checkin"):
            // Only the listing: choosing (--pick, --all, a terminal to ask on) goes the usual way.
            guard !Terminal.stdinIsTerminal,
                  let words = Words(rest, options: common, flags: commonFlags + [.aboutTo, .justFinished], positionals: 1...1),
                  words.flags.contains(.aboutTo) != words.flags.contains(.justFinished) else { return nil }
            run = {
                try BundleCommand.CheckIn.run(words.storeOptions, event: words.positionals[0], aboutTo: words.flags.contains(.aboutTo),
                                              pick: nil, all: false, title: nil, icon: nil)
            }
        default:
            return nil
        }
        // --color as ArgumentParser reads it: a value it refuses (or a bad $SUITE_ACCENT) is left to it.
        var mode = ColorMode.auto
        if let option = arguments.firstIndex(of: OptionName.color.flag) {
            guard arguments.indices.contains(option + 1), let given = ColorMode(rawValue: arguments[option + 1]) else { return nil }
            mode = given
        }
        guard (try? Colour.choose(mode)) != nil else { return nil }
        return run
    }

    /// The words after the command: `--name value` options, flags and positionals, each at most once.
    /// An option in `unconditional` takes the next word even when it starts with `-`.
    struct Words {
        var options = Options()
        var flags: [OptionName] = []
        var positionals: [String] = []

        /// The options given, by name (a few, so a list).
        struct Options {
            var given: [(name: OptionName, value: String)] = []

            subscript(name: OptionName) -> String? {
                get { given.first { $0.name == name }?.value }
                set {
                    given.removeAll { $0.name == name }
                    if let newValue { given.append((name, newValue)) }
                }
            }
        }

        /// Nil for anything this reader does not take on.
        init?(_ words: ArraySlice<String>, options allowedOptions: [OptionName], flags allowedFlags: [OptionName], positionals count: ClosedRange<Int>,
              unconditional: [OptionName] = []) {
            var index = words.startIndex
            while index < words.endIndex {
                let word = words[index]
                if word.hasPrefix("-") {
                    guard let name = OptionName(flag: word) else { return nil }
                    if allowedFlags.contains(name) {
                        guard !flags.contains(name) else { return nil }
                        flags.append(name)
                    } else if allowedOptions.contains(name) {
                        index += 1
                        guard index < words.endIndex, options[name] == nil, unconditional.contains(name) || !words[index].hasPrefix("-") else { return nil }
                        options[name] = words[index]
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
        func int(_ name: OptionName, default fallback: Int, in range: ClosedRange<Int>) -> Int? {
            guard let text = options[name] else { return fallback }
            return try? NumberOption.int(text, in: range, option: name.flag)
        }

        var storeOptions: PlainStoreOptions {
            PlainStoreOptions(storeDir: options[.storeDir], json: flags.contains(.json))
        }

        var quotesOptions: PlainQuotesOptions {
            PlainQuotesOptions(store: storeOptions, user: options[.user])
        }

        var quoteFilter: QuoteFilter {
            QuoteFilter(category: options[.category], source: options[.source], favoritesOnly: flags.contains(.favorites))
        }
    }
}
