import ArgumentParser
import BundleCore
import Foundation

extension BundleCommand {
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a todo: its text, notes or deadline (only what is given changes).",
            discussion: """
                The trigger is changed with 'suite bundle move'.

                Examples:
                  suite bundle edit 4 --text "Get the agreement signed (two copies)"
                  suite bundle edit 4 --deadline 2026-12-03T16:00
                  suite bundle edit 4 --no-deadline --notes ""
                """)

        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "id")) var id: String
        @Option(help: ArgumentHelp("The new text.", valueName: "text")) var text: String?
        @Option(help: ArgumentHelp("The new notes ('' removes them).", valueName: "text")) var notes: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("A new deadline: a day (YYYY-MM-DD) or a time (YYYY-MM-DDTHH:MM).", valueName: "when"))
        var deadline: String?
        @Flag(name: .customLong("no-deadline"), help: "Remove the deadline.") var noDeadline = false

        func validate() throws {
            if deadline != nil && noDeadline { throw ValidationError("give --deadline or --no-deadline, not both") }
            if text == nil && notes == nil && deadline == nil && !noDeadline {
                throw ValidationError("say what to change: --text, --notes, --deadline or --no-deadline")
            }
        }

        func run() throws {
            // Everything is checked before anything is written.
            let parsedDeadline = try deadline.map { try Deadline.parse($0, timeZone: Bundles.timeZone) }
            let store = try Bundles.open(options)
            var todo = try Bundles.todo(id, in: store)
            if text != nil || notes != nil { todo = try store.editTodo(todo.id, text: text, notes: notes) }
            if parsedDeadline != nil || noDeadline { todo = try store.setDeadline(todo.id, to: parsedDeadline) }
            if options.json { try Terminal.printJSON(todo) } else { print("Changed \(Bundles.line(todo))") }
        }
    }

    struct Reopen: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reopen",
            abstract: "Bring a done or dropped todo back to the pile.",
            discussion: "Example:\n  suite bundle reopen 4")

        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "id")) var id: String

        func run() throws {
            let store = try Bundles.open(options)
            let todo = try store.reopenTodo(Bundles.todo(id, in: store).id)
            if options.json { try Terminal.printJSON(todo) } else { print("Reopened \(Bundles.line(todo))") }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a todo for good ('drop' gives it up but keeps it).",
            discussion: "Asks on a terminal; otherwise needs --yes.\n\nExample:\n  suite bundle remove 4 --yes")

        @OptionGroup var options: TextOptions
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "id")) var id: String
        @Flag(name: .shortAndLong, help: "Remove without asking.") var yes = false

        func run() throws {
            let store = try Bundles.open(options)
            let todo = try Bundles.todo(id, in: store)
            try Confirmation.require("Remove todo #\(todo.id) \"\(todo.text.prefix(40))\"?", yes: yes)
            try store.removeTodo(todo.id)
            print("Removed todo #\(todo.id).")
        }
    }
}
