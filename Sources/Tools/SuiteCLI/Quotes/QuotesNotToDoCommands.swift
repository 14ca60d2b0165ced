import ArgumentParser
import Foundation
import QuoteCore

extension QuotesCommand {
    struct NotToDoGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "nottodo",
            abstract: "Your not-to-do list: things to avoid, each optionally tied to a category; deliveries can remind you of one.",
            discussion: """
                'suite quotes schedule set … --nottodo' adds a reminder from this list to each delivery \\
                (one tied to the quote's category when there is one).

                Examples:
                  suite quotes nottodo add "Check e-mail before noon" --category work
                  suite quotes nottodo list
                """,
            subcommands: [Add.self, List.self, Edit.self, Remove.self],
            defaultSubcommand: List.self)

        static func line(_ item: NotToDo) -> String {
            "#\(item.id.rawValue)  \(item.text)" + (item.category.map { "  [\($0)]" } ?? "")
        }

        static func id(_ text: String) throws -> NotToDo.ID {
            guard let number = Int64(text), number > 0 else { throw CLIError.usage("'\(VisibleText.visible(text, oneLine: true))' is not a not-to-do number") }
            return NotToDo.ID(number)
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Put something to avoid on the list.",
                                                            discussion: "Example:\n  suite quotes nottodo add \"Doom-scroll in bed\" --category discipline")
            @OptionGroup var options: QuotesOptions
            @Argument(help: ArgumentHelp("What to avoid.", valueName: "text")) var text: String
            @Option(help: ArgumentHelp("The category of quotes it goes with.", valueName: "name")) var category: String?

            func run() throws {
                let item = try options.open().addNotToDo(text, category: category, user: options.userName)
                if options.json { try Terminal.printJSON(item) } else { print("Added not-to-do #\(item.id.rawValue).") }
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "The list, oldest first.",
                                                            discussion: "Example:\n  suite quotes nottodo list --json")
            @OptionGroup var options: QuotesOptions

            func run() throws {
                let items = try options.open(readOnly: true).notToDos(user: options.userName)
                if options.json { try Terminal.printJSON(items); return }
                if items.isEmpty { print("Nothing on your not-to-do list: 'suite quotes nottodo add TEXT'."); return }
                items.map(NotToDoGroup.line).forEach { print($0) }
            }
        }

        struct Edit: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a not-to-do's words or category.",
                                                            discussion: "Example:\n  suite quotes nottodo edit 2 --category focus")
            @OptionGroup var options: QuotesOptions
            @Argument(help: ArgumentHelp("Its number.", valueName: "id")) var id: String
            @Option(help: ArgumentHelp("The new words.", valueName: "text")) var text: String?
            @Option(help: ArgumentHelp("The category it goes with.", valueName: "name")) var category: String?
            @Flag(help: "Tie it to no category.") var noCategory = false

            func validate() throws {
                if text == nil && category == nil && !noCategory { throw ValidationError("say what to change: --text, --category or --no-category") }
                if category != nil && noCategory { throw ValidationError("give --category or --no-category, not both") }
            }

            func run() throws {
                let change: String?? = noCategory ? .some(nil) : category.map { .some($0) }
                let number = try NotToDoGroup.id(id)
                let item = try options.open().editNotToDo(number, text: text, category: change, user: options.userName)
                if options.json { try Terminal.printJSON(item) } else { print(NotToDoGroup.line(item)) }
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take a not-to-do off the list.",
                                                            discussion: "Example:\n  suite quotes nottodo remove 2")
            @OptionGroup var options: QuotesTextOptions
            @Argument(help: ArgumentHelp("Its number.", valueName: "id")) var id: String

            func run() throws {
                let number = try NotToDoGroup.id(id)
                let item = try options.open().removeNotToDo(number, user: options.userName)
                print("Removed not-to-do #\(item.id.rawValue).")
            }
        }
    }
}
