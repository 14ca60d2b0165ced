import ArgumentParser
import BundleCore
import Foundation

enum Review {
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Bundles.timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }
}

extension BundleCommand {
    struct ReviewBundles: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "review",
            abstract: "Finished bundles in chronological order, filed by day (or by event).",
            discussion: "Examples:\n  suite bundle review --since 2026-11-01\n  suite bundle review --by-event")

        @OptionGroup var options: CommonOptions
        @Option(help: ArgumentHelp("Only this event's bundles.", valueName: "event")) var event: String?
        @Option(help: ArgumentHelp("From this day (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM).", valueName: "when")) var since: String?
        @Option(help: ArgumentHelp("Before this day (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM).", valueName: "when")) var until: String?
        @Flag(help: "File the bundles under their events instead of their days.") var byEvent = false

        func run() throws {
            let from = try since.map { try Bundles.day($0, option: "--since") }
            let to = try until.map { try Bundles.day($0, option: "--until") }
            let bundles = try Bundles.open(options, readOnly: true).review(event: event, from: from, to: to)
            if options.json { try Terminal.printJSON(bundles); return }
            if bundles.isEmpty { print("No finished bundles yet."); return }
            let groups = Dictionary(grouping: bundles) { byEvent ? $0.eventName : Review.day($0.finishedAt ?? $0.createdAt) }
            let order = bundles.map { byEvent ? $0.eventName : Review.day($0.finishedAt ?? $0.createdAt) }
            var seen: Set<String> = []
            for key in order where seen.insert(key).inserted {
                print(key)
                for bundle in groups[key] ?? [] {
                    let done = bundle.items.filter { $0.outcome == .done }.count
                    let label = byEvent ? Review.day(bundle.finishedAt ?? bundle.createdAt) : bundle.eventName
                    print("  \(bundle.icon) \(bundle.title) (#\(bundle.id), \(label)): \(done) of \(bundle.items.count) done")
                }
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export todos as Taskwarrior JSON, iCalendar VTODO, todo.txt, or Suite JSON.",
            discussion: """
                Suite JSON (the default) keeps everything (events, aliases, bundles); the others carry \
                each todo with its event, preposition, deadline, status and bundle as the README describes.

                Examples:
                  suite bundle export -o backup.json
                  suite bundle export --format ics -o todos.ics
                  suite bundle export --format taskwarrior | task import
                """)

        @OptionGroup var options: TextOptions
        @Option(help: ArgumentHelp("json (the default), taskwarrior, ics or todotxt.", valueName: "format")) var format: InterchangeFormat = .json
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout ('-' is stdout; a device or FIFO is written into, never replaced).", valueName: "file"))
        var output: String?

        func run() throws {
            // Written as read from the store, todo by todo: memory stays flat at any size.
            let store = try Bundles.open(options, readOnly: true)
            try Terminal.stream(to: output) { emit in try store.export(format, timeZone: Bundles.timeZone, to: emit) }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import todos (all or nothing; matched by id, so importing again updates).",
            discussion: """
                The format is taken from --format, else from the file: .ics is iCalendar, .txt is \
                todo.txt, JSON with "schema": "suite-bundle/1" is Suite JSON, other JSON is Taskwarrior.

                Examples:
                  task export | suite bundle import - --format taskwarrior
                  suite bundle import todo.txt
                """)

        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The file ('-' for standard input).", valueName: "file")) var file: String
        @Option(help: ArgumentHelp("taskwarrior, ics, todotxt or json.", valueName: "format")) var format: InterchangeFormat?

        func run() throws {
            // A regular file is read as it is imported (memory stays flat at any size); standard
            // input and pipes are read whole first.
            let streamed: Set<InterchangeFormat> = [.ics, .todotxt, .taskwarrior, .json]
            let regular = try file != "-" && InputFile.isRegularFile(file)
            var data: Data?
            if !regular || format.map({ !streamed.contains($0) }) == true {
                data = file == "-" ? (try Terminal.readStandardInput()) : try Terminal.readFile(file)
            }
            let head = try data ?? InputFile.head(file, count: 4096)
            guard let chosen = format ?? InterchangeFormat.detect(name: file, head: head) else {
                throw CLIError.usage("cannot tell the format of \(file): give --format taskwarrior, ics, todotxt or json")
            }
            if data == nil && !streamed.contains(chosen) { data = try Terminal.readFile(file) }
            let store = try Bundles.open(options)
            let summary: ImportSummary
            do {
                if let data {
                    summary = try store.importData(data, format: chosen, timeZone: Bundles.timeZone)
                } else {
                    summary = try store.importFile(at: URL(fileURLWithPath: file), format: chosen, timeZone: Bundles.timeZone)
                }
            } catch {
                if case .malformedImport(let format, let line, let reason) = error {
                    throw CLIError.badInput("\(file)\(line.map { ":\($0)" } ?? ""): malformed \(format): \(reason); nothing was imported")
                }
                throw error
            }
            if !summary.dropped.isEmpty {
                Terminal.printError("suite: warning: not imported, as Suite has no place for them: \(summary.dropped.joined(separator: ", "))")
            }
            if options.json { try Terminal.printJSON(summary); return }
            print("Imported \(summary.created) new and \(summary.updated) updated todo\(summary.created + summary.updated == 1 ? "" : "s") ("
                  + (summary.unchanged > 0 ? "\(summary.unchanged) unchanged, " : "")
                  + "\(summary.eventsCreated) new event\(summary.eventsCreated == 1 ? "" : "s"), \(summary.bundles) bundle\(summary.bundles == 1 ? "" : "s")).")
        }
    }
}
