import ArgumentParser
import Foundation
import QuoteCore

extension QuotesCommand {
    struct Fav: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "fav", abstract: "Add a quote to your favourites.",
                                                        discussion: "Example:\n  suite quotes fav 42")
        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String

        func run() throws {
            let added = try options.open().favorite(try Quotes.id(id), user: options.userName)
            print(added ? "Added #\(id) to your favourites." : "#\(id) is already a favourite.")
        }
    }

    struct Unfav: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unfav", abstract: "Remove a quote from your favourites.",
                                                        discussion: "Example:\n  suite quotes unfav 42")
        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String

        func run() throws {
            let removed = try options.open().unfavorite(try Quotes.id(id), user: options.userName)
            print(removed ? "Removed #\(id) from your favourites." : "#\(id) was not a favourite.")
        }
    }

    struct Favorites: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "favorites", abstract: "Your favourites, newest first.",
                                                        discussion: "Example:\n  suite quotes favorites --json")
        @OptionGroup var options: QuotesOptions
        func run() throws {
            try Quotes.printList(try options.open(readOnly: true).favorites(user: options.userName), json: options.json, empty: "No favourites yet: 'suite quotes fav ID'.")
        }
    }

    struct Top: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "top", abstract: "The most favourited quotes across users.",
                                                        discussion: "Example:\n  suite quotes top --limit 5")
        @OptionGroup var options: QuotesOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("How many.", valueName: "n"), transform: NumberOption.int(1...1000, "--limit")) var limit = 10
        func run() throws { try Quotes.printList(try options.open(readOnly: true).top(limit: limit), json: options.json, empty: "No favourites yet.") }
    }

    struct NoteAdd: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "note", abstract: "Write a note on a quote.",
                                                        discussion: "Example:\n  suite quotes note 42 \"Read this before the exam.\"")
        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String
        @Argument(help: ArgumentHelp("The note.", valueName: "text")) var text: String

        func run() throws {
            let note = try options.open().addNote(text, on: try Quotes.id(id), user: options.userName)
            if options.json { try Terminal.printJSON(note) } else { print("Note #\(note.id) saved on #\(note.quoteID).") }
        }
    }

    struct Notes: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "notes", abstract: "Your notes, on one quote or all.",
                                                        discussion: "Example:\n  suite quotes notes 42")
        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String?

        func run() throws {
            let notes = try options.open(readOnly: true).notes(on: try id.map(Quotes.id), user: options.userName)
            if options.json { try Terminal.printJSON(notes); return }
            if notes.isEmpty { print("No notes.") }
            for note in notes { print("#\(note.id) on quote #\(note.quoteID): \(note.text)") }
        }
    }

    struct NoteEdit: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "note-edit", abstract: "Change one of your notes.",
                                                        discussion: "Example:\n  suite quotes note-edit 3 \"New text\"")
        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The note's number.", valueName: "note-id")) var id: String
        @Argument(help: ArgumentHelp("The new text.", valueName: "text")) var text: String

        func run() throws {
            let note = try options.open().editNote(try Quotes.noteID(id), text: text, user: options.userName)
            print("Note #\(note.id) changed.")
        }
    }

    struct NoteDelete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "note-delete", abstract: "Delete one of your notes.",
                                                        discussion: "Example:\n  suite quotes note-delete 3")
        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The note's number.", valueName: "note-id")) var id: String

        func run() throws {
            try options.open().deleteNote(try Quotes.noteID(id), user: options.userName)
            print("Note #\(id) deleted.")
        }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "history", abstract: "The quotes you were sent, newest first.",
                                                        discussion: "Example:\n  suite quotes history --since 2026-11-01")
        @OptionGroup var options: QuotesOptions
        @Option(help: ArgumentHelp("From this day (YYYY-MM-DD).", valueName: "day")) var since: String?
        @Option(parsing: .unconditional, help: ArgumentHelp("At most this many.", valueName: "n"), transform: NumberOption.int(1...1_000_000, "--limit")) var limit = 50

        func run() throws {
            let from = try since.map { try Schedules.day($0, option: "--since") }
            let deliveries = try options.open(readOnly: true).history(user: options.userName, since: from, limit: limit)
            if options.json { try Terminal.printJSON(deliveries); return }
            if deliveries.isEmpty { print("Nothing sent yet.") }
            for delivery in deliveries {
                print("\(Schedules.stamp(delivery.slot)) (\(delivery.channel)) #\(delivery.quote.id): \(delivery.quote.text.split(separator: "\n").first ?? "")")
            }
        }
    }

    struct Share: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "share", abstract: "Your favourites (or your history) as text, Markdown or JSON to pass on.",
            discussion: "Example:\n  suite quotes share --favorites --format markdown -o favourites.md")
        enum Format: String, ExpressibleByArgument { case text, markdown, json }
        @OptionGroup var options: QuotesTextOptions
        @Flag(help: "Share your favourites (the default).") var favorites = false
        @Flag(help: "Share the quotes you were sent instead.") var history = false
        @Option(help: ArgumentHelp("text, markdown or json.", valueName: "format")) var format: Format = .text
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout ('-' is stdout; a device or FIFO is written into, never replaced).", valueName: "file")) var output: String?

        func validate() throws { if favorites && history { throw ValidationError("give --favorites or --history, not both") } }

        func run() throws {
            let store = try options.open(readOnly: true)
            let quotes = history ? try store.history(user: options.userName).map(\.quote) : try store.favorites(user: options.userName)
            let data: Data
            switch format {
            case .text: data = Data(QuoteExport.text(quotes).utf8)
            case .markdown: data = Data(QuoteExport.markdown(quotes, title: history ? "Quotes I was sent" : "My favourite quotes").utf8)
            case .json: data = QuoteExport.json(quotes)
            }
            try Terminal.emit(data, to: output)
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Every quote as Suite JSON (the default; 'suite quotes import' reads it back), fortune-style text or Markdown.",
            discussion: "Examples:\n  suite quotes export -o quotes.json\n  suite quotes export --format text -o quotes.txt")
        @OptionGroup var options: QuotesTextOptions
        @Option(help: ArgumentHelp("json (the default), text or markdown.", valueName: "format")) var format: Share.Format = .json
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout ('-' is stdout; a device or FIFO is written into, never replaced).", valueName: "file")) var output: String?

        func run() throws {
            let quotes = try options.open(readOnly: true).allQuotes()
            let data: Data
            switch format {
            case .json: data = QuoteExport.json(quotes)
            case .text: data = Data(QuoteExport.text(quotes).utf8)
            case .markdown: data = Data(QuoteExport.markdown(quotes, title: "Quotes").utf8)
            }
            try Terminal.emit(data, to: output)
        }
    }

    struct Starter: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "starter", abstract: "Add the starter collection of public-domain quotes.",
            discussion: "Example:\n  suite quotes starter")
        @OptionGroup var options: QuotesTextOptions
        func run() throws {
            let added = try options.open().installStarterCollection()
            print("Added \(added) of \(StarterCollection.count) starter quotes.")
        }
    }
}
