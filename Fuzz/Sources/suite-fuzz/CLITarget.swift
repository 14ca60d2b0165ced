// The `cli` target: random argument vectors through the whole `suite` command line, in process,
// against a throwaway store in a private folder. Whatever the words, a command must end with an
// exit code (and at most a `suite:` line): a trap, a crash or a hang is a finding.
import Dispatch
import ArgumentParser
import Foundation
import SuiteCLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum CLIFuzz {
    /// Every command path of `suite` with the options its help lists (hidden ones, such as the
    /// provider URL overrides, are left out: the fuzzer must not reach the network), read from
    /// ArgumentParser itself so that new commands and options are fuzzed too; and a few
    /// non-commands.
    static let commands: [(path: [String], options: [String])] = {
        var table: [(path: [String], options: [String])] = [([], []), (["nonsense"], []), (["help"], [])]
        func walk(_ type: any ParsableCommand.Type, _ path: [String]) {
            let help = SuiteCommand.helpMessage(for: type, includeHidden: false, columns: 10_000)
            let options = help.split(whereSeparator: { " ,[]()<>=\n".contains($0) })
                .filter { $0.hasPrefix("-") && $0.count > 1 && $0.dropFirst().allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }
            // Help and version end the command before it runs: they are among the stray options.
            table.append((path, Set(options.map(String.init)).subtracting(["-h", "--help", "--version"]).sorted()))
            for subcommand in type.configuration.subcommands {
                walk(subcommand, path + [subcommand.configuration.commandName ?? "\(subcommand)".lowercased()])
            }
        }
        walk(SuiteCommand.self, [])
        return table
    }()

    /// Options any command might be given by mistake.
    static let strayOptions = ["--", "-", "--no-such-option", "-x", "--json", "--store-dir", "--help", "--version"]

    /// Numbers at and beyond every edge.
    static let numbers = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "99999999999999999999", "18446744073709551616",
        "1e300", "-1e300", "1e-300", "nan", "-nan", "NaN", "inf", "-inf", "infinity", "0", "-0", "+0", "-1", "1", "2", "3", "7", "64",
        "1000", "0x10", "1.5", "4.9e-324", "1.7976931348623157e308", "2147483648", "4294967296", "1000001", "10001", "241", "501", "101",
    ]

    /// Hostile and ordinary values.
    static let values = [
        "", " ", "\u{0}", "\u{1B}[2J", "\u{1B}]0;x\u{7}", "\r\n", "\r",
        "\n", "\t", "\u{7F}", "\u{85}", "\u{FFFD}", "\u{FEFF}", "\u{202E}", "\u{2028}", "\u{FFFF}", "😀", "'", "\"", "\\", "%", "%n%s",
        "$HOME", "${IFS}", ";", "*", "-", "--", "#1", "#0", "#-1", "1,1", "91,181", "-90,-180", "nan,nan", "inf,0", "1e300,1e300",
        "52.52,13.40", "52.5200,13.4050", "1.5km", "1e300km", "-1m", "nanm", "0m", "20100km", "infmi", "2026-02-30", "2026-11-23",
        "9999-12-31", "0000-01-01", "0001-01-01", "2026-11-23T09:00:00Z", "2026-11-23T09:00", "275760-01-01T00:00:00Z",
        "+999999-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "1d", "12h", "30m", "1w", "9999999999999999999w",
        "-1d", "0d", "1e300d", "1,2", "1-3", "0-0", "1-9223372036854775807", "3-1", "1--2", ",", "09:00", "09:00,13:30", "25:00",
        "24:00", "96 between 00:00-23:59 jitter 180", "1000000 between 09:00-10:00", "3 between 09:00-21:00 jitter 99999999999999999999",
        "9223372036854775807 between 09:00-10:00", "mon-fri", "all", "weekends", "sun-mon", "22:00-07:00", "00:00-00:00", "UTC",
        "Mars/Base", "Europe/Berlin", "Pacific/Kiritimati", "latest", "skip", "json", "csv", "fortune", "geojson", "ics", "taskwarrior",
        "todotxt", "markdown", "html", "text", "canvas", "osm", "yelp", "coffee-shop", "library", "other", "wifi=4", "wifi=4,outlets=3",
        "wifi=99999999999999999999", "noise=-1", "=", "red", "blue", "vp", "cn", "value-proposition", "Value Proposition", "11", "0",
        "Acme", "Acme Bakery", "come home", "go to Eastern branch", "before", "after", "none", "out.txt", "out.json", "in.json",
        "missing.txt", "store2", "~", "~/x", "person", "book", "assumption", "validated", "drinks", "love", "imag*", "\"to be\"", "NEAR(",
        "AND", "OR NOT", "a*b*c*", "\"", "^", "(", ")", "x:y", "🏦", "about-to", "distance", "score",
        String(repeating: "9", count: 400), String(repeating: "w ", count: 300), String(repeating: "é", count: 2000),
    ]

    /// The store folder, the working folder and the environment, prepared once.
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-fuzz-cli-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, value) in [
            ("HOME", folder.path), ("SUITE_HOME", folder.appendingPathComponent("store").path),
            ("XDG_CONFIG_HOME", folder.appendingPathComponent("config").path), ("PATH", "/nonexistent"),
            ("EDITOR", "/bin/false"), ("VISUAL", "/bin/false"), ("TZ", "Europe/Berlin"),
            ("SUITE_OVERPASS_URL", "http://127.0.0.1:9"), ("SUITE_YELP_URL", "http://127.0.0.1:9"), ("SUITE_NOMINATIM_URL", "http://127.0.0.1:9"),
        ] { setenv(name, value, 1) }
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_DATA_HOME", "SUITE_NO_FAST_PATH",
                     "SUITE_TEST_UNSAFE_EARLY_ACK", "YELP_API_KEY"] { unsetenv(name) }
        // Nothing to read from a terminal, nothing to print: standard input and output are /dev/null.
        let null = open("/dev/null", O_RDWR)
        dup2(null, 0)
        dup2(null, 1)
        return folder
    }()

    static let verbose = ProcessInfo.processInfo.environment["SUITE_FUZZ_VERBOSE"] != nil
    /// libFuzzer's own working folder (its corpus paths are relative to it).
    static let home = FileManager.default.currentDirectoryPath
    static let null = open("/dev/null", O_WRONLY)
    static let savedStderr = dup(2)
    nonisolated(unsafe) static var runs = 0

    static func run(_ data: Data) {
        _ = (folder, savedStderr, home)  // before any redirection: the real stderr and folder
        if runs % 2000 == 0 { reset() }
        runs += 1
        let arguments = Self.arguments(Array(data))
        if verbose { FileHandle.standardError.write(Data("suite-fuzz cli: \(arguments.map { "'\($0)'" }.joined(separator: " "))\n".utf8)) }
        // The commands' own stderr lines are expected: hidden, unless asked for (Fuzz/run shows
        // them when it replays a crash).
        if !verbose { fflush(nil); dup2(null, 2) }
        _ = call(arguments)
        if !verbose { fflush(nil); dup2(savedStderr, 2) }
    }

    /// A fresh store with a little of everything, so that commands find things to work on.
    static func reset() {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("store"))
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where file != "store" {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(file))
        }
        if !verbose { fflush(nil); dup2(null, 2) }
        for command in [
            ["quotes", "starter"], ["quotes", "fav", "1"], ["quotes", "note", "2", "note"], ["quotes", "schedule", "set", "09:00,13:30"],
            ["bundle", "add", "Water the plant", "--when", "come home"], ["bundle", "add", "Pay", "--before", "go to Eastern branch", "--deadline", "2026-12-01"],
            ["bundle", "checkin", "come home", "--about-to", "--all"],
            ["bmm", "new", "Acme"], ["bmm", "set", "vp", "--text", "Fresh bread"],
            ["places", "add", "--name", "Reading room", "--at", "52.5163,13.3777", "--type", "library"], ["places", "location", "set", "52.52,13.40"],
        ] { _ = call(command) }
        let document = """
            {"schema": "suite-bundle/1", "events": [], "bundles": [], "todos": [{"uuid": "D127DB1D-4DB8-4E8D-866F-56CD2AD109C9", \
            "text": "x", "preposition": "none", "status": "pending", "notes": "", "createdAt": 0, "modifiedAt": 0}]}
            """
        try? Data(document.utf8).write(to: folder.appendingPathComponent("in.json"))
        if !verbose { fflush(nil); dup2(savedStderr, 2) }
    }

    /// Runs `suite` in process as the executable does (the fast path, else ArgumentParser), in
    /// the fuzzer's private folder: relative paths (`-o out.txt`, `--store-dir x`) land there.
    static func call(_ arguments: [String]) -> Int32 {
        _ = home
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(home) }
        if let status = SuiteMain.runFast(arguments, context: .process) { return status }
        final class Box: @unchecked Sendable { var status: Int32 = 0 }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            box.status = await SuiteMain.run(arguments, context: .process)
            done.signal()
        }
        done.wait()
        return box.status
    }

    /// The argument vector the bytes spell: a command path, then its options with values,
    /// stray options and raw words. One byte per choice, so that a mutation of one byte changes
    /// one choice. An input starting with 0xFF is a literal command line instead, its words
    /// separated by NUL bytes (for seeds and for replaying a finding by hand).
    static func arguments(_ bytes: [UInt8]) -> [String] {
        if bytes.first == 0xFF {
            return bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { confined(String(decoding: $0, as: UTF8.self)) }
        }
        var reader = bytes[...]
        func next() -> Int { Int(reader.popFirst() ?? 0) }
        guard !reader.isEmpty else { return [] }
        let command = commands[next() % commands.count]
        var words = command.path
        while !reader.isEmpty, words.count < 24 {
            let choice = next()
            switch choice % 10 {
            case 0, 1, 2, 3:
                // One of this command's options, with a number (or, when it is a flag, a stray word).
                guard !command.options.isEmpty else { fallthrough }
                words.append(command.options[next() % command.options.count])
                words.append(choice & 0x10 == 0 ? numbers[next() % numbers.count] : values[next() % values.count])
            case 4, 5:
                guard !command.options.isEmpty else { fallthrough }
                let option = command.options[next() % command.options.count]
                words.append(option.hasPrefix("--") ? option + "=" + numbers[next() % numbers.count] : option)
            case 6: words.append(values[next() % values.count])
            case 7: words.append(numbers[next() % numbers.count])
            case 8: words.append(strayOptions[next() % strayOptions.count])
            default:
                // Raw bytes (invalid UTF-8 arrives repaired, as CommandLine.arguments does it).
                let count = next() % 32
                var raw: [UInt8] = []
                while raw.count < count, let byte = reader.popFirst() { raw.append(byte) }
                words.append(confined(String(decoding: raw, as: UTF8.self)))
            }
        }
        return words
    }

    /// Keeps a raw word from naming a path outside the fuzzer's folder.
    static func confined(_ word: String) -> String {
        var word = word.replacingOccurrences(of: "..", with: "._")
        if word.hasPrefix("/") { word = "x" + word }
        return word
    }
}
