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
                terminal it asks which to bundle; otherwise choose with --pick (the todos' numbers, \
                #12 as the list shows them) or --all. Without a choice and without a terminal it only \
                lists. Todos already in an open bundle of this check-in stay in the list, marked; they \
                cannot be picked again.

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
        @Option(parsing: .unconditional, help: ArgumentHelp("The offered todos to bundle, by their numbers (#1 in the list): 1,3 or 2-4.", valueName: "list")) var pick: String?
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
            // The listing keeps the todos already in an open bundle of this check-in, marked; only
            // the others can be picked. Todos are picked by their numbers (#12), as everywhere.
            let (found, listed) = try store.checkInListing(event: event, direction: direction, timeZone: Bundles.timeZone)
            let open = listed.filter { $0.status != .inBundle }.map(\.id)
            var chosen: [Todo.ID]?
            if all {
                chosen = open
            } else if let pick {
                chosen = try parsePick(pick, listed: listed)
            }
            if chosen == nil && !options.json {
                print("\(Bundles.saying(direction)) \(found.name). Choose the ones to put in this bundle:")
                if open.isEmpty { print("  (nothing \(listed.isEmpty ? "" : "more ")to do for this check-in)") }
                let now = Date()
                for todo in listed {
                    let mark = todo.status == .inBundle ? "(in bundle #\(todo.bundleID.map(String.init) ?? "?")) " : ""
                    print("  \(mark)\(Bundles.line(todo, now: now))")
                }
                guard Terminal.stdinIsTerminal, !open.isEmpty else { return }
                Terminal.write(Data("Todo numbers (e.g. \(open.prefix(2).map(String.init(describing:)).joined(separator: ","))), 'all', or empty to cancel: ".utf8))
                let answer = (try LineReader().next() ?? "").trimmingCharacters(in: .whitespaces)
                if answer.isEmpty { print("Nothing bundled."); return }
                chosen = answer.lowercased() == "all" ? open : try parsePick(answer, listed: listed)
            }
            guard let chosen else {
                try Terminal.printJSON(Offer(event: found.name, direction: direction.rawValue, todos: listed))
                return
            }
            if let taken = listed.first(where: { $0.status == .inBundle && chosen.contains($0.id) }) {
                throw CLIError.failed("todo #\(taken.id) is already in bundle #\(taken.bundleID.map(String.init) ?? "?"); pick from the unmarked ones")
            }
            guard !chosen.isEmpty else { throw CLIError.failed("nothing is offered when \(Bundles.saying(direction, person: "you")) \(found.name)") }
            // The core refuses a todo this check-in does not offer, and says why.
            let bundle = try store.checkIn(event: found.name, direction: direction, todoIDs: chosen,
                                           title: title, icon: icon, timeZone: Bundles.timeZone)
            if options.json { try Terminal.printJSON(bundle) } else { print(Bundles.describe(bundle)) }
        }

        /// "1,3" or "#1 #3" (todo numbers, as the listing shows them) or "2-4" (the listed todos
        /// numbered 2 to 4) → todo ids, in the order given.
        static func parsePick(_ text: String, listed: [Todo]) throws -> [Todo.ID] {
            func number(_ part: Substring) -> Int64? {
                guard let value = Int64(part.hasPrefix("#") ? part.dropFirst() : part), value >= 1 else { return nil }
                return value
            }
            var result: [Todo.ID] = []
            for part in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
                let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                guard let first = bounds.first, let low = number(first), let high = bounds.count == 2 ? number(bounds[1]) : low, high >= low else {
                    throw CLIError.usage("invalid --pick '\(VisibleText.visible(text, oneLine: true))': use todo numbers from the list, like 1,3 or 2-4")
                }
                let ids = bounds.count == 2
                    ? listed.map(\.id).filter { (low...high).contains($0.rawValue) }
                    : [Todo.ID(low)]
                guard !ids.isEmpty else { throw CLIError.usage("--pick \(part) takes no todo of the list") }
                for id in ids where !result.contains(id) { result.append(id) }
            }
            if result.isEmpty { throw CLIError.usage("invalid --pick '\(VisibleText.visible(text, oneLine: true))': use todo numbers from the list, like 1,3") }
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
                // Said plainly: it was in no open bundle, so no bundle records it.
                if options.json { try Terminal.printJSON(done) } else { print("Done: #\(done.id) '\(done.text)' (not in a bundle)") }
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
