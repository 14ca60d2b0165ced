import ArgumentParser
import BundleCore
import Foundation

extension BundleCommand {
    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events",
            abstract: "List and manage trigger events.",
            discussion: "Example:\n  suite bundle events\n  suite bundle events rename \"go to eastern\" \"go to Eastern branch\"",
            subcommands: [List.self, Add.self, Rename.self, Alias.self, Merge.self, Archive.self, Unarchive.self],
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
