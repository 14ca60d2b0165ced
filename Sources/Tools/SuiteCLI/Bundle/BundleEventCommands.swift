import ArgumentParser
import BundleCore
import Foundation
import SuiteEnvironment

extension BundleCommand {
    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events",
            abstract: "List and manage trigger events.",
            discussion: "Example:\n  suite bundle events\n  suite bundle events rename \"go to eastern\" \"go to Eastern branch\"\n  suite bundle events import calendar.ics",
            subcommands: [List.self, Add.self, Rename.self, Alias.self, Merge.self, Archive.self, Unarchive.self, ImportCalendar.self],
            defaultSubcommand: List.self)

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "Events with their pending todos and check-ins.",
                discussion: "Example:\n  suite bundle events list --archived")
            @OptionGroup var options: CommonOptions
            @Flag(help: "Include archived events.") var archived = false

            func run() throws {
                let activity = try Bundles.open(options, readOnly: true).activity(includeArchived: archived)
                if options.json { try Terminal.printJSON(activity); return }
                if activity.isEmpty { print("No trigger events yet. Add a todo with --before/--after/--when EVENT."); return }
                for item in activity {
                    let aliases = item.event.aliases.isEmpty ? "" : " (also: \(item.event.aliases.joined(separator: ", ")))"
                    let last = item.lastCheckIn.map { ", last \(Review.day($0))" } ?? ""
                    print("\(item.event.name)\(aliases)\(item.event.isArchived ? " [archived]" : ""): \(item.pendingTodos) pending, \(item.checkIns) check-in\(item.checkIns == 1 ? "" : "s")\(last)")
                }
            }
        }

        struct ImportCalendar: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "import",
                abstract: "Read a calendar's events (.ics) as trigger events with their times for the next 30 days.",
                discussion: """
                    Any calendar export works (GNOME, Thunderbird, Google, Apple, Outlook): each event's \
                    summary becomes a trigger event (an existing one when it matches), its times are \
                    kept — with their time zone, floating (read in --tz) or all day — and repeating \
                    events (RRULE, EXDATE, moved instances) are expanded for the next 30 days. \
                    Importing again replaces the times. Then 'suite bundle upcoming' lists what is \
                    coming and 'suite bundle remind' reminds you before a timed event.

                    Example:
                      suite bundle events import ~/calendar.ics
                    """)
            @OptionGroup var options: CommonOptions
            @Argument(help: ArgumentHelp("The .ics file ('-' for standard input).", valueName: "file")) var file: String
            @Option(help: ArgumentHelp("The IANA time zone floating times are in (default: this machine's).", valueName: "zone")) var tz: String?

            func run() throws {
                let zone: TimeZone
                if let tz {
                    guard let known = TimeZone(identifier: tz) else { throw CLIError.usage("unknown time zone '\(VisibleText.visible(tz, oneLine: true))' (use an IANA name like Europe/Berlin)") }
                    zone = known
                } else {
                    zone = Bundles.timeZone
                }
                let data = file == "-" ? try Terminal.readStandardInput() : try Terminal.readFile(file)
                let summary = try Bundles.open(options).importCalendarEvents(data, timeZone: zone)
                if options.json { try Terminal.printJSON(summary); return }
                print("Read \(summary.events) calendar event\(summary.events == 1 ? "" : "s"): \(summary.times) time\(summary.times == 1 ? "" : "s") in the next 30 days, "
                      + "\(summary.eventsCreated) new trigger event\(summary.eventsCreated == 1 ? "" : "s").")
                for note in summary.notes { Terminal.printError("suite: note: \(note)") }
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Create an event.",
                                                            discussion: "Example:\n  suite bundle events add \"go to the bank\"")
            @OptionGroup var options: TextOptions
            @Argument(help: ArgumentHelp("The event phrase.", valueName: "phrase")) var phrase: String
            func run() throws { print("Added event '\(try Bundles.open(options).addEvent(phrase).name)'.") }
        }

        struct Rename: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename an event; the old phrase stays as an alias.",
                                                            discussion: "Example:\n  suite bundle events rename \"bank\" \"go to the bank\"")
            @OptionGroup var options: TextOptions
            @Argument(help: ArgumentHelp("The event.", valueName: "event")) var event: String
            @Argument(help: ArgumentHelp("The new phrase.", valueName: "new-phrase")) var newName: String
            func run() throws { print("Renamed to '\(try Bundles.open(options).renameEvent(event, to: newName).name)'.") }
        }

        struct Alias: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "alias", abstract: "Add another phrase for an event.",
                                                            discussion: "Example:\n  suite bundle events alias \"go to the bank\" \"bank run\"")
            @OptionGroup var options: TextOptions
            @Argument(help: ArgumentHelp("The event.", valueName: "event")) var event: String
            @Argument(help: ArgumentHelp("The other phrase.", valueName: "alias")) var alias: String
            func run() throws {
                let event = try Bundles.open(options).addAlias(alias, to: event)
                print("'\(alias)' now means '\(event.name)'.")
            }
        }

        struct Merge: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "merge", abstract: "Merge one event into another (todos, bundles and names move).",
                                                            discussion: "Example:\n  suite bundle events merge \"bank\" \"go to the bank\"")
            @OptionGroup var options: TextOptions
            @Argument(help: ArgumentHelp("The event to merge away.", valueName: "source")) var source: String
            @Argument(help: ArgumentHelp("The event to keep.", valueName: "target")) var target: String
            func run() throws { print("Merged into '\(try Bundles.open(options).mergeEvent(source, into: target).name)'.") }
        }

        struct Archive: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "archive", abstract: "Hide an event from listings; its history stays.",
                                                            discussion: "Example:\n  suite bundle events archive \"old office\"")
            @OptionGroup var options: TextOptions
            @Argument(help: ArgumentHelp("The event.", valueName: "event")) var event: String
            func run() throws { print("Archived '\(try Bundles.open(options).archiveEvent(event).name)'.") }
        }

        struct Unarchive: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "unarchive", abstract: "Bring an archived event back.",
                                                            discussion: "Example:\n  suite bundle events unarchive \"old office\"")
            @OptionGroup var options: TextOptions
            @Argument(help: ArgumentHelp("The event.", valueName: "event")) var event: String
            func run() throws { print("Unarchived '\(try Bundles.open(options).archiveEvent(event, archived: false).name)'.") }
        }
    }
}

extension BundleCommand {
    struct Upcoming: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upcoming",
            abstract: "Calendar events coming up (see 'events import'), each with the todos tied to it.",
            discussion: "Examples:\n  suite bundle upcoming\n  suite bundle upcoming --within 1w --json")
        @OptionGroup var options: CommonOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("How far ahead: 30m, 12h, 2d, 1w.", valueName: "duration")) var within = "1d"

        func run() throws {
            let interval = try Bundles.duration(within)
            let coming = try Bundles.open(options, readOnly: true).upcoming(within: interval)
            if options.json { try Terminal.printJSON(coming); return }
            if coming.isEmpty { print("Nothing in the calendar within \(within) ('suite bundle events import FILE.ics' reads one)."); return }
            for occurrence in coming {
                let count = occurrence.todos.count
                print("\(occurrence.eventName) — \(Bundles.when(occurrence)): \(count) todo\(count == 1 ? "" : "s")")
                for todo in occurrence.todos { print("  " + Bundles.line(todo)) }
            }
        }
    }
}

extension Bundles {
    /// When an event time is, by the one rule for people (``PeopleTime``): "Tue 2026-11-25 15:00"
    /// (or "Tue 2026-11-25, all day").
    static func when(_ occurrence: EventOccurrence) -> String {
        let stamp = PeopleTime.stamp(occurrence.start, in: timeZone)
        guard occurrence.isAllDay else { return stamp }
        // The day alone: the stamp without its time (and a zone it may name).
        return String(stamp.prefix(14)) + ", all day"
    }

    /// An event reminder: "before Dentist at 15:00: 2 todos".
    static func reminder(_ occurrence: EventOccurrence) -> String {
        // Today the time is enough; another day is written by the one rule (PeopleTime).
        let stamp = PeopleTime.stamp(occurrence.start, in: timeZone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let at = calendar.isDate(occurrence.start, inSameDayAs: Date()) ? String(stamp.dropFirst(15).prefix(5)) : stamp
        let count = occurrence.todos.count
        return "before \(occurrence.eventName) at \(at): \(count) todo\(count == 1 ? "" : "s")"
    }
}
