import ArgumentParser
import Foundation
import QuoteCore

extension QuotesCommand {
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Change a quote's text or source (only what is given changes).",
            discussion: "Example:\n  suite quotes edit 42 --source \"Mark Twain\"")

        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String
        @Option(help: ArgumentHelp("The new text.", valueName: "text")) var text: String?
        @Option(help: ArgumentHelp("Who or what said it.", valueName: "name")) var source: String?

        func validate() throws {
            if text == nil && source == nil { throw ValidationError("say what to change: --text or --source") }
        }

        func run() throws {
            let number = try Quotes.id(id)
            let quote = try options.open().editQuote(number, text: text, source: source)
            if options.json { try Terminal.printJSON(quote) } else { print(Quotes.render(quote)) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a quote with its favourites, notes and deliveries.",
            discussion: "Asks on a terminal; otherwise needs --yes.\n\nExample:\n  suite quotes remove 42 --yes")

        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String
        @Flag(name: .shortAndLong, help: "Remove without asking.") var yes = false

        func run() throws {
            let number = try Quotes.id(id)
            let store = try options.open()
            let quote = try store.quote(number)
            try Confirmation.require("Remove quote #\(quote.id) \"\(quote.text.prefix(40))\"?", yes: yes)
            try store.removeQuote(quote.id)
            print("Removed quote #\(quote.id).")
        }
    }
}
