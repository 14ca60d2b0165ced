import ArgumentParser
import Foundation
import SuiteEnvironment

/// The version `suite --version` prints.
public enum SuiteVersion {
    public static let current = SuiteEnvironment.version
}

/// The root `suite` command: configuration only.
public struct SuiteCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "suite",
        abstract: "Four personal productivity tools sharing one safe local store.",
        discussion: """
            Data lives in one SQLite file per app in the store folder: --store-dir, else \
            $SUITE_HOME, else $XDG_DATA_HOME/suite, else ~/.local/share/suite.

            Example:
              suite bmm add "Acme Bakery" && suite bmm walk
            """,
        version: SuiteVersion.current,
        subcommands: [BMMCommand.self, PlacesCommand.self, QuotesCommand.self, BundleCommand.self, SyncCommand.self, CheckCommand.self, BackupCommand.self, RestoreCommand.self, UICommand.self]
    )

    public init() {}
}

/// Runs `suite` with `arguments` (without the program name) and returns the exit code.
///
/// Every error is turned into one line on stderr and an exit code here, in one place.
public enum SuiteMain {
    /// Runs the command line through ArgumentParser (the executable tries ``runFast(_:context:)`` first).
    ///
    /// - Parameters:
    ///   - arguments: the command line without the program name.
    ///   - context: the environment and standard streams the command uses (``CLIContext/process``
    ///     for this process's own); stdout is flushed before this returns.
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], context: CLIContext) async -> Int32 {
        let context = context.forOneRun()
        defer { context.standardOutput.flush() }
        return await CLIContext.$bound.withValue(context) {
            do {
                let arguments = hoistingSharedOptions(arguments)
                try checkCommandWords(arguments)
                var command = try SuiteCommand.parseAsRoot(arguments)
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
                return 0
            } catch {
                return ErrorReport.report(error)
            }
        }
    }

    /// Follows the command words from the root: a word that names no command of a group is
    /// refused here, saying so, listing the group's commands and suggesting the nearest one when
    /// it is close (ArgumentParser would call it an unexpected argument, or blame an option that
    /// follows it).
    static func checkCommandWords(_ arguments: [String]) throws {
        var command: any ParsableCommand.Type = SuiteCommand.self
        var path = ["suite"]
        for word in arguments {
            let configuration = command.configuration
            // A leaf command, or a group whose default command takes arguments: ArgumentParser decides.
            guard !configuration.subcommands.isEmpty, configuration.defaultSubcommand == nil else { return }
            // Options (--help, --version, shared options) and `help` are ArgumentParser's.
            if word.hasPrefix("-") || (path.count == 1 && word == "help") { return }
            guard let next = configuration.subcommands.first(where: { Self.names(of: $0).contains(word) }) else {
                let valid = configuration.subcommands.filter { $0.configuration.shouldDisplay }.compactMap { Self.names(of: $0).first }
                let suggestion = nearest(to: word, among: valid).map { "; did you mean '\($0)'?" } ?? ""
                throw CLIError.usage("'\(word)' is not a command of '\(path.joined(separator: " "))'; its commands: \(valid.joined(separator: ", "))\(suggestion)")
            }
            command = next
            path.append(word)
        }
    }

    /// The name in `names` nearest to `word` by edit distance (a swap of two neighbouring
    /// letters counts as one edit), when it is close: at most 2 edits and at most a third of the
    /// longer word's length (at least 1). The first of equally near names.
    static func nearest(to word: String, among names: [String]) -> String? {
        let word = Array(word.lowercased())
        var best: (name: String, distance: Int)?
        for name in names {
            let candidate = Array(name.lowercased())
            let distance = editDistance(word, candidate)
            let allowed = min(2, max(1, max(word.count, candidate.count) / 3))
            if distance <= allowed, distance < best?.distance ?? .max { best = (name, distance) }
        }
        return best?.name
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours, each one edit.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// A command's name and aliases.
    static func names(of command: any ParsableCommand.Type) -> [String] {
        let configuration = command.configuration
        let name = configuration.commandName ?? String(describing: command).lowercased()
        return [name] + configuration.aliases
    }

    /// Refuses a command line with an argument that is not valid UTF-8 (which Swift would turn
    /// into U+FFFD and store): one error line and exit 65, before anything is opened.
    ///
    /// - Returns: the exit status, or nil when every argument is valid.
    public static func refuseInvalidArguments() -> Int32? {
        let argv = CommandLine.unsafeArgv
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let pointer = argv[index] else { continue }
            if String(validatingCString: pointer) == nil {
                Terminal.printError("suite: argument \(index) is not valid UTF-8 text; nothing was changed")
                return ExitStatus.dataError
            }
        }
        return nil
    }

    /// Runs the command line when it is one of the frequent read commands `FastPath` takes, on
    /// the calling thread; nil when it is not (then call ``run(_:context:)``).
    ///
    /// - Parameters:
    ///   - arguments: the command line without the program name.
    ///   - context: as for ``run(_:context:)``.
    ///   - endsProcess: whether the process exits right after a command run here (the executable):
    ///     its store connection is then left for the exit to close, which saves the checkpoint
    ///     that closing runs (see `StoreConnections.singleUntilExit`).
    /// - Returns: the exit status, or nil when the command line is left to ``run(_:context:)``.
    public static func runFast(_ arguments: [String], context: CLIContext, endsProcess: Bool = false) -> Int32? {
        FastPath.run(arguments, context: context, endsProcess: endsProcess)
    }

    /// Lets the shared options stand before the group too (`suite --store-dir D bmm list`): those
    /// given before the first command word are moved to the end, where every command accepts them.
    static func hoistingSharedOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-") {
            let argument = arguments[index]
            let name = OptionName(flag: argument)
            if name == .storeDir || name == .color, index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else if argument.hasPrefix(OptionName.storeDir.flag + "=") || argument.hasPrefix(OptionName.color.flag + "=") || name == .json {
                leading.append(argument)
                index += 1
            } else {
                return arguments
            }
        }
        guard !leading.isEmpty, index < arguments.count else { return arguments }
        var rest = Array(arguments[index...])
        let terminator = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: leading, at: terminator)
        return rest
    }
}
