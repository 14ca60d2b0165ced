import ArgumentParser
import BundleCore
import Foundation

extension BundleCommand {
    struct CheckIn: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "checkin",
            abstract: "Check in: \"I'm about to …\" or \"I just finished …\", and bundle the todos to do now.",
            discussion: """
                Lists the todos this check-in offers (overdue and soonest deadline first). On a \
                terminal it asks which to bundle; otherwise choose with --pick (the numbers on the \
                left of the list) or --all. Without a choice and without a terminal it only lists. \
                Todos already in an open bundle of this check-in stay in the list, marked, so the \
                numbers do not shift; they cannot be picked again.

                Examples:
                  suite bundle checkin "go to Eastern branch" --about-to
                  suite bundle checkin "go to Eastern branch" --about-to --pick 1,3 --title "Eastern run" --icon 🏦
                  suite bundle checkin "come back from work" --just-finished --all
                  suite bundle checkin "go to the gym" --about-to --routine "Gym bag"
                """)

        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The event.", valueName: "event")) var event: String
        @Flag(name: .customLong(.aboutTo), help: "I'm about to do it.") var aboutTo = false
        @Flag(name: .customLong(.justFinished), help: "I just finished it.") var justFinished = false
        @Option(parsing: .unconditional, help: ArgumentHelp("The offered todos to bundle, by their numbers in the list: 1,3.", valueName: "list")) var pick: String?
        @Flag(help: "Bundle every offered todo.") var all = false
        @Option(help: ArgumentHelp("The bundle's title.", valueName: "title")) var title: String?
        @Option(help: ArgumentHelp("An emoji or short symbol.", valueName: "icon")) var icon: String?
        @Option(help: ArgumentHelp("Bring a saved routine's own todos back (reopening done ones) and bundle them ('suite bundle routine').", valueName: "name"))
        var routine: String?

        func validate() throws {
            if aboutTo == justFinished { throw ValidationError("say --about-to or --just-finished") }
            if pick != nil && all { throw ValidationError("give --pick or --all, not both") }
            if routine != nil && (pick != nil || all) { throw ValidationError("give --routine or --pick/--all, not both") }
        }

        struct Offer: Encodable {
            let event: String
            let direction: String
            let todos: [Todo]
        }

        func run() throws {
            if let routine {
                let bundle = try Bundles.open(options).checkIn(event: event, direction: aboutTo ? .aboutTo : .justFinished, routine: routine,
                                                               title: title, icon: icon, timeZone: Bundles.timeZone)
                if options.json { try Terminal.printJSON(bundle) } else { print(Bundles.describe(bundle)) }
                return
            }
            try Self.run(options.plain, event: event, aboutTo: aboutTo, pick: pick, all: all, title: title, icon: icon)
        }

        static func run(_ options: PlainStoreOptions, event: String, aboutTo: Bool, pick: String?, all: Bool, title: String?, icon: String?) throws {
            let direction: CheckInDirection = aboutTo ? .aboutTo : .justFinished
            // Only listing (nothing picked and no terminal to ask on) reads without writing.
            let store = try Bundles.open(options, readOnly: !all && pick == nil && (options.json || !Terminal.stdinIsTerminal))
            // The listing keeps the todos already in an open bundle of this check-in, marked, so the
            // numbers stay those of the first listing; only the others can be picked.
            let (found, listed) = try store.checkInListing(event: event, direction: direction, timeZone: Bundles.timeZone)
            let open = listed.indices.filter { listed[$0].status != .inBundle }
            var positions: [Int]?
            if all {
                positions = open
            } else if let pick {
                positions = try parsePick(pick, count: listed.count)
            }
            if positions == nil && !options.json {
                print("I'm \(direction.phrase) \(found.name). Choose the ones to put in this bundle:")
                if open.isEmpty { print("  (nothing \(listed.isEmpty ? "" : "more ")to do for this check-in)") }
                let now = Date()
                for (index, todo) in listed.enumerated() {
                    let mark = todo.status == .inBundle ? "(in bundle #\(todo.bundleID.map(String.init) ?? "?")) " : ""
                    print("  \(String(index + 1).leftPadded(2)). \(mark)\(Bundles.line(todo, now: now))")
                }
                guard Terminal.stdinIsTerminal, !open.isEmpty else { return }
                Terminal.write(Data("Numbers (e.g. 1,3), 'all', or empty to cancel: ".utf8))
                let answer = (try LineReader().next() ?? "").trimmingCharacters(in: .whitespaces)
                if answer.isEmpty { print("Nothing bundled."); return }
                positions = answer.lowercased() == "all" ? open : try parsePick(answer, count: listed.count)
            }
            guard let positions else {
                try Terminal.printJSON(Offer(event: found.name, direction: direction.rawValue, todos: listed))
                return
            }
            if let taken = positions.first(where: { listed[$0].status == .inBundle }) {
                let todo = listed[taken]
                throw CLIError.failed("\(taken + 1) (todo #\(todo.id)) is already in bundle #\(todo.bundleID.map(String.init) ?? "?"); pick from the unmarked ones")
            }
            guard !positions.isEmpty else { throw CLIError.failed("nothing is offered when you are \(direction.phrase) \(found.name)") }
            let bundle = try store.checkIn(event: found.name, direction: direction, todoIDs: positions.map { listed[$0].id },
                                           title: title, icon: icon, timeZone: Bundles.timeZone)
            if options.json { try Terminal.printJSON(bundle) } else { print(Bundles.describe(bundle)) }
        }

        /// "1,3" or "1 3" or "2-4" → zero-based positions.
        static func parsePick(_ text: String, count: Int) throws -> [Int] {
            var result: [Int] = []
            for part in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
                let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                guard let first = bounds.first, let low = Int(first), let high = bounds.count == 2 ? Int(bounds[1]) : low, low >= 1, high >= low else {
                    throw CLIError.usage("invalid --pick '\(text)': use numbers from the list, like 1,3 or 2-4")
                }
                guard high <= count else {
                    throw CLIError.usage("--pick \(high) is out of range: the check-in offers \(count) todo\(count == 1 ? "" : "s")")
                }
                for number in low...high where !result.contains(number - 1) { result.append(number - 1) }
            }
            if result.isEmpty { throw CLIError.usage("invalid --pick '\(text)': use numbers from the list, like 1,3") }
            return result
        }
    }

    struct Current: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "current", abstract: "The open bundle you are working through.",
            discussion: "Example:\n  suite bundle current")
        @OptionGroup var options: CommonOptions

        func run() throws {
            let bundle = try Bundles.open(options, readOnly: true).currentBundle()
            if options.json { try Terminal.printJSON(bundle) } else { print(Bundles.describe(bundle)) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One bundle (the current one by default).",
            discussion: "Example:\n  suite bundle show 3")
        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The bundle's number.", valueName: "bundle")) var reference: String?

        func run() throws {
            let store = try Bundles.open(options, readOnly: true)
            let bundle = try reference.map { try Bundles.bundle($0, in: store) } ?? store.currentBundle()
            if options.json { try Terminal.printJSON(bundle) } else { print(Bundles.describe(bundle)) }
        }
    }
}

/// The shape shared by the commands that change one todo of the open bundle.
protocol BundleItemCommand: ParsableCommand {
    var options: CommonOptions { get }
    var selection: BundleSelection { get }
    var id: String { get }
    func apply(_ store: BundleStore, _ bundle: TodoBundle) throws -> TodoBundle
}

extension BundleItemCommand {
    func run() throws {
        let store = try Bundles.open(options)
        let updated = try apply(store, try selection.bundle(in: store))
        if options.json { try Terminal.printJSON(updated) } else { print(Bundles.describe(updated)) }
    }
}

extension BundleCommand {
    struct Done: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "done", abstract: "Mark a todo done (in the open bundle, or a loose pending one).",
            discussion: "Example:\n  suite bundle done 12")
        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: BundleSelection
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "id")) var id: String

        func run() throws {
            let store = try Bundles.open(options)
            let todo = try Bundles.todo(id, in: store)
            let chosen = try selection.reference.map { try Bundles.bundle($0, in: store).id }
            // The core decides: done in its bundle, or (a loose pending todo) done on its own.
            let (done, bundle) = try store.markDone(todo.id, bundle: chosen)
            if let bundle {
                if options.json { try Terminal.printJSON(bundle) } else { print(Bundles.describe(bundle)) }
            } else {
                if options.json { try Terminal.printJSON(done) } else { print("Done: \(Bundles.line(done))") }
            }
        }
    }

    struct ThrowBack: BundleItemCommand {
        static let configuration = CommandConfiguration(
            commandName: "throwback", abstract: "Throw a todo of the open bundle back into the pile.",
            discussion: "Example:\n  suite bundle throwback 12")
        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: BundleSelection
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "id")) var id: String
        func apply(_ store: BundleStore, _ bundle: TodoBundle) throws -> TodoBundle { try store.throwBack(Bundles.todo(id, in: store).id, in: bundle.id) }
    }

    struct Pull: BundleItemCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull", abstract: "Pull another pending todo of the same event into the open bundle.",
            discussion: "Example:\n  suite bundle pull 14")
        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: BundleSelection
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "id")) var id: String
        func apply(_ store: BundleStore, _ bundle: TodoBundle) throws -> TodoBundle { try store.pull(Bundles.todo(id, in: store).id, into: bundle.id) }
    }

    struct Rename: BundleItemCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename", abstract: "Retitle the open bundle.",
            discussion: "Example:\n  suite bundle rename \"Eastern branch run\"")
        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: BundleSelection
        @Argument(help: ArgumentHelp("The new title.", valueName: "title")) var id: String
        func apply(_ store: BundleStore, _ bundle: TodoBundle) throws -> TodoBundle { try store.renameBundle(bundle.id, to: id) }
    }

    struct Icon: BundleItemCommand {
        static let configuration = CommandConfiguration(
            commandName: "icon", abstract: "Change the open bundle's icon.",
            discussion: "Example:\n  suite bundle icon 🏦")
        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: BundleSelection
        @Argument(help: ArgumentHelp("An emoji or a short symbol.", valueName: "icon")) var id: String
        func apply(_ store: BundleStore, _ bundle: TodoBundle) throws -> TodoBundle { try store.setIcon(bundle.id, to: id) }
    }

    struct Complete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "complete", abstract: "Complete the open bundle (every todo done or thrown back).",
            discussion: "Example:\n  suite bundle complete")
        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: BundleSelection

        func run() throws {
            let store = try Bundles.open(options)
            let bundle = try store.complete(try selection.bundle(in: store).id)
            if options.json { try Terminal.printJSON(bundle); return }
            print("Completed \(bundle.icon) \(bundle.title): filed under \(Review.day(bundle.finishedAt ?? Date())) and '\(bundle.eventName)'.")
        }
    }

    struct Abandon: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "abandon", abstract: "Abandon the open bundle; unfinished todos go back to the pile.",
            discussion: "Example:\n  suite bundle abandon")
        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: BundleSelection

        func run() throws {
            let store = try Bundles.open(options)
            let bundle = try store.abandon(try selection.bundle(in: store).id)
            if options.json { try Terminal.printJSON(bundle); return }
            let back = bundle.items.filter { $0.outcome == .thrownBack }.count
            print("Abandoned \(bundle.title); \(back) todo\(back == 1 ? "" : "s") back in the pile.")
        }
    }
}

extension BundleCommand {
    struct RoutineGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "routine",
            abstract: "Reusable routines: save a bundle's todos, and bring them back at a check-in with --routine.",
            discussion: """
                Examples:
                  suite bundle routine save "Gym bag" --bundle 3
                  suite bundle routine list
                  suite bundle checkin "go to the gym" --about-to --routine "Gym bag"
                """,
            subcommands: [Save.self, List.self, Remove.self],
            defaultSubcommand: List.self)

        struct Save: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "save", abstract: "Save a bundle's todos as a routine.",
                                                            discussion: "Example:\n  suite bundle routine save \"Gym bag\" --bundle 3")
            @OptionGroup var options: CommonOptions
            @Argument(help: ArgumentHelp("The routine's name.", valueName: "name")) var name: String
            @Option(parsing: .unconditional, help: ArgumentHelp("The bundle's number.", valueName: "id"), transform: NumberOption.int(1...Int.max, "--bundle"))
            var bundle: Int

            func run() throws {
                let routine = try Bundles.open(options).saveRoutine(named: name, fromBundle: TodoBundle.ID(Int64(bundle)))
                if options.json { try Terminal.printJSON(routine); return }
                print("Saved routine '\(routine.name)' with \(routine.items.count) todo\(routine.items.count == 1 ? "" : "s").")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "The routines with their todos.",
                                                            discussion: "Example:\n  suite bundle routine list --json")
            @OptionGroup var options: CommonOptions

            func run() throws {
                let routines = try Bundles.open(options, readOnly: true).routines()
                if options.json { try Terminal.printJSON(routines); return }
                if routines.isEmpty { print("No routines yet: 'suite bundle routine save NAME --bundle ID'."); return }
                for routine in routines {
                    print("\(routine.icon) \(routine.name): \(routine.items.count) todo\(routine.items.count == 1 ? "" : "s")")
                    for item in routine.items { print("  - \(item.text)") }
                }
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a routine (bundles made from it stay).",
                                                            discussion: "Example:\n  suite bundle routine remove \"Gym bag\"")
            @OptionGroup var options: TextOptions
            @Argument(help: ArgumentHelp("The routine's name.", valueName: "name")) var name: String

            func run() throws {
                let routine = try Bundles.open(options).removeRoutine(named: name)
                print("Removed routine '\(routine.name)'.")
            }
        }
    }
}
