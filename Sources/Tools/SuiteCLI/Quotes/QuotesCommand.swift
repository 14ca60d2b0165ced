import ArgumentParser
import Foundation
import QuoteCore
import SuiteStorage

/// `suite quotes`: quotes by category and source, favourites, notes, a schedule and its history.
struct QuotesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quotes",
        abstract: "Quotes by category and source, favourites, notes, and a delivery schedule.",
        discussion: """
            A new store starts with a small collection of public-domain quotes; import fortune \
            files, Quotable JSON or CSV for more.

            Example:
              suite quotes import fortune /usr/share/games/fortunes
              suite quotes random --category literature
              suite quotes schedule set "3 between 09:00-21:00" --weekdays mon-fri
            """,
        subcommands: [
            Import.self, Add.self, Edit.self, Remove.self, Random.self, Today.self, Show.self, Similar.self, Say.self, Works.self,
            Search.self, Categories.self, Sources.self, Browse.self, Fav.self, Unfav.self,
            Favorites.self, Skip.self, Skipped.self, NotToDoGroup.self, Top.self, NoteAdd.self, Notes.self, NoteEdit.self, NoteDelete.self,
            History.self, ScheduleGroup.self, Tick.self, Share.self, Export.self, Starter.self,
        ]
    )
}

extension SourceKind: ExpressibleByArgument {}
extension QuoteImportFormat: ExpressibleByArgument {}

/// The store and the user every quotes command works with, as values.
protocol QuotesContext {
    var common: StoreOptions { get }
    var user: String? { get }
}

/// ``QuotesContext`` as a plain value: what the run functions shared with the fast path take,
/// made by ``FastPath`` or from the parsed options (``QuotesContext/plain``).
struct PlainQuotesOptions: QuotesContext {
    var store: PlainStoreOptions
    var user: String?

    var common: StoreOptions { store }
}

/// The store and the user every quotes command works with.
struct QuotesOptions: ParsableArguments, QuotesContext {
    @OptionGroup var commonOptions: CommonOptions
    @Option(name: .customLong(.user), help: ArgumentHelp("Whose favourites, notes and schedule (default: your login name).", valueName: "name"))
    var user: String?

    var common: StoreOptions { commonOptions }
}

/// ``QuotesOptions`` of a command that prints only text: no `--json`.
struct QuotesTextOptions: ParsableArguments, QuotesContext {
    @OptionGroup var textOptions: TextOptions
    @Option(name: .customLong(.user), help: ArgumentHelp("Whose favourites, notes and schedule (default: your login name).", valueName: "name"))
    var user: String?

    var common: StoreOptions { textOptions }
}

extension QuotesContext {
    var json: Bool { common.json }

    /// These options as a plain value.
    var plain: PlainQuotesOptions { PlainQuotesOptions(store: common.plain, user: user) }

    var userName: String { Quotes.userName(user) }

    /// Opens the store as it is, without the starter collection (`import`, which brings quotes of
    /// its own); `readOnly` for commands that only read (nothing is written to disk).
    func openUnseeded(readOnly: Bool = false) throws -> QuoteStore {
        try QuoteStore(url: common.storeFile(QuoteStore.fileName), readOnly: readOnly)
    }

    /// Whether there is no store file yet: the first command makes it.
    var storeIsNew: Bool { (try? common.storeFilePath(QuoteStore.fileName)).map { !FileManager.default.fileExists(atPath: $0) } ?? false }

    /// Opens the store; a new one (no file yet) comes with the starter collection, added quietly,
    /// so that its quotes are there from the first command (`categories`, `list`, `fav 19`), not
    /// only after `random`. A store that exists is left as it is (one emptied by hand stays
    /// empty until `random`, `today` or `tick`, which say when they refill it). `readOnly` for
    /// commands that only read (a new store is created for writing all the same).
    func open(readOnly: Bool = false) throws -> QuoteStore {
        guard storeIsNew else { return try openUnseeded(readOnly: readOnly) }
        return try openSeeded(readOnly: false, quietly: true)
    }

    /// ``open(readOnly:)``, saying on stderr when the starter collection was added (`random`,
    /// `today`, `tick`: the commands that showed a quote from it before any other did).
    func openSeeded(readOnly: Bool = false, quietly: Bool = false) throws -> QuoteStore {
        var store = try openUnseeded(readOnly: readOnly)
        if try store.needsStarterCollection() {
            if readOnly { store = try openUnseeded() }
            if quietly { try store.addStarterCollectionIfEmpty() } else { try seed(store) }
        }
        return store
    }

    /// Adds the starter collection if the store is due it, saying so on stderr.
    ///
    /// - Returns: whether it was added.
    @discardableResult
    func seed(_ store: QuoteStore) throws -> Bool {
        let added = try store.addStarterCollectionIfEmpty()
        if added > 0 { Terminal.printError("suite: the store was empty: added the starter collection of \(added) public-domain quotes") }
        return added > 0
    }
}

/// `--category`, `--source`, `--favorites`.
struct QuoteFilterOptions: ParsableArguments {
    @Option(name: .customLong(.category), help: ArgumentHelp("Only this category.", valueName: "name")) var category: String?
    @Option(name: .customLong(.source), help: ArgumentHelp("Only this source.", valueName: "name")) var source: String?
    @Flag(name: .customLong(.favorites), help: "Only your favourites.") var favorites = false
    @Flag(help: "Only the quotes you added yourself.") var mine = false

    var filter: QuoteFilter { QuoteFilter(category: category, source: source, favoritesOnly: favorites, personalOnly: mine) }
}

enum Quotes {
    /// The user a quotes command works for: `--user`, else the login name, else "default".
    static func userName(_ user: String?) -> String {
        Terminal.suite.user(option: user)
    }

    static func render(_ quote: Quote, showID: Bool = true) -> String {
        var text = quote.text
        if let attribution = QuoteExport.attribution(quote) { text += "\n\t\t-- \(attribution)" }
        if showID {
            var meta = ["#\(quote.id)"]
            if !quote.categories.isEmpty { meta.append(quote.categories.joinedText(separator: ", ")) }
            if quote.favoriteCount > 0 { meta.append("♥ \(quote.favoriteCount)") }
            if let community = quote.communityFavoriteCount { meta.append("community ♥ \(community)") }
            text += "\n[" + meta.joinedText(separator: " · ") + "]"
        }
        return text
    }

    /// A quote's id as the user gives it: `12` or `#12`.
    static func id(_ text: String) throws -> Quote.ID {
        Quote.ID(try number(text))
    }

    /// A note's id as the user gives it: `3` or `#3`.
    static func noteID(_ text: String) throws -> Note.ID {
        Note.ID(try number(text))
    }

    private static func number(_ text: String) throws -> Int64 {
        let trimmed = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard let id = Int64(trimmed), id > 0 else { throw CLIError.usage("'\(text)' is not a quote number") }
        return id
    }

    static func printList(_ quotes: [Quote], json: Bool, empty: String) throws {
        if json { try Terminal.printJSON(quotes); return }
        if quotes.isEmpty { print(empty); return }
        print(quotes.map { render($0) }.joined(separator: "\n%\n"))
    }
}
