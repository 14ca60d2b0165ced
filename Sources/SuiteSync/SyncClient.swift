import Crypto
import Foundation
import SuiteHTTP
import SuiteStorage
import SuiteSyncCrypto
import SuiteSyncProtocol

/// Syncs the stores of one folder with the other devices of an account, through a
/// `suite-server`, end-to-end encrypted: the account, its keys, this device's session, the
/// transport and the stores, behind one async API.
///
/// ```swift
/// import BundleCore
/// import SuiteSync
/// import SuiteURLSession
///
/// let todos = try BundleStore(directory: folder)
/// let sync = SyncClient(folder: folder, stores: [todos], http: URLSessionHTTPClient())
/// if try await !sync.status().isSyncing {
///     try await sync.logIn(server: server, account: "ada", password: password, device: "Ada's phone")
/// }
/// let report = try await sync.sync()
/// for try await event in sync.watch() { … }   // keeps syncing until cancelled
/// ```
///
/// The folder holds `sync.json` (mode 0600): the server, the account, this device's token and
/// the account's data key, which never leave the device unwrapped. Every store keeps working
/// offline; ``sync(only:compact:)`` sends what changed here and brings what changed elsewhere. A call that
/// fails throws a ``SyncError`` (or a store's own error) and loses nothing: changes stay queued.
/// The password never leaves the device; the server sees only a secret derived from it and
/// ciphertext.
public actor SyncClient {
    /// The folder whose `sync.json` says which account it syncs with.
    public nonisolated let folder: URL
    private let handles: [SyncHandle]
    private let http: any HTTPClient
    private let events: (any SyncServerEvents)?

    /// Creates a client for the stores of a folder.
    ///
    /// - Parameters:
    ///   - folder: The store folder (`sync.json` is kept there).
    ///   - stores: The stores to sync, each opened once by the app (`BundleStore`, `PlaceStore`,
    ///     `QuoteStore`, `BusinessModelStore`); at most one per kind.
    ///   - http: How requests reach the server: `URLSessionHTTPClient()` from `SuiteURLSession`,
    ///     or any `HTTPClient`.
    ///   - events: Where ``watch(every:)`` hears that another device pushed (the server's event
    ///     stream); without one it polls at its interval.
    public init(folder: URL, stores: [any SyncableStore], http: any HTTPClient, events: (any SyncServerEvents)? = nil) {
        self.folder = folder
        var seen = Set<String>()
        self.handles = stores.map(\.syncHandle).filter { seen.insert($0.log).inserted }
        self.http = http
        self.events = events
    }

    // MARK: Account

    /// Creates an account on a server with this folder as its first device.
    ///
    /// - Returns: This device's id and the recovery key, shown to the person once: with it
    ///   ``recover(server:account:recoveryKey:newPassword:device:)`` sets a new password.
    /// - Throws: ``SyncError`` (``SyncError/Code/badInput`` for a password under 8 characters,
    ///   ``SyncError/Code/refused`` for a taken name).
    /// - Parameter invite: The one-time code of a server whose sign-up is by invitation.
    public func signUp(server: URL, account: String, password: String, device: String, invite: String? = nil) async throws -> SignUpResult {
        try SyncKeys.check(password: password)
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let master = try AccountKeys.masterKey(password: password, salt: salt)
        let dataKey = AccountKeys.newKey(), recovery = AccountKeys.newKey()
        let client = SyncServerClient(server: server, http: http)
        let reply = try await client.signup(SignupRequest(
            account: account, authenticationSecret: AccountKeys.authenticationSecret(master: master), salt: salt,
            rounds: AccountKeys.rounds, wrappedKey: try AccountKeys.wrap(dataKey, with: master),
            recoveryWrappedKey: try AccountKeys.wrap(dataKey, with: recovery), device: device,
            recoverySecret: AccountKeys.recoverySecret(recovery: recovery), invite: invite))
        try SyncAccount(server: server, account: account, deviceID: reply.deviceID, token: reply.token,
                        dataKey: dataKey.withUnsafeBytes { Data($0) }).save(in: folder)
        return SignUpResult(deviceID: reply.deviceID, recoveryKey: AccountKeys.recoveryText(recovery))
    }

    /// Adds this folder to an existing account as a new device.
    ///
    /// - Returns: This device's id.
    /// - Throws: ``SyncError`` (``SyncError/Code/refused`` for a wrong account or password,
    ///   ``SyncError/Code/busy`` after too many failures).
    @discardableResult
    public func logIn(server: URL, account: String, password: String, device: String) async throws -> String {
        let client = SyncServerClient(server: server, http: http)
        let (secret, master) = try await SyncKeys.authenticationSecret(password: password, account: account, client: client)
        let reply: SessionReply
        do {
            reply = try await client.login(LoginRequest(account: account, authenticationSecret: secret, device: device))
        } catch let error as SyncError where error.code == .refused {
            throw SyncError(.refused, "wrong account name or password")
        }
        let dataKey: Data
        do {
            dataKey = try AccountKeys.unwrap(reply.wrappedKey, with: master).withUnsafeBytes { Data($0) }
        } catch {
            throw SyncError(.wrongKey, "the password does not open this account's data key")
        }
        try SyncAccount(server: server, account: account, deviceID: reply.deviceID, token: reply.token, dataKey: dataKey).save(in: folder)
        return reply.deviceID
    }

    /// Sets a new password with the recovery key and logs this folder in as a new device. The
    /// old password stops working; devices signed in stay.
    ///
    /// - Returns: This device's id.
    /// - Throws: ``SyncError`` (``SyncError/Code/badInput`` for text that is not a recovery key or
    ///   a new password under 8 characters, before anything is sent; ``SyncError/Code/refused``
    ///   for a wrong account or recovery key, nothing changed).
    @discardableResult
    public func recover(server: URL, account: String, recoveryKey: String, newPassword: String, device: String) async throws -> String {
        let recovery: SymmetricKey
        do { recovery = try AccountKeys.recoveryKey(recoveryKey) } catch {
            throw SyncError(.badInput, "not a recovery key (64 hexadecimal digits, as signup printed it)")
        }
        try SyncKeys.check(password: newPassword, what: "the new password")
        let client = SyncServerClient(server: server, http: http)
        let secret = AccountKeys.recoverySecret(recovery: recovery)
        let wrapped: Data
        do {
            wrapped = try await client.recoveryKey(RecoveryKeyRequest(account: account, recoverySecret: secret)).recoveryWrappedKey
        } catch let error as SyncError where error.code == .refused {
            throw SyncError(.refused, "wrong account name or recovery key (or an account made before recovery existed); nothing changed")
        }
        let dataKey: SymmetricKey
        do { dataKey = try AccountKeys.unwrap(wrapped, with: recovery) } catch {
            throw SyncError(.wrongKey, "the recovery key does not open this account's data key; nothing changed")
        }
        let material = try NewPassword(newPassword, dataKey: dataKey)
        let reply: SessionReply
        do {
            reply = try await client.recover(RecoverRequest(
                account: account, recoverySecret: secret, authenticationSecret: material.authenticationSecret, salt: material.salt,
                rounds: AccountKeys.rounds, wrappedKey: material.wrappedKey, device: device))
        } catch let error as SyncError where error.code == .refused {
            throw SyncError(.refused, "wrong account name or recovery key; nothing changed")
        }
        try SyncAccount(server: server, account: account, deviceID: reply.deviceID, token: reply.token,
                        dataKey: dataKey.withUnsafeBytes { Data($0) }).save(in: folder)
        return reply.deviceID
    }

    /// Changes the account's password. The data key stays (nothing is encrypted again); every
    /// signed-in device keeps syncing; new devices log in with the new password.
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/badInput`` for a new password under 8
    ///   characters, before anything is sent; ``SyncError/Code/refused`` for a wrong current
    ///   password, nothing changed).
    public func changePassword(current: String, new: String) async throws {
        let account = try requireAccount()
        try SyncKeys.check(password: new, what: "the new password")
        let client = serverClient(account)
        let (proof, _) = try await SyncKeys.authenticationSecret(password: current, account: account.account, client: client)
        let material = try NewPassword(new, dataKey: SymmetricKey(data: account.dataKey))
        do {
            try await client.changePassword(PasswordChangeRequest(
                authenticationSecret: proof, newAuthenticationSecret: material.authenticationSecret,
                salt: material.salt, rounds: AccountKeys.rounds, wrappedKey: material.wrappedKey))
        } catch let error as SyncError where error.code == .refused && error.message.contains("password is wrong") {
            throw SyncError(.refused, "the current password is wrong; nothing changed")
        }
    }

    /// Deletes the account and everything of it from the server (its devices, synced history,
    /// published favourites and ratings, shared lists) and stops this folder syncing. The
    /// stores on every device stay. Cannot be undone.
    ///
    /// - Throws: ``SyncError`` (``SyncError/Code/refused`` for a wrong password, nothing deleted).
    public func deleteAccount(password: String) async throws {
        let account = try requireAccount()
        let client = serverClient(account)
        let (proof, _) = try await SyncKeys.authenticationSecret(password: password, account: account.account, client: client)
        do {
            try await client.deleteAccount(AccountDeletionRequest(authenticationSecret: proof))
        } catch let error as SyncError where error.code == .refused && error.message.contains("password is wrong") {
            throw SyncError(.refused, "the password is wrong; nothing was deleted")
        }
        SyncAccount.remove(from: folder)
    }

    /// Signs this device out and stops this folder syncing (its data stays).
    ///
    /// - Returns: Whether the folder was syncing.
    @discardableResult
    public func logOut() async throws -> Bool {
        guard let account = try SyncAccount.load(from: folder) else { return false }
        do {
            try await serverClient(account).logout()
        } catch let error as SyncError where error.code == .signedOut {
            // Revoked already: nothing to do on the server.
        }
        SyncAccount.remove(from: folder)
        return true
    }

    /// The account's devices, oldest first.
    public func devices() async throws -> [DeviceInfo] {
        try await serverClient(try requireAccount()).devices()
    }

    /// Signs another device of the account out (its data stays on it).
    public func revoke(device: String) async throws {
        try await serverClient(try requireAccount()).revoke(device: device)
    }

    // MARK: Syncing

    /// Pushes and pulls every store (or those whose log is in `logs`) until this device has
    /// everything the server has, turning sync on for each store first.
    ///
    /// Operations from the server that cannot be used are set aside (``SyncReport/setAside``),
    /// never stopping the rest. A store whose clock is too far ahead of the server's receives
    /// but sends nothing: after the others synced, this throws ``SyncError/Code/clockAhead``.
    ///
    /// The server asks for a compaction when a log holds many superseded operations; a store
    /// that has read the whole log with nothing to push then names what still wins and the
    /// server removes the rest. `compact` makes each store do that at its end even unasked.
    ///
    /// - Returns: What each store sent and received.
    /// - Throws: ``SyncError`` (``SyncError/Code/notSyncing`` when the folder has no account), or
    ///   a store's own error.
    public func sync(only logs: Set<String>? = nil, compact: Bool = false) async throws -> SyncReport {
        let account = try requireAccount()
        do {
            let report = try await syncStores(account, only: logs, compact: compact)
            // What the account stores now (an older server does not say).
            let usage = try? await SyncServerClient(server: account.server, token: account.token, http: http).usage()
            try SyncAccount.update(in: folder, session: account) { current in
                if let usage {
                    current.serverUsage = usage.bytes
                    current.serverQuota = usage.quotaBytes
                }
                if let offset = report.clockOffset { current.noteClock(offset) }
                current.lastError = report.setAsideMessage
                current.lastSuccess = Date()
            }
            return report
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as SyncError {
            _ = try? SyncAccount.update(in: folder, session: account) { current in
                if error.code == .clockAhead, let lead = error.clockLead { current.noteClock(lead) }
                current.lastError = error.message
            }
            throw error
        } catch {
            _ = try? SyncAccount.update(in: folder, session: account) { $0.lastError = "\(error)" }
            throw error
        }
    }

    /// What this folder syncs with and what waits: ``SyncStatus``.
    public func status() async throws -> SyncStatus {
        let account = try SyncAccount.load(from: folder)
        let stores = try await Background.run { [handles] in
            try handles.map { handle in
                let engine = try Self.engine(handle)
                return SyncStatus.Store(log: handle.log, pending: try engine.pendingCount(), conflicts: try engine.conflicts(limit: 100_000).count,
                                        setAside: try engine.setAsideCount())
            }
        }
        return SyncStatus(isSyncing: account != nil, server: account?.server, account: account?.account, deviceID: account?.deviceID,
                          stores: stores, lastSuccess: account?.lastSuccess, lastError: account?.lastError,
                          clockOffset: account?.clockOffset, clockMeasuredAt: account?.clockMeasuredAt,
                          serverUsage: account?.serverUsage, serverQuota: account?.serverQuota)
    }

    /// Keeps syncing until the task iterating it is cancelled, or the folder stops syncing
    /// (logged out, here or by another process): after every change here (a cheap read of what
    /// waits, every 20 ms), whenever the server says another device pushed (with `events`),
    /// and at least every `interval` otherwise.
    ///
    /// Offline, busy and clock-ahead failures are reported as events and retried, waiting
    /// longer after each (up to a minute); the changes stay queued. A device signed out ends the
    /// sequence with ``SyncError/Code/signedOut``; a store's own error ends it with that error.
    ///
    /// - Parameter interval: The longest wait between two syncs when nothing changes.
    /// - Returns: The events: first ``SyncEvent/Kind/watching``, then one per sync that did
    ///   something or was a full pass, and one per failure.
    public nonisolated func watch(every interval: Duration = .seconds(5)) -> AsyncThrowingStream<SyncEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: SyncEvent.self)
        let task = Task { await self.runWatch(interval: interval, continuation) }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func runWatch(interval: Duration, _ continuation: AsyncThrowingStream<SyncEvent, any Error>.Continuation) async {
        let account: SyncAccount
        do { account = try requireAccount() } catch {
            continuation.finish(throwing: error)
            return
        }
        let heard = HeardLogs()
        let listener = events.map { source in
            Task {
                for await log in source.changes(server: account.server, token: account.token) { heard.insert(log) }
            }
        }
        defer { listener?.cancel() }
        continuation.yield(SyncEvent(kind: .watching, stores: handles.map(\.log), server: account.server, account: account.account))
        let clock = ContinuousClock()
        var last: ContinuousClock.Instant?
        var failures = 0
        while !Task.isCancelled {
            var logs = heard.take()
            do {
                logs.formUnion(try await Self.logsWithPendingChanges(handles))
                let everything = last.map { clock.now - $0 >= interval } ?? true
                if everything || !logs.isEmpty {
                    do {
                        let report = try await sync(only: everything ? nil : logs)
                        failures = 0
                        if everything || report.stores.contains(where: { $0.sent + $0.received + $0.recovered > 0 }) || report.setAside > 0 {
                            continuation.yield(SyncEvent(kind: .synced, report: report, full: everything))
                        }
                    } catch let error as SyncError where error.isTransient {
                        failures += 1
                        let wait = Duration.milliseconds(Int64(min(60_000, 500 * (1 << min(failures, 7)))))
                        continuation.yield(SyncEvent(kind: .failed, error: error, retryIn: wait))
                        try await Task.sleep(for: wait)
                    } catch let error as SyncError where error.code == .notSyncing {
                        continuation.finish()
                        return
                    }
                    if everything { last = clock.now }
                }
                try await Task.sleep(for: .milliseconds(20))
            } catch is CancellationError {
                break
            } catch {
                continuation.finish(throwing: error)
                return
            }
        }
        continuation.finish()
    }

    // MARK: Parts

    private func requireAccount() throws -> SyncAccount {
        guard let account = try SyncAccount.load(from: folder) else { throw SyncError.notSyncing }
        return account
    }

    private func serverClient(_ account: SyncAccount) -> SyncServerClient {
        SyncServerClient(server: account.server, token: account.token, http: http)
    }

    /// The logs of the stores with changes waiting to be sent, read on the store queue (SQLite
    /// is never read on the actor's, or Swift's cooperative, threads).
    private static func logsWithPendingChanges(_ handles: [SyncHandle]) async throws -> Set<String> {
        try await Background.run { () throws -> Set<String> in
            Set(try handles.filter { try engine($0).pendingCount() > 0 }.map(\.log))
        }
    }

    private static func engine(_ handle: SyncHandle) throws -> any SyncEngine {
        guard let engine = handle.syncEngine else { throw SyncError(.badInput, "the store for \(handle.log) cannot sync") }
        return engine
    }

    private func syncStores(_ account: SyncAccount, only logs: Set<String>?, compact: Bool = false) async throws -> SyncReport {
        let transport = serverClient(account)
        let codec = EncryptedSyncCodec(dataKeyBytes: account.dataKey, account: account.account)
        var report = SyncReport(stores: [])
        var ahead: Int64?
        let chosen = handles.filter { logs?.contains($0.log) ?? true }
        // Every store captures its changes from the first sync on, even when the server cannot
        // be reached before its turn comes: what waits is counted from then.
        try await Background.run { () throws in for handle in chosen { try Self.engine(handle).enable() } }
        for handle in chosen {
            let engine = try Self.engine(handle)
            do {
                let outcome = try await engine.sync(handle.log, transport, codec, compact: compact)
                report.stores.append(SyncReport.Store(log: handle.log, sent: outcome.pushed, received: outcome.pulled, applied: outcome.applied,
                                                      restarted: outcome.restarted, setAside: outcome.setAside, recovered: outcome.recovered,
                                                      compacted: outcome.compactedAway, pastCompaction: outcome.pastCompaction))
                if let offset = outcome.clockOffset { report.clockOffset = offset }
            } catch SyncClockError.aheadOfServer(let by, _) {
                // This store received and sent nothing; the others still sync.
                ahead = by
            } catch let error as SyncProtocolError {
                throw SyncError(.serverBroken, "the sync server broke the protocol: \(error.description)")
            } catch let error as AccountKeys.Failure {
                throw SyncError(.wrongKey, "\(error.description) (was the account made again? suite sync login …)")
            }
        }
        if let ahead {
            let waiting = try await Background.run { () throws -> Int in try chosen.reduce(0) { try $0 + Self.engine($1).pendingCount() } }
            throw SyncError(.clockAhead, ClockOffset.refusal(by: ahead, pending: waiting), clockLead: ahead, pending: waiting)
        }
        return report
    }
}

/// Where ``SyncClient/watch(every:)`` hears that the account's logs changed on the server (its
/// `GET /v1/events` stream): the `suite` tool listens on a socket; an app may listen with
/// URLSession, or pass nothing and let the watcher poll.
public protocol SyncServerEvents: Sendable {
    /// The names of the logs that changed, as the server announces them, until the task
    /// iterating is cancelled; reconnecting after failures is the source's business.
    func changes(server: URL, token: String) -> AsyncStream<String>
}

/// Logs heard from the event stream and not synced yet.
private final class HeardLogs: @unchecked Sendable {
    private let lock = NSLock()
    private var logs: Set<String> = []

    func insert(_ log: String) { lock.withLock { _ = logs.insert(log) } }

    func take() -> Set<String> {
        lock.withLock {
            defer { logs = [] }
            return logs
        }
    }
}
