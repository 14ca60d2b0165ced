import ArgumentParser
import Foundation
import SuiteEnvironment
import SuiteSync
import QuoteCore
import SuiteSyncProtocol

extension QuotesCommand {
    struct Fav: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "fav", abstract: "Add a quote to your favourites.",
                                                        discussion: "Example:\n  suite quotes fav 42")
        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String

        func run() throws {
            let quote = try Quotes.id(id)
            let added = try options.open().favorite(quote, user: options.userName)
            print(added ? "Added #\(id) to your favourites." : "#\(id) is already a favourite.")
        }
    }

    struct Unfav: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unfav", abstract: "Remove a quote from your favourites.",
                                                        discussion: "Example:\n  suite quotes unfav 42")
        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String

        func run() throws {
            let quote = try Quotes.id(id)
            let removed = try options.open().unfavorite(quote, user: options.userName)
            print(removed ? "Removed #\(id) from your favourites." : "#\(id) was not a favourite.")
        }
    }

    struct Skip: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "skip", abstract: "Skip a quote: tailored picks never offer it and weigh its kind less.",
                                                        discussion: "Examples:\n  suite quotes skip 42\n  suite quotes skip 42 --undo")
        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String
        @Flag(help: "Take the quote off your skipped ones.") var undo = false

        func run() throws {
            let number = try Quotes.id(id)
            let store = try options.open()
            if undo {
                let removed = try store.unskip(number, user: options.userName)
                print(removed ? "#\(id) is no longer skipped." : "#\(id) was not skipped.")
            } else {
                let added = try store.skip(number, user: options.userName)
                print(added ? "Skipped #\(id): tailored picks leave it out." : "#\(id) is already skipped.")
            }
        }
    }

    struct Skipped: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "skipped", abstract: "The quotes you skipped, newest first.",
                                                        discussion: "Example:\n  suite quotes skipped --json")
        @OptionGroup var options: QuotesOptions
        func run() throws {
            try Quotes.printList(try options.open(readOnly: true).skipped(user: options.userName), json: options.json, empty: "No skipped quotes: 'suite quotes skip ID'.")
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

    struct Top: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "top", abstract: "The most favourited quotes across the users of this store, or with --community across a sync server's accounts.",
            discussion: """
                --community asks the sync server (the accounts that publish their favourites: \
                'suite sync publish favourites on'); offline it shows the counts of the last sync.

                Examples:
                  suite quotes top --limit 5
                  suite quotes top --community --json
                """)
        @OptionGroup var options: QuotesOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("How many.", valueName: "n"), transform: NumberOption.int(1...1000, "--limit")) var limit = 10
        @Flag(help: "Across the sync server's accounts that publish favourites (offline: as of the last sync).") var community = false

        /// A community entry: the quote's words, source and count, its key, and its number here when this store has it.
        struct Entry: Encodable {
            var text: String
            var source: String?
            var count: Int
            var key: String
            var id: Quote.ID?

            enum CodingKeys: String, CodingKey { case text, source, count, key, id }

            /// `source` is always there (null when the quote has none); `id` only when this store has the quote.
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(text, forKey: .text)
                try container.encode(source, forKey: .source)
                try container.encode(count, forKey: .count)
                try container.encode(key, forKey: .key)
                try container.encodeIfPresent(id, forKey: .id)
            }
        }

        func run() async throws {
            guard community else {
                try Quotes.printList(try await options.open(readOnly: true).run { try $0.top(limit: limit) }, json: options.json, empty: "No favourites yet.")
                return
            }
            let folder = try options.common.storeFolder()
            let store = try options.open(readOnly: true)
            var counts: [CommunityFavoriteCount]
            var note: String?
            if let account = try SyncAccount.load(from: folder) {
                do {
                    counts = try await HTTPSyncClient(server: account.server, token: account.token).topQuotes(limit: limit)
                        .filter { $0.count > 0 && CommunityRules.problem(CommunityQuote(key: $0.key, text: $0.text, source: $0.source)) == nil }
                        .map { CommunityFavoriteCount(key: $0.key, text: $0.text, source: $0.source, count: $0.count) }
                } catch let error as SyncError {
                    guard error.code == .unreachable || error.code == .busy else { throw error }
                    counts = try store.communityTop(limit: limit)
                    note = "\(error.description); showing the counts of the last sync"
                }
            } else {
                counts = try store.communityTop(limit: limit)
                note = "this store folder does not sync: no community counts (suite sync login …)"
            }
            if let note { Terminal.printError("suite: \(note)") }
            let entries = try counts.map { count in
                Entry(text: count.text, source: count.source, count: count.count, key: count.key, id: try store.quote(communityKey: count.key)?.id)
            }
            if options.json { try Terminal.printJSON(entries); return }
            if entries.isEmpty { print("No community favourites yet."); return }
            print(entries.map { entry in
                var text = entry.text
                if let source = entry.source { text += "\n\t\t-- \(source)" }
                return text + "\n[" + ([entry.id.map { "#\($0)" }, "community ♥ \(entry.count)"].compactMap { $0 }.joined(separator: " · ")) + "]"
            }.joined(separator: "\n%\n"))
        }
    }

    struct NoteAdd: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "note", abstract: "Write a note on a quote.",
                                                        discussion: "Example:\n  suite quotes note 42 \"Read this before the exam.\"")
        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String
        @Argument(help: ArgumentHelp("The note.", valueName: "text")) var text: String

        func run() throws {
            let quote = try Quotes.id(id)
            let note = try options.open().addNote(text, on: quote, user: options.userName)
            if options.json { try Terminal.printJSON(note) } else { print("Note #\(note.id) saved on #\(note.quoteID).") }
        }
    }

    struct Notes: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "notes", abstract: "Your notes, on one quote or all.",
                                                        discussion: "Example:\n  suite quotes notes 42")
        @OptionGroup var options: QuotesOptions
        @Argument(help: ArgumentHelp("The quote's number.", valueName: "id")) var id: String?

        func run() throws {
            let quote = try id.map(Quotes.id)
            let notes = try options.open(readOnly: true).notes(on: quote, user: options.userName)
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
            let number = try Quotes.noteID(id)
            let note = try options.open().editNote(number, text: text, user: options.userName)
            print("Note #\(note.id) changed.")
        }
    }

    struct NoteDelete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "note-delete", abstract: "Delete one of your notes.",
                                                        discussion: "Example:\n  suite quotes note-delete 3")
        @OptionGroup var options: QuotesTextOptions
        @Argument(help: ArgumentHelp("The note's number.", valueName: "note-id")) var id: String

        func run() throws {
            let number = try Quotes.noteID(id)
            try options.open().deleteNote(number, user: options.userName)
            print("Note #\(id) deleted.")
        }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "history", abstract: "The quotes you were sent, newest first.",
                                                        discussion: "Example:\n  suite quotes history --since 2026-11-01")
        @OptionGroup var options: QuotesOptions
        @Option(help: ArgumentHelp("From this day (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM).", valueName: "when")) var since: String?
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

    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "share", abstract: "Your favourites (or your history) as text, Markdown or JSON to pass on, or as a link on your sync server.",
            discussion: """
                --publish puts a read-only snapshot of the list on the sync server under an \
                unguessable link (an HTML page anyone with the link can read, and the same list as \
                JSON at the link + .json). Your own quotes are left out. --published lists your \
                links; --unpublish LINK deletes one.

                Examples:
                  suite quotes share --favorites --format markdown -o favourites.md
                  suite quotes share --publish --title "Quotes that got me through the winter"
                  suite quotes share --unpublish https://sync.example.org/s/Wq3…
                """)
        enum Format: String, ExpressibleByArgument { case text, markdown, json }
        @OptionGroup var options: QuotesTextOptions
        @Flag(help: "Share your favourites (the default).") var favorites = false
        @Flag(help: "Share the quotes you were sent instead.") var history = false
        @Option(help: ArgumentHelp("text, markdown or json.", valueName: "format")) var format: Format = .text
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout ('-' is stdout; a device or FIFO is written into, never replaced).", valueName: "file")) var output: String?
        @Flag(help: "Publish the list on the sync server as a read-only link.") var publish = false
        @Option(help: ArgumentHelp("The published list's title.", valueName: "title")) var title: String?
        @Flag(help: "List the links you published.") var published = false
        @Option(help: ArgumentHelp("Delete a published list (its link or id).", valueName: "link")) var unpublish: String?

        func validate() throws {
            if favorites && history { throw ValidationError("give --favorites or --history, not both") }
            if [publish, published, unpublish != nil].filter({ $0 }).count > 1 { throw ValidationError("give one of --publish, --published and --unpublish") }
            if (publish || published || unpublish != nil) && (output != nil || format != .text) {
                throw ValidationError("--format and --output write a file; --publish, --published and --unpublish talk to the sync server")
            }
            if title != nil && !publish { throw ValidationError("--title goes with --publish") }
        }

        func run() async throws {
            if publish || published || unpublish != nil {
                try await online()
                return
            }
            let store = try options.open(readOnly: true)
            let quotes = history ? try await store.run { try $0.history(user: options.userName) }.map(\.quote) : try await store.run { try $0.favorites(user: options.userName) }
            let data: Data
            switch format {
            case .text: data = Data(QuoteExport.text(quotes).utf8)
            case .markdown: data = Data(QuoteExport.markdown(quotes, title: history ? "Quotes I was sent" : "My favourite quotes").utf8)
            case .json: data = QuoteExport.json(quotes)
            }
            try Terminal.emit(data, to: output)
        }

        /// Whether a text can be a shared list's id (base64url, as the server makes them).
        static func isListID(_ id: String) -> Bool {
            (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
                byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
            }
        }

        private func online() async throws {
            let folder = try options.common.storeFolder()
            guard let account = try SyncAccount.load(from: folder) else {
                throw CLIError.failed("this store folder does not sync: published lists live on your sync server (suite sync login …)")
            }
            let client = HTTPSyncClient(server: account.server, token: account.token)
            let base = account.server.absoluteString.hasSuffix("/") ? String(account.server.absoluteString.dropLast()) : account.server.absoluteString
            if let unpublish {
                let id = unpublish.split(separator: "/").last.map(String.init)?.replacingOccurrences(of: ".json", with: "") ?? unpublish
                try await client.unshare(id: id)
                print("Deleted the shared list \(id): its link no longer works.")
                return
            }
            if published {
                // What the server says is checked before it reaches the terminal.
                let lists = try await client.sharedLists().filter { Self.isListID($0.id) }
                if lists.isEmpty { print("No published lists."); return }
                for list in lists {
                    let title = CommunityRules.problem(list.title, name: "title", limit: CommunityRules.maximumTitle) == nil ? list.title : "(untitled)"
                    print("\(base)/s/\(list.id)  \(title) (\(max(0, list.count)) quote\(list.count == 1 ? "" : "s"), \(PeopleTime.stamp(list.createdAt)))")
                }
                return
            }
            let store = try options.open(readOnly: true)
            let all = history ? try await store.run { try $0.history(user: options.userName) }.map(\.quote) : try await store.run { try $0.favorites(user: options.userName) }
            var seen = Set<Quote.ID>()
            let quotes = all.filter { !$0.isPersonal && seen.insert($0.id).inserted }
            guard !quotes.isEmpty else {
                throw CLIError.failed(all.isEmpty ? "nothing to publish: the list is empty" : "nothing to publish: the list holds only your own quotes, which stay private")
            }
            let request = SharedListRequest(
                title: title ?? (history ? "Quotes I was sent" : "My favourite quotes"),
                quotes: quotes.map { SharedQuote(text: $0.text, source: $0.source?.name, citation: $0.citation) })
            if let problem = CommunityRules.problem(request) { throw CLIError.usage(problem) }
            let info = try await client.share(request)
            guard Self.isListID(info.id) else { throw SyncError(.serverBroken, "the sync server answered a list id that is not one") }
            print("\(base)/s/\(info.id)")
            let left = all.count - quotes.count
            Terminal.printError("suite: published \(info.count) quote\(info.count == 1 ? "" : "s")"
                                + (left > 0 ? "; \(left) of your own left out" : "") + "; anyone with the link can read it (suite quotes share --unpublish LINK)")
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
            // Written as read from the store, quote by quote: memory stays flat at any size.
            let store = try options.open(readOnly: true)
            try Terminal.stream(to: output) { emit in
                var first = true
                switch format {
                case .json:
                    try emit(QuoteExport.jsonStart)
                    try store.forEachQuote { quote in
                        try emit(QuoteExport.jsonItem(quote, first: first))
                        first = false
                    }
                    try emit(QuoteExport.jsonEnd)
                case .text:
                    try store.forEachQuote { quote in
                        try emit(Data(QuoteExport.textItem(quote, first: first).utf8))
                        first = false
                    }
                case .markdown:
                    try emit(Data(QuoteExport.markdownStart(title: "Quotes").utf8))
                    try store.forEachQuote { quote in try emit(Data(QuoteExport.markdownItem(quote).utf8)) }
                }
            }
        }
    }

    struct Starter: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "starter", abstract: "Add the starter collection of public-domain quotes.",
            discussion: "Example:\n  suite quotes starter")
        @OptionGroup var options: QuotesTextOptions
        func run() throws {
            let added = try options.openUnseeded().installStarterCollection()
            print("Added \(added) of \(StarterCollection.count) starter quotes.")
        }
    }
}
