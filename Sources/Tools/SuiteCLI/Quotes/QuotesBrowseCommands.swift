import ArgumentParser
import Foundation
import SuiteEnvironment
import QuoteCore
import SuiteStorage

extension QuotesCommand {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import fortune files (or a folder of them), Quotable-style JSON, or CSV.",
            discussion: """
                All files are imported in one transaction: a malformed file imports nothing and says \
                where it broke. Duplicates (same text and source) are skipped and counted. '-' reads \
                standard input. The format is taken from --format, else from the files: a folder or a \
                file with '%' separator lines is fortune, .json or a file starting with '[' or '{' is \
                JSON, .csv or a file with a header row is CSV; otherwise say --format. The older \
                'import FORMAT PATH…' still works.

                Examples:
                  suite quotes import /usr/share/games/fortunes
                  suite quotes import quotable.json
                  suite quotes import quotes.txt --format csv      # text,author,category
                """)

        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("Files or folders ('-' for standard input).", valueName: "path")) var paths: [String] = []
        @Option(help: ArgumentHelp("fortune, json or csv (else taken from the files).", valueName: "format")) var format: QuoteImportFormat?

        func validate() throws {
            if inputs.paths.isEmpty { throw ValidationError("give at least one file or folder to import ('-' for standard input)") }
        }

        /// The paths and format, reading the older `import FORMAT PATH…` too.
        var inputs: (paths: [String], format: QuoteImportFormat?) {
            if format == nil, paths.count >= 2, let legacy = QuoteImportFormat(rawValue: paths[0]), !FileManager.default.fileExists(atPath: paths[0]) {
                return (Array(paths.dropFirst()), legacy)
            }
            return (paths, format)
        }

        func run() throws {
            let (paths, given) = inputs
            var progress: (@Sendable (Int) -> Void)?
            let context = CLIContext.current
            if context.stderrIsTerminal {
                progress = { @Sendable count in Terminal.printError("… \(count) quotes", context: context) }
            }
            // Everything is read and its format settled before the store is opened.
            var standardInput: Data?
            if paths == ["-"] { standardInput = try Terminal.readStandardInput() }
            for path in paths where path != "-" && !FileManager.default.fileExists(atPath: path) { throw CLIError.missingFile(path) }
            let format = try given ?? Self.detect(paths, standardInput: standardInput)
            // An import brings its own quotes: the starter collection is for a store left empty.
            let store = try options.openUnseeded()
            let summary: QuoteImportSummary
            do throws(QuoteError) {
                if let standardInput {
                    summary = try store.importData(standardInput, name: "stdin", format: format, progress: progress)
                } else {
                    summary = try store.importFiles(paths.map { URL(fileURLWithPath: $0) }, format: format, progress: progress)
                }
            } catch {
                if case .malformedImport = error { throw CLIError.badInput(error.description) }
                throw error
            }
            if options.json { try Terminal.printJSON(summary); return }
            print("Read \(summary.read), imported \(summary.imported), duplicates \(summary.duplicates), skipped \(summary.skipped).")
        }

        /// One format for all the inputs, as the store tells it from their names and first bytes
        /// (``QuoteImportFormat/detect(_:)``); ErrorReport says what to do when it cannot.
        static func detect(_ paths: [String], standardInput: Data?) throws -> QuoteImportFormat {
            if let standardInput {
                guard let format = QuoteImportFormat.detect(name: "stdin", head: standardInput) else {
                    throw CLIError.usage("cannot tell the format of standard input: give --format fortune, json or csv")
                }
                return format
            }
            // '-' among files is standard input, which cannot be looked at and then imported.
            if paths.contains("-") { throw CLIError.usage("cannot tell the format of - without reading it up: give --format fortune, json or csv") }
            return try QuoteImportFormat.detect(paths.map { URL(fileURLWithPath: $0) })
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a quote of your own.",
            discussion: """
                Examples:
                  suite quotes add "May the Force be with you." --source "Star Wars" --kind movie --category film
                  suite quotes add "Always do right." --source "Mark Twain" --citation "Notes"
                """)

        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The quote.", valueName: "text")) var text: String
        @Option(help: ArgumentHelp("Who or what said it.", valueName: "name")) var source: String?
        @Option(help: ArgumentHelp("person, book, movie, tv, comic, song or other.", valueName: "kind")) var kind: SourceKind = .person
        @Option(help: ArgumentHelp("A category (repeat for more).", valueName: "name")) var category: [String] = []
        @Option(help: ArgumentHelp("The work it is from (a book, a film …).", valueName: "title")) var citation: String?

        func run() throws {
            // The starter collection comes with a new store, after the quote is taken: a quote
            // refused leaves the store as it was.
            let new = options.storeIsNew
            let store = try options.openUnseeded()
            let quote = try store.add(text, source: source, kind: kind, categories: category, citation: citation)
            if new { try store.installStarterCollection() }
            if options.json { try Terminal.printJSON(quote) } else { print("Added #\(quote.id).") }
        }
    }

    struct Random: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "random",
            abstract: "A random quote; nothing repeats until every matching quote was shown.",
            discussion: """
                --tailored prefers quotes like your favourites and noted quotes (categories, sources, rarer \
                words) and never offers ones you skipped ('suite quotes skip ID').

                Examples:
                  suite quotes random --category literature
                  suite quotes random --tailored
                """)

        @OptionGroup var options: QuotesOptions
        @OptionGroup var filter: QuoteFilterOptions
        @Flag(help: "A pick tailored to your favourites, notes and skipped quotes.") var tailored = false

        func run() throws { try Self.run(options.plain, filter: filter.filter, tailored: tailored) }

        static func run(_ options: PlainQuotesOptions, filter: QuoteFilter, tailored: Bool = false) throws {
            // A command that ends the process (the fast path's) tries the pick without GRDB first:
            // nil when the store needs more than the steady state, which the store below handles.
            let connections = StoreOpening.connections
            if !tailored, filter == QuoteFilter(), connections != .pooled,
               let quote = try QuoteStore.quickRandom(path: options.common.storeFilePath(QuoteStore.fileName), user: options.userName,
                                                      keptUntilExit: connections == .singleUntilExit) {
                if options.json { try Terminal.printJSON(quote) } else { print(Quotes.render(quote)) }
                return
            }
            // The writer alone answers: checking for an empty store first would open a reader
            // connection (another schema load) on every pick, so that check waits for a miss.
            let store = try options.openUnseeded()
            let quote: Quote
            do {
                quote = tailored ? try store.tailoredRandom(filter, user: options.userName) : try store.random(filter, user: options.userName)
            } catch {
                // An empty store gets the starter collection (the store's rule), and the pick is tried again.
                guard case .noQuotes = error, try options.seed(store) else { throw error }
                quote = tailored ? try store.tailoredRandom(filter, user: options.userName) : try store.random(filter, user: options.userName)
            }
            if options.json { try Terminal.printJSON(quote) } else { print(Quotes.render(quote)) }
        }
    }

    struct Today: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "today", abstract: "The quote of the day: the same all day.",
            discussion: "Example:\n  suite quotes today")

        @OptionGroup var options: QuotesOptions

        func run() throws {
            let parts = Calendar.current.dateComponents([.year, .month, .day], from: Date())
            let quote = try options.openSeeded().quoteOfTheDay(year: parts.year ?? 2000, month: parts.month ?? 1, day: parts.day ?? 1)
            if options.json { try Terminal.printJSON(quote) } else { print(Quotes.render(quote)) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One quote, with its favourites and your notes.",
            discussion: "Example:\n  suite quotes show 42")

        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String

        struct Output: Encodable { let quote: Quote; let notes: [Note] }

        func run() throws {
            let number = try Quotes.id(id)
            let store = try options.open(readOnly: true)
            let quote = try store.quote(number)
            let notes = try store.notes(on: quote.id, user: options.userName)
            if options.json { try Terminal.printJSON(Output(quote: quote, notes: notes)); return }
            print(Quotes.render(quote))
            if let source = quote.source { print("Source: \(source.name) (\(source.kind.rawValue))") }
            if let community = quote.communityFavoriteCount {
                print("Favourites: \(quote.favoriteCount) here, \(community) in the community (as of the last sync)")
            }
            for note in notes { print("Note #\(note.id): \(note.text)") }
        }
    }

    struct Similar: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "similar", abstract: "Quotes like this one: its categories first, ranked by the rarer words they share.",
            discussion: "Example:\n  suite quotes similar 42")

        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String
        @Option(parsing: .unconditional, help: ArgumentHelp("How many.", valueName: "n"), transform: NumberOption.int(1...100, "--limit")) var limit = 5

        func run() throws {
            let quote = try Quotes.id(id)
            try Quotes.printList(try options.open(readOnly: true).similar(to: quote, limit: limit), json: options.json, empty: "Nothing similar found.")
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Full-text search: words, \"exact phrases\" and prefixes (imag*), best first.",
            discussion: "Exit status 1 when nothing matches, as grep does.\n\nExamples:\n  suite quotes search love\n  suite quotes search '\"to be or not\"' --category literature")

        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("What to look for.", valueName: "query")) var query: String
        @OptionGroup var filter: QuoteFilterOptions
        @Option(name: .customLong(.limit), parsing: .unconditional, help: ArgumentHelp("At most this many results.", valueName: "n"),
                transform: NumberOption.int(limits, OptionName.limit.flag))
        var limit = Self.defaultLimit

        static let limits = 1...1000
        /// `--limit` when not given (FastPath reads it from here too).
        static let defaultLimit = 20

        func run() throws { try Self.run(options.plain, query: query, filter: filter.filter, limit: limit) }

        static func run(_ options: PlainQuotesOptions, query: String, filter: QuoteFilter, limit: Int) throws {
            let bold = Terminal.stdoutIsTerminal && !options.json
            let hits = try options.open(readOnly: true).search(query, filter: filter, user: options.userName, limit: limit,
                                                 markers: bold ? (VisibleText.emphasisOpen, VisibleText.emphasisClose) : ("[", "]"))
            if options.json { try Terminal.printJSON(hits) } else if !hits.isEmpty {
                let text = hits.map { hit in
                    var quote = hit.quote
                    quote.text = hit.highlighted
                    return Quotes.render(quote)
                }.joined(separator: "\n%\n")
                if bold { VisibleText.printEmphasised(text) } else { print(text) }
            }
            if hits.isEmpty {
                // As grep: exit 1; and say so, instead of an empty line.
                Terminal.printError("suite: no quote matches '\(query)'")
                throw ExitCode(ExitStatus.failure)
            }
        }
    }

    struct Categories: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "categories", abstract: "Categories with their quote counts.",
            discussion: "Example:\n  suite quotes categories")
        @OptionGroup var options: QuotesOptions

        func run() throws {
            let list = try options.open(readOnly: true).categories()
            if options.json { try Terminal.printJSON(list); return }
            for item in list { print("\(String(item.count).leftPadded(7))  \(item.name)") }
        }
    }

    struct Sources: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources", abstract: "Sources, most quoted first.",
            discussion: "Example:\n  suite quotes sources --limit 20")
        @OptionGroup var options: QuotesOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("At most this many.", valueName: "n"), transform: NumberOption.int(1...1_000_000, "--limit")) var limit: Int?

        func run() throws {
            let list = try options.open(readOnly: true).sources(limit: limit)
            if options.json { try Terminal.printJSON(list); return }
            for item in list { print("\(String(item.count).leftPadded(7))  \(item.name) (\(item.kind?.rawValue ?? "other"))") }
        }
    }

    struct Browse: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Quotes, a page at a time: all, or of a category, a source, your favourites or your own.",
            discussion: "Examples:\n  suite quotes list --category literature --page 2\n  suite quotes list --mine",
            aliases: ["browse"])
        @OptionGroup var options: QuotesOptions
        @OptionGroup var filter: QuoteFilterOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("Quotes per page.", valueName: "n"), transform: NumberOption.int(1...1000, "--limit")) var limit = 20
        // At most a million pages: (page - 1) × limit stays far inside Int.
        @Option(parsing: .unconditional, help: ArgumentHelp("Which page, from 1.", valueName: "n"), transform: NumberOption.int(1...1_000_000, "--page")) var page = 1

        func run() throws {
            let quotes = try options.open(readOnly: true).browse(filter.filter, user: options.userName, limit: limit, offset: (page - 1) * limit)
            try Quotes.printList(quotes, json: options.json, empty: "No quotes on page \(page).")
        }
    }
}

extension QuotesCommand {
    struct Works: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "works",
            abstract: "The works an author's quotes cite, with how many; --online: the author's books from Open Library.",
            discussion: """
                AUTHOR is a source, as 'suite quotes sources' lists them. --online asks Open Library's \
                public search (no key; set SUITE_OPENLIBRARY_URL to use another server) and marks the \
                books your quotes cite.

                Examples:
                  suite quotes works "Mark Twain"
                  suite quotes works "Samuel Johnson" --online --limit 10
                """)
        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The author (a source).", valueName: "author")) var author: String
        @Flag(help: "Ask Open Library for the author's books.") var online = false
        @Option(parsing: .unconditional, help: ArgumentHelp("How many books with --online.", valueName: "n"),
                transform: NumberOption.int(OpenLibrary.limits, "--limit")) var limit = 20
        @Option(name: .customLong("timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds to wait for Open Library (0.1 to 3600).", valueName: "s"),
                transform: NumberOption.seconds(0.1...3600, "--timeout"))
        var timeout: Double = 20

        static let userAgent = SuiteEnvironment.userAgent("quotes")

        func run() async throws {
            let store = try options.open(readOnly: true)
            guard online else {
                let works = try await store.run { try $0.works(by: author) }
                if options.json { try Terminal.printJSON(works); return }
                for work in works {
                    let count = String(work.quotes)
                    print(String(repeating: " ", count: max(0, 4 - count.count)) + count + "  " + (work.title ?? "(no work named)"))
                }
                return
            }
            let base: URL
            do {
                base = try Terminal.suite.url(of: .openLibrary)
            } catch {
                throw CLIError.usage(error.description)
            }
            let library = OpenLibrary(baseURL: base, timeout: timeout, client: CurlHTTPClient(), userAgent: Self.userAgent)
            let books = try await store.books(by: author, from: library, limit: limit)
            if options.json { try Terminal.printJSON(books); return }
            guard !books.isEmpty else {
                print("Open Library lists no books by \(author).")
                return
            }
            for book in books {
                let year = book.firstPublished.map { " (\($0))" } ?? ""
                let editions = book.editions.map { ", \($0) edition\($0 == 1 ? "" : "s")" } ?? ""
                let quoted = book.quotes > 0 ? " — \(book.quotes) quote\(book.quotes == 1 ? "" : "s") here" : ""
                print("\(book.title)\(year)\(editions)\(quoted)")
            }
        }
    }
}
