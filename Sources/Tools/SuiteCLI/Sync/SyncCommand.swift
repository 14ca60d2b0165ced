import ArgumentParser
import BundleCore
import MotivationCore
import QuoteCore
import WorkplaceCore
import Foundation
import SuiteEnvironment
import SuiteStorage
import SuiteSyncCrypto
import SuiteSync
import SuiteSyncProtocol

/// `suite sync`: the store folder's data on every device of an account, through a
/// `suite-server`, end-to-end encrypted.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync the stores with your other devices through a suite-server.",
        discussion: """
            Every command keeps working offline; sync sends what changed here and brings what \
            changed elsewhere. The server stores only ciphertext: keys come from your password on \
            this device. Settings, this device's token and the account's data key are in \
            sync.json in the store folder (mode 0600). Syncs the bmm, places, quotes and bundle stores.

            Examples:
              printf %s "$PASSWORD" | suite sync signup --server http://127.0.0.1:8421 --account ada --password-stdin
              printf %s "$PASSWORD" | suite sync login --server http://127.0.0.1:8421 --account ada --password-stdin
              suite sync
              suite sync status --json
            """,
        subcommands: [SyncNow.self, Signup.self, Login.self, Status.self, Conflicts.self, SetAside.self, Publish.self, Devices.self, Revoke.self, Password.self, Recover.self, DeleteAccount.self, Logout.self, Install.self],
        defaultSubcommand: SyncNow.self
    )

    /// The stores that sync, by their log name on the server.
    static let stores: [SyncedStore] = [
        SyncedStore(log: BusinessModelStore.syncLog, fileName: BusinessModelStore.fileName) { url in try BusinessModelStore(url: url) },
        SyncedStore(log: PlaceStore.syncLog, fileName: PlaceStore.fileName) { url in try PlaceStore(url: url) },
        SyncedStore(log: QuoteStore.syncLog, fileName: QuoteStore.fileName) { url in try QuoteStore(url: url) },
        SyncedStore(log: BundleStore.syncLog, fileName: BundleStore.fileName) { url in try BundleStore(url: url) },
    ]

    // MARK: - Commands

    struct SyncNow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "now",
            abstract: "Push and pull every store until this device has everything the server has (the default).",
            discussion: """
                Exits 0 when done, 69 when the server cannot be reached (nothing is lost: changes stay queued), 75 when it is busy, \
                65 when operations from the server could not be used: they are set aside (suite sync set-aside) and everything else synced.
                """)

        @OptionGroup var options: CommonOptions

        @Flag(help: "Keep running: sync after every change here and whenever the server says something changed; stop with Ctrl-C.")
        var watch = false

        @Flag(help: "Compact the server's logs now, whether or not the server asks: it keeps only what still wins, for this and every other device.")
        var compact = false

        func run() async throws {
            let folder = try options.storeFolder()
            guard try SyncAccount.load(from: folder) != nil else { throw SyncError.notSyncing }
            if watch {
                try await SyncWatch(folder: folder).run()
                return
            }
            let report = try await SyncCommand.client(folder: folder, stores: try SyncCommand.openAll(folder: folder)).sync(compact: compact)
            let community = await CommunitySync.runAfterLogsAndSave(folder: folder)
            if options.json {
                try Terminal.printJSON(report.stores.map(StoreOutcome.init))
            } else {
                for store in report.stores {
                    print("\(store.log): sent \(store.sent), received \(store.received)\(SyncCommand.setAsideNote(store))\(SyncCommand.restartNote(store))"
                          + (store.compacted > 0 ? " (compacted: the server removed \(store.compacted) superseded operations)" : ""))
                }
                if let community, let line = CommunitySync.summary(community) { print(line) }
            }
            // Everything else synced and was saved; the exit status says something was set aside.
            if let setAside = report.setAsideMessage { throw CLIError.badInput(setAside) }
        }
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep 'suite sync --watch' running: a systemd user service, or --cron prints a crontab line that starts it at boot.",
            discussion: "Example:\n  suite sync install && systemctl --user enable --now suite-sync.service")

        @OptionGroup var options: TextOptions
        @Flag(help: "Print a crontab line instead.") var cron = false

        func run() throws {
            // The store folder in use now, absolute (a service has no $SUITE_HOME, another folder).
            let store = try options.storeFolder().standardizedFileURL.path
            try TimerScripts.installService(name: "suite-sync", summary: "Sync the suite stores (suite sync --watch)",
                                            arguments: [TimerScripts.binaryPath(), "sync", "--watch", "--store-dir", store], cron: cron)
        }
    }

    struct Signup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account on a server with this device as its first; prints the recovery key once.")

        @OptionGroup var options: TextOptions
        @OptionGroup var account: AccountOptions
        @Option(help: ArgumentHelp("The one-time code of a server that signs up by invitation ('suite-server invite' prints one).", valueName: "code"))
        var invite: String?

        func validate() throws {
            if let invite, invite.isEmpty || invite.utf8.count > 64 || invite.contains(where: \.isNewline) {
                throw ValidationError("--invite: a code is 1 to 64 characters on one line")
            }
        }

        func run() async throws {
            let folder = try options.storeFolder()
            let password = try account.readPassword()
            let server = try account.serverURL()
            let result = try await SyncCommand.client(folder: folder).signUp(
                server: server, account: account.account, password: password, device: account.deviceName, invite: invite)
            print("Signed up as \(account.account) on \(server.absoluteString); this device is \(result.deviceID).")
            print("Recovery key (shown only now; keep it somewhere safe; 'suite sync recover' sets a new password with it): \(result.recoveryKey)")
            print("Run 'suite sync' to send this device's data.")
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add this device (this store folder) to an existing account.")

        @OptionGroup var options: TextOptions
        @OptionGroup var account: AccountOptions

        func run() async throws {
            let folder = try options.storeFolder()
            let password = try account.readPassword()
            let server = try account.serverURL()
            let device = try await SyncCommand.client(folder: folder).logIn(server: server, account: account.account, password: password, device: account.deviceName)
            print("Logged in as \(account.account) on \(server.absoluteString); this device is \(device).")
            print("Run 'suite sync' to bring the account's data here.")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the server, the account, what waits to be sent, operations set aside, the last success and the last error.")

        @OptionGroup var options: CommonOptions

        struct Report: Encodable {
            struct Store: Encodable {
                var store: String
                var pending: Int
                /// Texts that lost to a concurrent edit (`suite sync conflicts`).
                var conflicts: Int
                /// Operations from the server that could not be used (`suite sync set-aside`).
                var setAside: Int
            }
            var syncing: Bool
            var server: String?
            var account: String?
            var device: String?
            var stores: [Store]
            var lastSuccess: Date?
            var lastError: String?
            /// What the account publishes, as the server last said (nil before the first sync).
            var publishing: CommunitySettings?
            /// How far this device's clock is ahead of the server's, in seconds (negative when
            /// behind), as the last sync measured it (nil before, or with an older server).
            var clockAhead: Double?
            var clockMeasuredAt: Date?
            /// Bytes the account stores on the server and its quota, at the last sync.
            var serverUsage: Int64?
            var serverQuota: Int64?
        }

        func run() async throws {
            let folder = try options.storeFolder()
            let account = try SyncAccount.load(from: folder)
            let status = try await SyncCommand.client(folder: folder, stores: try SyncCommand.existingStores(in: folder).map(\.1)).status()
            let stores = status.stores.map { Report.Store(store: $0.log, pending: $0.pending, conflicts: $0.conflicts, setAside: $0.setAside) }
            let report = Report(syncing: status.isSyncing, server: status.server?.absoluteString, account: status.account,
                                device: status.deviceID, stores: stores, lastSuccess: status.lastSuccess, lastError: status.lastError,
                                publishing: account?.community, clockAhead: status.clockOffset.map { Double($0) / 1000 },
                                clockMeasuredAt: status.clockMeasuredAt, serverUsage: status.serverUsage, serverQuota: status.serverQuota)
            if options.json {
                try Terminal.printJSON(report)
                return
            }
            guard let account else {
                print("Not syncing: suite sync signup … or suite sync login … to start.")
                return
            }
            print("Server: \(account.server.absoluteString)")
            print("Account: \(account.account) (this device: \(account.deviceID))")
            for store in stores {
                let conflicts = store.conflicts == 0 ? "" : "; \(store.conflicts) text\(store.conflicts == 1 ? "" : "s") lost to edits elsewhere (suite sync conflicts)"
                let setAside = store.setAside == 0 ? "" : "; \(store.setAside) operation\(store.setAside == 1 ? "" : "s") from the server set aside (suite sync set-aside)"
                print("\(store.store): \(store.pending) change\(store.pending == 1 ? "" : "s") to send\(conflicts)\(setAside)")
            }
            let publishing = account.community ?? CommunitySettings()
            print("Publishing: favourites \(publishing.favourites ? "on" : "off"), ratings \(publishing.ratings ? (publishing.ratingNotes ? "on (with notes)" : "on") : "off")"
                  + (account.community == nil ? " (as of the last sync; none yet)" : ""))
            if let offset = account.clockOffset {
                let refused = offset > SyncClock.maximumLead ? " (too far ahead: nothing is sent until the clock is set right)" : ""
                print("Clock: \(ClockOffset.phrase(offset))\(refused), at \(account.clockMeasuredAt.map { PeopleTime.stamp($0) } ?? "the last sync")")
            } else {
                print("Clock: not measured yet (the server says its time from the next sync on)")
            }
            if let used = status.serverUsage {
                let format = ByteCountFormatStyle(style: .file)
                print("Server storage: \(used.formatted(format))" + (status.serverQuota.map { " of \($0.formatted(format))" } ?? " (no quota)") + " (at the last sync)")
            }
            print("Last success: \(account.lastSuccess.map { PeopleTime.stamp($0) } ?? "never")")
            if let error = account.lastError { print("Last error: \(error)") }
        }
    }

    struct Conflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Texts that lost to an edit made at the same time on another device, newest first.",
            discussion: """
                When two devices change the same text (a todo, a note, a place's name…) without seeing each \
                other's change, the later edit wins everywhere and the other is kept here, so that nothing \
                written disappears silently. Copy back what you want to keep.

                Example:
                  suite sync conflicts
                  suite sync conflicts --json
                """)

        @OptionGroup var options: CommonOptions
        @Option(help: ArgumentHelp("Show at most this many.", valueName: "n"), transform: NumberOption.int(1...100_000, "--limit"))
        var limit = 50

        struct Entry: Encodable {
            var store: String
            var entity: String
            var key: String
            var field: String
            var text: String
            var writtenAt: Date
            var device: String
            var notedAt: Date
        }

        func run() async throws {
            let folder = try options.storeFolder()
            var entries: [Entry] = []
            for (store, opened) in try SyncCommand.existingStores(in: folder) {
                entries += try SyncCommand.engine(opened).conflicts(limit: limit).map { conflict in
                    Entry(store: store.log, entity: conflict.entity, key: conflict.key, field: conflict.field, text: conflict.value.displayText,
                          writtenAt: Millis(conflict.time.millis).date, device: conflict.device, notedAt: conflict.notedAt)
                }
            }
            entries.sort { ($0.writtenAt, $0.key) > ($1.writtenAt, $1.key) }
            entries = Array(entries.prefix(limit))
            if options.json {
                try Terminal.printJSON(entries)
                return
            }
            if entries.isEmpty {
                print("No conflicts: no text lost to an edit made at the same time elsewhere.")
                return
            }
            for entry in entries {
                print("\(PeopleTime.stamp(entry.writtenAt))  \(entry.store) \(entry.entity) \(entry.field) (\(entry.key.prefix(12))):")
                for line in entry.text.split(separator: "\n", omittingEmptySubsequences: false) { print("  \(VisibleText.visible(String(line)))") }
            }
        }
    }

    struct SetAside: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-aside",
            abstract: "Operations from the server that could not be used, with their log, id and why.",
            discussion: """
                An operation that does not open (damaged on the server, moved there from another log, sealed \
                with another key), names something this version does not know, or cannot be applied is set \
                aside: kept here, tried again by later syncs, and never stops the rest of the sync. \
                'suite sync' exits 65 when it sets new ones aside.

                Example:
                  suite sync set-aside
                  suite sync set-aside --json
                """)

        @OptionGroup var options: CommonOptions
        @Option(help: ArgumentHelp("Show at most this many.", valueName: "n"), transform: NumberOption.int(1...100_000, "--limit"))
        var limit = 50

        struct Entry: Encodable {
            var store: String
            var log: String
            var operation: String
            var reason: String
            var bytes: Int
            var firstSeenAt: Date
            var lastTriedAt: Date
            var tries: Int
        }

        func run() async throws {
            let folder = try options.storeFolder()
            var entries: [Entry] = []
            for (store, opened) in try SyncCommand.existingStores(in: folder) {
                entries += try SyncCommand.engine(opened).setAside(limit: limit).map { kept in
                    Entry(store: store.log, log: kept.log, operation: kept.id, reason: kept.reason, bytes: kept.size,
                          firstSeenAt: kept.firstSeen, lastTriedAt: kept.lastTried, tries: kept.tries)
                }
            }
            entries.sort { ($0.firstSeenAt, $0.log, $0.operation) < ($1.firstSeenAt, $1.log, $1.operation) }
            entries = Array(entries.prefix(limit))
            if options.json {
                try Terminal.printJSON(entries)
                return
            }
            if entries.isEmpty {
                print("Nothing set aside: every operation from the server was used.")
                return
            }
            for entry in entries {
                print("\(PeopleTime.stamp(entry.firstSeenAt))  \(entry.log) \(VisibleText.visible(entry.operation)): \(VisibleText.visible(entry.reason))"
                      + (entry.tries > 1 ? " (tried \(entry.tries) times)" : ""))
            }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the account's devices.")

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let devices = try await SyncCommand.client(folder: try options.storeFolder()).devices()
            if options.json {
                try Terminal.printJSON(devices)
                return
            }
            for device in devices {
                print("\(device.id)  \(device.name)  added \(PeopleTime.stamp(device.createdAt))\(device.lastSeenAt.map { ", last seen \(PeopleTime.stamp($0))" } ?? "")\(device.isCurrent ? "  (this device)" : "")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign a device out of the account (its data stays on it).")

        @OptionGroup var options: TextOptions
        @Argument(help: ArgumentHelp("The device's id, as 'suite sync devices' lists it.", valueName: "device")) var device: String

        func run() async throws {
            try await SyncCommand.client(folder: try options.storeFolder()).revoke(device: device)
            print("Revoked device \(device).")
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign this device out and stop syncing this store folder (its data stays here).")

        @OptionGroup var options: TextOptions

        func run() async throws {
            let folder = try options.storeFolder()
            guard let account = try SyncAccount.load(from: folder) else {
                print("This store folder was not syncing.")
                return
            }
            try await SyncCommand.client(folder: folder).logOut()
            print("Logged out of \(account.account); the data in this store folder stays.")
        }
    }

    // MARK: - Shared

    static func requireAccount(_ options: some StoreOptions) throws -> SyncAccount {
        guard let account = try SyncAccount.load(from: try options.storeFolder()) else { throw SyncError.notSyncing }
        return account
    }

    /// What one store's sync did (`suite sync --json` prints a list of these).
    struct StoreOutcome: Encodable {
        var store: String
        var pushed: Int
        var pulled: Int
        var applied: Int
        var restarted: Bool
        /// Operations from the server set aside in this sync (`suite sync set-aside`).
        var setAside: Int
        /// Operations set aside before that were used now.
        var recovered: Int
        /// Operations the server removed in a compaction this sync made.
        var compacted: Int

        init(_ store: SyncReport.Store) {
            self.store = store.log
            pushed = store.sent
            pulled = store.received
            applied = store.applied
            restarted = store.restarted
            setAside = store.setAside
            recovered = store.recovered
            compacted = store.compacted
        }
    }

    /// Why a store sent everything again, for the summary line ("" when it did not).
    static func restartNote(_ store: SyncReport.Store) -> String {
        guard store.restarted else { return "" }
        return store.pastCompaction
            ? " (the server had compacted history this device had not read; it read the log again and sent what it has)"
            : " (the server had lost data; everything was sent again)"
    }

    /// What one store's line adds about set-aside operations.
    static func setAsideNote(_ store: SyncReport.Store) -> String {
        var parts: [String] = []
        if store.setAside > 0 { parts.append("\(store.setAside) set aside") }
        if store.recovered > 0 { parts.append("\(store.recovered) set aside before now used") }
        return parts.isEmpty ? "" : ", " + parts.joined(separator: ", ")
    }

    /// Every store of the folder that syncs, opened (created when missing, so that a new device
    /// receives everything).
    static func openAll(folder: URL) throws -> [any SyncableStore] {
        try stores.map { try $0.open(folder.appendingPathComponent($0.fileName)) }
    }

    /// The engine behind a store's handle (every core's store has one).
    static func engine(_ store: any SyncableStore) throws -> any SyncEngine {
        guard let engine = store.syncHandle.syncEngine else { throw CLIError.failed("the \(store.syncHandle.log) store cannot sync") }
        return engine
    }
}

/// `--server`, `--account`, `--password-stdin`, `--device`.
struct AccountOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The server's URL, as 'suite-server serve' prints it.", valueName: "url")) var server: String
    @Option(help: ArgumentHelp("The account name.", valueName: "name")) var account: String
    @Flag(help: "Read the password from standard input (required: passwords are never arguments).") var passwordStdin = false
    @Option(help: ArgumentHelp("This device's name in 'suite sync devices' (default: 'LOGIN on HOST').", valueName: "name")) var device: String?

    func validate() throws {
        guard passwordStdin else { throw ValidationError("pass the password on standard input with --password-stdin") }
        try Self.validate(account: account)
    }

    static func validate(account: String) throws {
        guard !account.isEmpty, account.count <= SyncProtocol.maximumNameLength, !account.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError("an account name is 1 to \(SyncProtocol.maximumNameLength) characters without control characters")
        }
    }

    func serverURL() throws -> URL { try Self.serverURL(server) }

    static func serverURL(_ server: String) throws -> URL {
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw CLIError.usage("not a server URL (http:// or https://): \(server)")
        }
        return url
    }

    var deviceName: String { Self.deviceName(device) }

    static func deviceName(_ device: String?) -> String {
        let name = device ?? defaultDeviceName(user: Terminal.environment["USER"] ?? Terminal.environment["LOGNAME"], host: ProcessInfo.processInfo.hostName)
        return String(name.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(SyncProtocol.maximumNameLength).map(Character.init))
    }

    /// A device's name when none is given: whose and which machine ("alice on vm"), so that two
    /// people's or two accounts' devices on one machine can be told apart; the host alone
    /// without a login name.
    static func defaultDeviceName(user: String?, host: String) -> String {
        let host = host.isEmpty ? "this machine" : host
        guard let user, !user.isEmpty else { return host }
        return "\(user) on \(host)"
    }

    func readPassword() throws -> String {
        var password = try Terminal.readAllStandardInput()
        while password.hasSuffix("\n") || password.hasSuffix("\r") { password.removeLast() }
        guard password.count >= 8 else { throw CLIError.badInput("the password is shorter than 8 characters") }
        return password
    }
}

/// One store that syncs: its log on the server and how to open it.
struct SyncedStore: Sendable {
    var log: String
    var fileName: String
    var open: @Sendable (URL) throws -> any SyncableStore
}

extension SyncCommand {
    /// The synced stores the folder has, opened (those never made are left out: reading about
    /// them must not create them).
    static func existingStores(in folder: URL) throws -> [(SyncedStore, any SyncableStore)] {
        try stores.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0.fileName).path) }
            .map { ($0, try $0.open(folder.appendingPathComponent($0.fileName))) }
    }
}
