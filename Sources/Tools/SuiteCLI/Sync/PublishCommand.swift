import ArgumentParser
import Foundation
import SuiteSync
import SuiteSyncProtocol

extension CommunityKind: ExpressibleByArgument {}

extension SyncCommand {
    /// `suite sync publish favourites|ratings on|off`.
    struct Publish: AsyncParsableCommand {
        enum State: String, ExpressibleByArgument, CaseIterable { case on, off }

        static let configuration = CommandConfiguration(
            abstract: "Publish your favourites or your place ratings to the server's community, or take them back.",
            discussion: """
                Off by default, for the whole account. Everything else stays end-to-end encrypted; \
                what you publish travels in plaintext and only as counts and medians to others: \
                nobody can see who favourited or rated what.

                favourites: the favourites of collected quotes (never your own quotes, never notes) \
                of --user (default: your login name), published by this device after each sync \
                (so favourites made on your other devices count too). ratings: your 0-5 ratings of places from \
                OpenStreetMap or Yelp (not places you entered); with --with-notes also their notes \
                and menu. 'off' removes what you published from the server at once.

                Examples:
                  suite sync publish favourites on
                  suite sync publish ratings on --with-notes
                  suite sync publish favourites off
                """)

        @OptionGroup var options: TextOptions
        @Argument(help: ArgumentHelp("favourites or ratings.", valueName: "kind")) var kind: CommunityKind
        @Argument(help: ArgumentHelp("on or off.", valueName: "state")) var state: State
        @Flag(help: "With ratings: publish their notes and menu too.") var withNotes = false
        @Option(help: ArgumentHelp("With favourites: whose favourites (default: your login name).", valueName: "name")) var user: String?

        func validate() throws {
            if withNotes && !(kind == .ratings && state == .on) { throw ValidationError("--with-notes goes with 'ratings on'") }
            if user != nil && !(kind == .favourites && state == .on) { throw ValidationError("--user goes with 'favourites on'") }
        }

        /// Whose favourites are published, as a person reads it: the user named, or, for the
        /// name used when none is known ("default"), what that means.
        static func whoseFavourites(_ user: String) -> String {
            guard user == "default" else { return "the favourites of \(VisibleText.visible(user, oneLine: true))" }
            return "the favourites saved without a user name (no --user, USER or LOGNAME: the user 'default')"
        }

        func run() async throws {
            let folder = try options.storeFolder()
            var account = try SyncCommand.requireAccount(options)
            let client = HTTPSyncClient(server: account.server, token: account.token)
            var settings = try await client.communitySettings()
            switch kind {
            case .favourites: settings.favourites = state == .on
            case .ratings:
                settings.ratings = state == .on
                settings.ratingNotes = state == .on && withNotes
            }
            if kind == .favourites && state == .on { account.publishUser = Quotes.userName(user) }
            if state == .on {
                // What this device publishes must include what the other devices have: sync the
                // stores first (a new device would otherwise publish an empty set).
                _ = try await SyncCommand.client(folder: folder, stores: try SyncCommand.openAll(folder: folder)).sync()
                // The sync wrote the settings (its time, its clock): go on from what it wrote.
                let user = account.publishUser
                account = try SyncCommand.requireAccount(options)
                account.publishUser = user
            }
            account.community = try await client.setCommunitySettings(settings)
            try account.save(in: folder)
            guard state == .on else {
                switch kind {
                case .favourites:
                    account.publishedFavourites = nil
                    account.publishUser = nil
                case .ratings: account.publishedRatings = nil
                }
                try account.save(in: folder)
                print("No longer publishing \(kind.rawValue): the server has removed them.")
                return
            }
            let outcome = try await CommunitySync.run(folder: folder, account: &account, force: true)
            try account.save(in: folder)
            switch kind {
            case .favourites:
                let count = outcome.publishedFavourites ?? 0
                print("Publishing \(Self.whoseFavourites(account.publishUser ?? Quotes.userName(nil))) from this device: \(count) published (your own quotes and notes stay private).")
            case .ratings:
                let count = outcome.publishedRatings ?? 0
                print("Publishing ratings\(settings.ratingNotes ? " with notes and menu" : ""): \(count) published (places you entered stay private).")
            }
            print("Take them back with: suite sync publish \(kind.rawValue) off")
        }
    }
}
