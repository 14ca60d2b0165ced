import ArgumentParser
import BundleCore
import MotivationCore
import QuoteCore
import WorkplaceCore
import Foundation
import SuiteStorage
import SuiteSyncCrypto
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
        subcommands: [SyncNow.self, Signup.self, Login.self, Status.self, Conflicts.self, SetAside.self, Publish.self, Devices.self, Revoke.self, Logout.self, Install.self],
        defaultSubcommand: SyncNow.self
    )

    /// The stores that sync, by their log name on the server.
    static let stores: [SyncedStore] = [
        SyncedStore(log: "bmm", fileName: BusinessModelStore.fileName) { url in try BusinessModelStore(url: url).syncStore },
        SyncedStore(log: "places", fileName: PlaceStore.fileName) { url in try PlaceStore(url: url).syncStore },
        SyncedStore(log: "quotes", fileName: QuoteStore.fileName) { url in try QuoteStore(url: url).syncStore },
        SyncedStore(log: "bundle", fileName: BundleStore.fileName) { url in try BundleStore(url: url).syncStore },
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
            guard var account = try SyncAccount.load(from: folder) else {
                throw CLIError.failed("this store folder does not sync yet: suite sync signup … or suite sync login …")
            }
            if watch {
                try await SyncWatch(folder: folder, account: account).run()
                return
            }
            do {
                let outcomes = try await SyncCommand.syncAll(folder: folder, account: account, compact: compact)
                let setAside = SyncCommand.setAsideMessage(outcomes)
                account.noteClock(outcomes)
                account.lastError = setAside
                let community = await CommunitySync.runAfterLogs(folder: folder, account: &account)
                account.lastSuccess = Date()
                try account.save(in: folder)
                if options.json {
                    try Terminal.printJSON(outcomes)
                } else {
                    for outcome in outcomes {
                        print("\(outcome.store): sent \(outcome.pushed), received \(outcome.pulled)\(SyncCommand.setAsideNote(outcome))\(SyncCommand.restartNote(outcome))\(outcome.compacted > 0 ? " (compacted: the server removed \(outcome.compacted) superseded operations)" : "")")
                    }
                    if let community, let line = CommunitySync.summary(community) { print(line) }
                }
                // Everything else synced and was saved; the exit status says something was set aside.
                if let setAside { throw SetAsideReport(message: setAside) }
            } catch let report as SetAsideReport {
                throw CLIError.badInput(report.message)
            } catch {
                if case SyncClockError.aheadOfServer(let by, _) = error { account.noteClock(by) }
                account.lastError = ErrorReport.classify(error)?.1 ?? "\(error)"
                try? account.save(in: folder)
                throw error
            }
        }
    }

    /// A sync that set operations aside (exit 65), after everything else was done and saved.
    private struct SetAsideReport: Error {
        var message: String
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

        func run() async throws {
            let folder = try options.storeFolder()
            let password = try account.readPassword()
            let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            let master = try AccountKeys.masterKey(password: password, salt: salt)
            let dataKey = AccountKeys.newKey(), recovery = AccountKeys.newKey()
            let client = HTTPSyncClient(server: try account.serverURL())
            let reply = try await client.signup(SignupRequest(
                account: account.account, authenticationSecret: AccountKeys.authenticationSecret(master: master), salt: salt,
                rounds: AccountKeys.rounds, wrappedKey: try AccountKeys.wrap(dataKey, with: master),
                recoveryWrappedKey: try AccountKeys.wrap(dataKey, with: recovery), device: account.deviceName))
            try SyncAccount(server: client.server, account: account.account, deviceID: reply.deviceID, token: reply.token,
                            dataKey: dataKey.withUnsafeBytes { Data($0) }).save(in: folder)
            print("Signed up as \(account.account) on \(client.server.absoluteString); this device is \(reply.deviceID).")
            print("Recovery key (shown only now; keep it somewhere safe): \(AccountKeys.recoveryText(recovery))")
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
            let client = HTTPSyncClient(server: try account.serverURL())
            let prelogin = try await client.prelogin(account: account.account)
            // A server that asks for fewer rounds than signup uses would make the password cheap to guess.
            guard (AccountKeys.rounds...10_000_000).contains(prelogin.rounds) else {
                throw SyncClientError.refused("the server asked for a weaker key derivation than suite uses (\(prelogin.rounds) rounds); not logging in")
            }
            let master = try AccountKeys.masterKey(password: password, salt: prelogin.salt, rounds: prelogin.rounds)
            let reply: SessionReply
            do {
                reply = try await client.login(LoginRequest(
                    account: account.account, authenticationSecret: AccountKeys.authenticationSecret(master: master), device: account.deviceName))
            } catch SyncClientError.refused {
                throw SyncClientError.refused("wrong account name or password")
            }
            let dataKey: Data
            do {
                dataKey = try AccountKeys.unwrap(reply.wrappedKey, with: master).withUnsafeBytes { Data($0) }
            } catch {
                throw SyncClientError.refused("the password does not open this account's data key")
            }
            try SyncAccount(server: client.server, account: account.account, deviceID: reply.deviceID, token: reply.token, dataKey: dataKey)
                .save(in: folder)
            print("Logged in as \(account.account) on \(client.server.absoluteString); this device is \(reply.deviceID).")
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
        }

        func run() async throws {
            let folder = try options.storeFolder()
            let account = try SyncAccount.load(from: folder)
            var stores: [Report.Store] = []
            for (store, opened) in try SyncCommand.existingStores(in: folder) {
                stores.append(Report.Store(store: store.log, pending: try opened.pendingCount(), conflicts: try opened.conflicts(limit: 100_000).count,
                                          setAside: try opened.setAsideCount()))
            }
            let report = Report(syncing: account != nil, server: account?.server.absoluteString, account: account?.account,
                                device: account?.deviceID, stores: stores, lastSuccess: account?.lastSuccess, lastError: account?.lastError,
                                publishing: account?.community, clockAhead: account?.clockOffset.map { Double($0) / 1000 },
                                clockMeasuredAt: account?.clockMeasuredAt)
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
                entries += try opened.conflicts(limit: limit).map { conflict in
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
                entries += try opened.setAside(limit: limit).map { kept in
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
            let account = try SyncCommand.requireAccount(options)
            let devices = try await HTTPSyncClient(server: account.server, token: account.token).devices()
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
            let account = try SyncCommand.requireAccount(options)
            try await HTTPSyncClient(server: account.server, token: account.token).revoke(device: device)
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
            do {
                try await HTTPSyncClient(server: account.server, token: account.token).logout()
            } catch SyncClientError.signedOut {
                // Revoked already: nothing to do on the server.
            }
            SyncAccount.remove(from: folder)
            print("Logged out of \(account.account); the data in this store folder stays.")
        }
    }

    // MARK: - Shared

    static func requireAccount(_ options: some StoreOptions) throws -> SyncAccount {
        guard let account = try SyncAccount.load(from: try options.storeFolder()) else {
            throw CLIError.failed("this store folder does not sync yet: suite sync signup … or suite sync login …")
        }
        return account
    }

    /// What one store's sync did (`suite sync --json` prints a list of these).
    struct StoreOutcome: Encodable {
        var store: String
        var pushed: Int
        var pulled: Int
        var applied: Int
        var restarted: Bool
        /// Whether the restart was because history this device had not read was compacted away
        /// (it read the log again; nothing was lost), not because the server lost data.
        var pastCompaction: Bool = false
        /// Operations the server removed in a compaction this sync made.
        var compacted: Int = 0
        /// Operations from the server set aside in this sync (`suite sync set-aside`).
        var setAside: Int
        /// Operations set aside before that were used now.
        var recovered: Int
        /// How far this device's clock is ahead of the server's (milliseconds), for `suite sync
        /// status`; not printed.
        var clockOffset: Int64?

        private enum CodingKeys: String, CodingKey { case store, pushed, pulled, applied, restarted, setAside, recovered, compacted }
    }

    /// Why a store sent everything again, for the summary line ("" when it did not).
    static func restartNote(_ outcome: StoreOutcome) -> String {
        guard outcome.restarted else { return "" }
        return outcome.pastCompaction
            ? " (the server had compacted history this device had not read; it read the log again and sent what it has)"
            : " (the server had lost data; everything was sent again)"
    }

    /// The line saying which stores set operations aside in this sync, or nil when none did.
    static func setAsideMessage(_ outcomes: [StoreOutcome]) -> String? {
        let stores = outcomes.filter { $0.setAside > 0 }
        guard !stores.isEmpty else { return nil }
        let total = stores.reduce(0) { $0 + $1.setAside }
        let logs = stores.map { "\($0.store) \($0.setAside)" }.joined(separator: ", ")
        return "\(total) operation\(total == 1 ? "" : "s") from the server could not be used and \(total == 1 ? "was" : "were") set aside (\(logs)); "
            + "everything else synced: suite sync set-aside says why"
    }

    /// What one store's line adds about set-aside operations.
    static func setAsideNote(_ outcome: StoreOutcome) -> String {
        var parts: [String] = []
        if outcome.setAside > 0 { parts.append("\(outcome.setAside) set aside") }
        if outcome.recovered > 0 { parts.append("\(outcome.recovered) set aside before now used") }
        return parts.isEmpty ? "" : ", " + parts.joined(separator: ", ")
    }

    /// Syncs every store of the folder (creating those missing, so that a new device receives
    /// everything), or only the stores of `logs`, turning sync on for each first.
    static func syncAll(folder: URL, account: SyncAccount, only logs: Set<String>? = nil, compact: Bool = false) async throws -> [StoreOutcome] {
        try await sync(try openAll(folder: folder), account: account, only: logs, compact: compact)
    }

    /// Every store of the folder that syncs, opened (created when missing, so that a new device
    /// receives everything) with sync turned on.
    static func openAll(folder: URL) throws -> [(log: String, store: any SyncableStoreBox)] {
        try stores.map { store in
            let opened = try store.open(folder.appendingPathComponent(store.fileName))
            try opened.enable()
            return (store.log, opened)
        }
    }

    /// Syncs the opened stores (those of `logs`, or all).
    /// With `compact`, each store compacts its log at the end even when the server did not ask.
    static func sync(_ opened: [(log: String, store: any SyncableStoreBox)], account: SyncAccount, only logs: Set<String>? = nil,
                     compact: Bool = false) async throws -> [StoreOutcome] {
        let transport = HTTPSyncClient(server: account.server, token: account.token)
        let codec = EncryptedSyncCodec(dataKeyBytes: account.dataKey, account: account.account)
        var outcomes: [StoreOutcome] = []
        var ahead: Int64?
        for (log, store) in opened where logs?.contains(log) ?? true {
            do {
                let outcome = try await store.sync(log, transport, codec, compact: compact)
                outcomes.append(StoreOutcome(store: log, pushed: outcome.pushed, pulled: outcome.pulled, applied: outcome.applied, restarted: outcome.restarted,
                                             pastCompaction: outcome.pastCompaction, compacted: outcome.compactedAway,
                                             setAside: outcome.setAside, recovered: outcome.recovered, clockOffset: outcome.clockOffset))
            } catch SyncClockError.aheadOfServer(let by, _) {
                // This store received and sent nothing; the others still receive.
                ahead = by
            }
        }
        if let ahead {
            let waiting = try opened.filter { logs?.contains($0.log) ?? true }.reduce(0) { try $0 + $1.store.pendingCount() }
            throw SyncClockError.aheadOfServer(by: ahead, pending: waiting)
        }
        return outcomes
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
        guard !account.isEmpty, account.count <= SyncProtocol.maximumNameLength, !account.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError("an account name is 1 to \(SyncProtocol.maximumNameLength) characters without control characters")
        }
    }

    func serverURL() throws -> URL {
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw CLIError.usage("not a server URL (http:// or https://): \(server)")
        }
        return url
    }

    var deviceName: String {
        let name = device ?? Self.defaultDeviceName(user: Terminal.environment["USER"] ?? Terminal.environment["LOGNAME"], host: ProcessInfo.processInfo.hostName)
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
    var openStore: @Sendable (URL) throws -> any SyncableStoreBox

    init<Failure: StoreFailureRepresentable & Sendable>(log: String, fileName: String, open: @escaping @Sendable (URL) throws -> Store<Failure>) {
        self.log = log
        self.fileName = fileName
        openStore = { url in StoreBox(store: try open(url)) }
    }

    func open(_ url: URL) throws -> any SyncableStoreBox { try openStore(url) }
}

extension SyncCommand {
    /// The synced stores the folder has, opened (those never made are left out: reading about
    /// them must not create them).
    static func existingStores(in folder: URL) throws -> [(SyncedStore, any SyncableStoreBox)] {
        try stores.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0.fileName).path) }
            .map { ($0, try $0.open(folder.appendingPathComponent($0.fileName))) }
    }
}

/// A store of any core, for the sync commands.
protocol SyncableStoreBox: Sendable {
    func enable() throws
    func pendingCount() throws -> Int
    func conflicts(limit: Int) throws -> [SyncConflict]
    func setAside(limit: Int) throws -> [SyncSetAside]
    func setAsideCount() throws -> Int
    func sync(_ log: String, _ transport: any SyncTransport, _ codec: any SyncCodec, compact: Bool) async throws -> SyncOutcome
}

private struct StoreBox<Failure: StoreFailureRepresentable & Sendable>: SyncableStoreBox {
    let store: Store<Failure>

    func enable() throws {
        if try !store.syncIsEnabled() { try store.syncEnable() }
    }

    func pendingCount() throws -> Int { try store.syncPendingCount() }

    func conflicts(limit: Int) throws -> [SyncConflict] { try store.syncConflicts(limit: limit) }

    func setAside(limit: Int) throws -> [SyncSetAside] { try store.syncSetAside(limit: limit) }

    func setAsideCount() throws -> Int { try store.syncSetAsideCount() }

    func sync(_ log: String, _ transport: any SyncTransport, _ codec: any SyncCodec, compact: Bool) async throws -> SyncOutcome {
        var session = SyncSession(store: store, log: log, transport: transport, codec: codec)
        session.compactsAlways = compact
        return try await session.run()
    }
}
