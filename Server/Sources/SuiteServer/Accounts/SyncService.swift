import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix
import SuiteHTTPLimits
import SuiteSyncProtocol

/// What the server does, apart from HTTP: accounts, sign-in, devices, and relaying operations.
///
/// It checks every input, hashes secrets with bcrypt off the event loops, and leaves ordering
/// and storing to the ``ServerStorage``.
package struct SyncService: Sendable {
    /// The bcrypt cost for new accounts.
    package static let defaultBcryptCost: UInt8 = 10
    /// The key-derivation rounds announced for accounts that do not exist (the client's default).
    package static let fakeRounds = 600_000
    /// The length of the salts announced for accounts that do not exist.
    package static let fakeSaltLength = 16

    /// Where the data lives.
    package let storage: any ServerStorage
    private let limiter: SignInRateLimiter
    /// Sign-up and quota.
    package let policy: ServerPolicy
    /// What `/metrics` counts.
    package let metrics: ServerMetrics
    /// Sign-ups per client address: ``ServerPolicy/signupBurst`` at once, then as many an hour.
    private let signupLimiter: RequestRateLimiter
    /// Limits the community and shared-list requests of each account.
    let requestLimiter: RequestRateLimiter
    /// How long the key of an item nobody votes for any more stays, so that devices learn the
    /// count fell to zero (then it is purged, and readers that had not caught up start again).
    let tombstoneRetention: TimeInterval
    /// When the last purge ran.
    let lastPurge = PurgeClock()
    private let bcryptCost: UInt8
    let now: @Sendable () -> Date
    /// Verified against when the account does not exist, so that answer takes as long as a
    /// wrong secret.
    private let decoyHash: String

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - storage: The storage.
    ///   - limiter: The sign-in rate limiter.
    ///   - policy: Who may sign up, and the quota (open, 1 GiB by default; `serve` asks for an
    ///     invitation unless told).
    ///   - bcryptCost: The bcrypt cost (4...31; 10 by default).
    ///   - requestLimiter: The community requests' rate limiter.
    ///   - tombstoneRetention: How long a zero count's key is kept (7 days by default).
    ///   - now: The clock.
    package init(
        storage: any ServerStorage,
        limiter: SignInRateLimiter = SignInRateLimiter(),
        policy: ServerPolicy = ServerPolicy(),
        metrics: ServerMetrics = ServerMetrics(),
        bcryptCost: UInt8 = SyncService.defaultBcryptCost,
        requestLimiter: RequestRateLimiter = RequestRateLimiter(),
        tombstoneRetention: TimeInterval = 7 * 24 * 3600,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        self.limiter = limiter
        self.policy = policy
        self.metrics = metrics
        self.signupLimiter = RequestRateLimiter(write: .init(capacity: policy.signupBurst, perMinute: policy.signupBurst / 60))
        self.requestLimiter = requestLimiter
        self.tombstoneRetention = tombstoneRetention
        self.bcryptCost = min(max(bcryptCost, 4), 31)
        self.now = now
        self.decoyHash = Bcrypt.hash(SessionToken.generate(), cost: self.bcryptCost)
    }

    // MARK: Accounts

    /// Creates an account and its first device.
    ///
    /// - Parameter request: The signup.
    /// - Returns: The first device's session.
    /// - Throws: ``SyncServiceError/badRequest(_:)`` for bad names or empty secrets,
    ///   ``SyncServiceError/conflict(_:)`` if the account exists.
    package func signup(_ request: SignupRequest, from address: ClientAddress = .unknown) async throws -> SessionReply {
        try Self.checkNames(account: request.account, device: request.device)
        try KeyMaterialRules.check(secret: request.authenticationSecret, salt: request.salt, rounds: request.rounds, wrappedKey: request.wrappedKey)
        try KeyMaterialRules.check(wrappedKey: request.recoveryWrappedKey, named: "recovery-wrapped key")
        if let recovery = request.recoverySecret { try KeyMaterialRules.check(secret: recovery, named: "recovery secret") }
        if let invite = request.invite, invite.isEmpty || invite.utf8.count > 64 {
            throw SyncServiceError.badRequest("an invitation code is 1 to 64 characters")
        }
        var claim: InviteClaim?
        switch policy.signup {
        case .closed:
            throw SyncServiceError.forbidden("sign-up is closed on this server")
        case .invite:
            guard let invite = request.invite else {
                throw SyncServiceError.forbidden("this server signs up by invitation: ask its operator for a code ('suite-server invite') and pass it with --invite")
            }
            claim = InviteClaim(codeHash: InviteCode.hash(invite), at: now())
        case .open:
            break
        }
        // Counted when it starts, before anything costly, like sign-in.
        guard await signupLimiter.allows(.write, account: address.key, now: now()) else {
            throw SyncServiceError.tooManyAttempts("too many sign-ups from this address; try again later")
        }
        if let claim, try await !storage.inviteIsUsable(codeHash: claim.codeHash, at: claim.at) {
            throw SyncServiceError.forbidden("the invitation code is unknown, used or expired")
        }
        guard try await storage.account(named: request.account) == nil else {
            throw SyncServiceError.conflict("the account \(request.account) exists")
        }
        let hash = try await bcrypt(request.authenticationSecret)
        let recoveryHash: String? = if let recovery = request.recoverySecret { try await bcrypt(recovery) } else { nil }
        let date = now()
        let account = StoredAccount(
            id: Self.newID(), name: request.account, passwordHash: hash, salt: request.salt, rounds: request.rounds,
            wrappedKey: request.wrappedKey, recoveryWrappedKey: request.recoveryWrappedKey, epoch: Self.newID(), createdAt: date,
            recoveryHash: recoveryHash)
        let token = SessionToken.generate()
        let device = NewDevice(id: Self.newID(), accountID: account.id, name: request.device, tokenHash: SessionToken.hash(token), createdAt: date)
        do {
            try await storage.createAccount(account, device: device, invite: claim)
        } catch ServerStorageError.accountExists {
            throw SyncServiceError.conflict("the account \(request.account) exists")
        } catch ServerStorageError.inviteRefused {
            throw SyncServiceError.forbidden("the invitation code is unknown, used or expired")
        }
        return SessionReply(token: token, deviceID: device.id, wrappedKey: account.wrappedKey, recoveryWrappedKey: account.recoveryWrappedKey)
    }

    /// What a device needs to derive the account's keys. For an account that does not exist,
    /// a salt derived from the name and the server's secret: the same every time, and
    /// indistinguishable from a real one.
    ///
    /// - Parameter request: The account name.
    /// - Returns: The salt and rounds.
    /// - Throws: ``SyncServiceError/badRequest(_:)`` for a bad name.
    package func prelogin(_ request: PreloginRequest) async throws -> PreloginReply {
        guard NameRules.isValid(request.account) else { throw SyncServiceError.badRequest("the account name must be 1 to \(SyncProtocol.maximumNameLength) characters, without control characters") }
        if let account = try await storage.account(named: request.account) {
            return PreloginReply(salt: account.salt, rounds: account.rounds)
        }
        let key = SymmetricKey(data: try await storage.serverSecret())
        let code = HMAC<SHA256>.authenticationCode(for: Data("prelogin-salt\u{0}\(request.account)".utf8), using: key)
        return PreloginReply(salt: Data(code).prefix(Self.fakeSaltLength), rounds: Self.fakeRounds)
    }

    /// Signs a new device in.
    ///
    /// - Parameter request: The account, its secret and the device's name.
    /// - Returns: The new device's session.
    /// - Throws: ``SyncServiceError/unauthorized(_:)`` for an unknown account or a wrong
    ///   secret, ``SyncServiceError/accountDisabled`` for the right secret of a disabled
    ///   account, ``SyncServiceError/tooManyAttempts(_:)`` after too many failures,
    ///   ``SyncServiceError/badRequest(_:)`` for bad names.
    package func login(_ request: LoginRequest, from address: ClientAddress = .unknown) async throws -> SessionReply {
        try Self.checkNames(account: request.account, device: request.device)
        let date = now()
        let account = try await storage.account(named: request.account)
        try await proveSecret(request.authenticationSecret, against: account?.passwordHash, account: request.account, from: address,
                              refusal: .unauthorized("wrong account or secret"))
        guard let account else { throw SyncServiceError.unauthorized("wrong account or secret") }
        guard account.disabledAt == nil else { throw SyncServiceError.accountDisabled }
        let token = SessionToken.generate()
        let device = NewDevice(id: Self.newID(), accountID: account.id, name: request.device, tokenHash: SessionToken.hash(token), createdAt: date)
        do {
            try await storage.addDevice(device)
        } catch ServerStorageError.unknownAccount {
            throw SyncServiceError.unauthorized("wrong account or secret")
        }
        return SessionReply(token: token, deviceID: device.id, wrappedKey: account.wrappedKey, recoveryWrappedKey: account.recoveryWrappedKey)
    }

    // MARK: Keys

    /// Replaces the account's password: the current one's secret proves it (rate-limited like
    /// sign-in); the data key stays, wrapped anew. Every device keeps its token.
    ///
    /// - Parameters:
    ///   - request: The current secret and the new material.
    ///   - session: The asking device.
    /// - Throws: ``SyncServiceError/forbidden(_:)`` for a wrong current password,
    ///   ``SyncServiceError/tooManyAttempts(_:)`` after too many failures,
    ///   ``SyncServiceError/badRequest(_:)`` for malformed material,
    ///   ``SyncServiceError/conflict(_:)`` when another change came first.
    package func changePassword(_ request: PasswordChangeRequest, session: DeviceSession, from address: ClientAddress = .unknown) async throws {
        try KeyMaterialRules.check(secret: request.newAuthenticationSecret, salt: request.salt, rounds: request.rounds, wrappedKey: request.wrappedKey)
        guard let account = try await storage.account(id: session.accountID) else { throw SyncServiceError.unauthorized("the account is gone") }
        try await proveSecret(request.authenticationSecret, against: account.passwordHash, account: account.name, from: address,
                              refusal: .forbidden("the current password is wrong"))
        let material = PasswordMaterial(passwordHash: try await bcrypt(request.newAuthenticationSecret), salt: request.salt, rounds: request.rounds, wrappedKey: request.wrappedKey)
        guard try await storage.replacePassword(accountID: account.id, expectedHash: account.passwordHash, with: material, addingDevice: nil) else {
            throw SyncServiceError.conflict("the password changed meanwhile; try again with the new one")
        }
    }

    /// The data key wrapped by the recovery key, for whoever proves the recovery key
    /// (rate-limited like sign-in; an unknown account, an account without recovery and a
    /// wrong key get the same answer; the right key of a disabled account gets
    /// ``SyncServiceError/accountDisabled``).
    package func recoveryKey(_ request: RecoveryKeyRequest, from address: ClientAddress = .unknown) async throws -> RecoveryKeyReply {
        let account = try await recoverableAccount(request.account, secret: request.recoverySecret, from: address)
        return RecoveryKeyReply(recoveryWrappedKey: account.recoveryWrappedKey)
    }

    /// Sets a new password with the recovery key and signs a new device in. The old password
    /// stops working; devices signed in stay.
    ///
    /// - Throws: ``SyncServiceError/unauthorized(_:)`` for an unknown account or a wrong
    ///   recovery key, ``SyncServiceError/accountDisabled`` for the right key of a disabled
    ///   account, ``SyncServiceError/tooManyAttempts(_:)``,
    ///   ``SyncServiceError/badRequest(_:)`` for malformed material or names.
    package func recover(_ request: RecoverRequest, from address: ClientAddress = .unknown) async throws -> SessionReply {
        try Self.checkNames(account: request.account, device: request.device)
        try KeyMaterialRules.check(secret: request.authenticationSecret, salt: request.salt, rounds: request.rounds, wrappedKey: request.wrappedKey)
        let account = try await recoverableAccount(request.account, secret: request.recoverySecret, from: address)
        let material = PasswordMaterial(passwordHash: try await bcrypt(request.authenticationSecret), salt: request.salt, rounds: request.rounds, wrappedKey: request.wrappedKey)
        let token = SessionToken.generate()
        let device = NewDevice(id: Self.newID(), accountID: account.id, name: request.device, tokenHash: SessionToken.hash(token), createdAt: now())
        guard try await storage.replacePassword(accountID: account.id, expectedHash: account.passwordHash, with: material, addingDevice: device) else {
            throw SyncServiceError.conflict("the password changed meanwhile; try again")
        }
        return SessionReply(token: token, deviceID: device.id, wrappedKey: request.wrappedKey, recoveryWrappedKey: account.recoveryWrappedKey)
    }

    /// Deletes the account and everything of it on the server, proved by the password's
    /// secret (rate-limited like sign-in): its published votes are withdrawn first (counts
    /// drop), then its devices, logs, operations and shared lists go, and its event streams end.
    package func deleteAccount(_ request: AccountDeletionRequest, session: DeviceSession, from address: ClientAddress = .unknown) async throws {
        guard let account = try await storage.account(id: session.accountID) else { throw SyncServiceError.unauthorized("the account is gone") }
        try await proveSecret(request.authenticationSecret, against: account.passwordHash, account: account.name, from: address, refusal: .forbidden("the password is wrong"))
        guard try await storage.withdrawVotesAndDeleteAccount(id: account.id, now: now) else {
            throw SyncServiceError.conflict("the account kept publishing while it was being deleted; try again")
        }
    }

    /// The account named, once the recovery secret is proved against it.
    private func recoverableAccount(_ name: String, secret: Data, from address: ClientAddress) async throws -> StoredAccount {
        guard NameRules.isValid(name) else { throw SyncServiceError.badRequest("the account name must be 1 to \(SyncProtocol.maximumNameLength) characters, without control characters") }
        let account = try await storage.account(named: name)
        try await proveSecret(secret, against: account?.recoveryHash, account: name, from: address, refusal: .unauthorized("wrong account or recovery key"))
        guard let account else { throw SyncServiceError.unauthorized("wrong account or recovery key") }
        guard account.disabledAt == nil else { throw SyncServiceError.accountDisabled }
        return account
    }

    /// Checks a secret against a bcrypt hash (a decoy when there is none, so that takes as long),
    /// counting failures per account name like sign-in.
    private func proveSecret(_ secret: Data, against hash: String?, account name: String, from address: ClientAddress, refusal: SyncServiceError) async throws {
        let attempt: SignInRateLimiter.Attempt
        do {
            attempt = try await limiter.begin(account: name, address: address.key, now: now())
        } catch {
            throw SyncServiceError.tooManyAttempts(error.byAccount
                ? "too many failed attempts for \(name) from several places; try again in \(error.retryAfter) s"
                : "too many failed attempts from this address; try again in \(error.retryAfter) s")
        }
        // A secret of the wrong size is refused without hashing it (but counted like a wrong one).
        let sized = (1...KeyMaterialRules.maximumSecret).contains(secret.count)
        let text = sized ? secret.base64EncodedString() : ""
        let stored = hash ?? decoyHash
        let matches: Bool
        do {
            matches = sized ? try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(text, hash: stored) } : false
        } catch {
            await limiter.finish(attempt, succeeded: false, now: now())
            throw error
        }
        let proved = hash != nil && matches
        await limiter.finish(attempt, succeeded: proved, now: now())
        guard proved else { throw refusal }
    }

    private func bcrypt(_ secret: Data) async throws -> String {
        let text = secret.base64EncodedString()
        let cost = bcryptCost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(text, cost: cost) }
    }

    // MARK: Devices

    /// The device a bearer token belongs to.
    ///
    /// - Parameter token: The token from `Authorization: Bearer`.
    /// - Returns: The session.
    /// - Throws: ``SyncServiceError/unauthorized(_:)`` for an unknown or revoked token,
    ///   ``SyncServiceError/accountDisabled`` when the server's operator disabled the account.
    package func authenticate(token: String) async throws -> DeviceSession {
        guard !token.isEmpty, token.count <= 256, let session = try await storage.session(tokenHash: SessionToken.hash(token), seenAt: now()) else {
            throw SyncServiceError.unauthorized("invalid or revoked token")
        }
        guard !session.accountDisabled else { throw SyncServiceError.accountDisabled }
        return session
    }

    /// Revokes the asking device (its token stops working).
    ///
    /// - Parameter session: The asking device.
    package func logout(_ session: DeviceSession) async throws {
        _ = try await storage.removeDevice(id: session.deviceID, accountID: session.accountID)
        storage.events.end(deviceID: session.deviceID)
    }

    /// The account's devices.
    ///
    /// - Parameter session: The asking device.
    /// - Returns: The devices, oldest first, the asking one marked.
    package func devices(_ session: DeviceSession) async throws -> [DeviceInfo] {
        try await storage.devices(accountID: session.accountID).map { device in
            DeviceInfo(id: device.id, name: device.name, createdAt: device.createdAt, lastSeenAt: device.lastSeenAt, isCurrent: device.id == session.deviceID)
        }
    }

    /// Revokes one of the account's devices.
    ///
    /// - Parameters:
    ///   - id: The device.
    ///   - session: The asking device.
    /// - Throws: ``SyncServiceError/notFound(_:)`` if the account has no such device.
    package func revokeDevice(id: String, session: DeviceSession) async throws {
        guard try await storage.removeDevice(id: id, accountID: session.accountID) else {
            throw SyncServiceError.notFound("no device \(id) in this account")
        }
        // Its open event streams end at once here; in other processes sharing a PostgreSQL
        // database, at their next keep-alive (the stream checks its token then).
        storage.events.end(deviceID: id)
    }

    // MARK: Logs

    /// Appends operations to one of the account's logs, once each.
    ///
    /// - Parameters:
    ///   - log: The log's name.
    ///   - request: The operations (at most ``SyncProtocol/maximumBatch``).
    ///   - session: The pushing device.
    /// - Returns: The epoch and the new head.
    /// - Throws: ``SyncServiceError/badRequest(_:)`` for a bad log name, too many operations,
    ///   or operations with empty or over-long ids.
    package func push(log: String, request: SyncPushRequest, session: DeviceSession) async throws -> SyncPushReply {
        try Self.checkLog(log)
        guard request.operations.count <= SyncProtocol.maximumBatch else {
            throw SyncServiceError.badRequest("a push carries at most \(SyncProtocol.maximumBatch) operations")
        }
        guard request.operations.allSatisfy({ !$0.id.isEmpty && $0.id.utf8.count <= 256 && $0.slot.utf8.count <= 1024 }) else {
            throw SyncServiceError.badRequest("operation ids must be 1 to 256 bytes and slots at most 1024")
        }
        guard request.operations.allSatisfy({ SyncProtocol.size(of: $0) <= SyncProtocol.maximumOperationBytes }) else {
            throw SyncServiceError.badRequest("an operation is at most \(SyncProtocol.maximumOperationBytes) bytes")
        }
        guard request.operations.reduce(0, { $0 + SyncProtocol.size(of: $1) }) <= SyncProtocol.maximumPushBytes else {
            throw SyncServiceError.badRequest("a push carries at most \(SyncProtocol.maximumPushBytes) bytes of operations")
        }
        do {
            let outcome = try await storage.push(accountID: session.accountID, log: log, operations: request.operations, quota: policy.quotaBytes)
            metrics.stored(outcome.stored)
            return SyncPushReply(epoch: outcome.epoch, head: outcome.head, serverTime: serverTime())
        } catch ServerStorageError.unknownAccount {
            throw SyncServiceError.unauthorized("the account is gone")
        } catch ServerStorageError.quotaExceeded(let used, let quota) {
            throw Self.quotaError(used: used, quota: quota)
        }
    }

    /// The refusal of a write past the quota: one line naming the quota and the usage.
    static func quotaError(used: Int64, quota: Int64) -> SyncServiceError {
        let format = ByteCountFormatStyle(style: .file)
        return .quotaExceeded("the account's storage quota is full: \(Int64(used).formatted(format)) used of \(quota.formatted(format)); compact it ('suite sync --compact') or ask the server's operator for more")
    }

    /// What the account stores and may store.
    package func usage(_ session: DeviceSession) async throws -> AccountUsageReply {
        AccountUsageReply(bytes: try await storage.usage(accountID: session.accountID), quotaBytes: policy.quotaBytes)
    }

    /// A page of one of the account's logs.
    ///
    /// - Parameters:
    ///   - log: The log's name.
    ///   - after: The position after which to start (0 for the beginning).
    ///   - limit: The most operations wanted (capped at ``SyncProtocol/maximumBatch``).
    ///   - session: The pulling device.
    /// - Returns: The page.
    /// - Throws: ``SyncServiceError/badRequest(_:)`` for a bad log name or negative numbers.
    package func pull(log: String, after: Int64, limit: Int?, session: DeviceSession) async throws -> SyncPullReply {
        try Self.checkLog(log)
        guard after >= 0 else { throw SyncServiceError.badRequest("after must not be negative") }
        let limit = limit ?? SyncProtocol.maximumBatch
        guard limit >= 1 else { throw SyncServiceError.badRequest("limit must be at least 1") }
        do {
            var reply = try await storage.pull(
                accountID: session.accountID, log: log, after: after, limit: min(limit, SyncProtocol.maximumBatch), maximumBytes: SyncProtocol.pullByteBudget)
            reply.serverTime = serverTime()
            return reply
        } catch ServerStorageError.unknownAccount {
            throw SyncServiceError.unauthorized("the account is gone")
        }
    }

    /// One page of a compaction of one of the account's logs (see ``SyncCompactRequest``).
    ///
    /// - Parameters:
    ///   - log: The log's name.
    ///   - request: The page (at most ``SyncProtocol/maximumKeepPage`` ids).
    ///   - session: The compacting device.
    /// - Returns: What the last page kept and removed.
    /// - Throws: ``SyncServiceError/badRequest(_:)`` for a bad log name, too many or malformed
    ///   ids; ``SyncServiceError/conflict(_:)`` when the log is not as the device read it.
    package func compact(log: String, request: SyncCompactRequest, session: DeviceSession) async throws -> SyncCompactReply {
        try Self.checkLog(log)
        guard request.keep.count <= SyncProtocol.maximumKeepPage else {
            throw SyncServiceError.badRequest("a compaction page names at most \(SyncProtocol.maximumKeepPage) operations")
        }
        guard request.through >= 1, !request.anchor.isEmpty, request.anchor.utf8.count <= 256,
              request.keep.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }) else {
            throw SyncServiceError.badRequest("a compaction needs a position of at least 1 and operation ids of 1 to 256 bytes")
        }
        do {
            let reply = try await storage.compact(accountID: session.accountID, log: log, request: request, now: now())
            metrics.compacted(reply.removed)
            return reply
        } catch ServerStorageError.logMoved(let reason) {
            throw SyncServiceError.conflict("the log is not as this device read it (\(reason)); sync again")
        } catch ServerStorageError.unknownAccount {
            throw SyncServiceError.unauthorized("the account is gone")
        }
    }

    /// The clock's reading for an answer's `serverTime`: devices measure their own clock's
    /// offset by it (a device far ahead sends nothing until it is set right).
    private func serverTime() -> Int64 {
        Int64((now().timeIntervalSince1970 * 1000).rounded())
    }

    // MARK: Rules

    private static func checkNames(account: String, device: String) throws {
        guard NameRules.isValid(account) else {
            throw SyncServiceError.badRequest("the account name must be 1 to \(SyncProtocol.maximumNameLength) characters, without control characters")
        }
        guard NameRules.isValid(device) else {
            throw SyncServiceError.badRequest("the device name must be 1 to \(SyncProtocol.maximumNameLength) characters, without control characters")
        }
    }

    private static func checkLog(_ log: String) throws {
        guard SyncProtocol.isValidLogName(log) else {
            throw SyncServiceError.badRequest("a log name is 1 to \(SyncProtocol.maximumNameLength) lower-case letters, digits or '-'")
        }
    }

    static func newID() -> String {
        UUID().uuidString.lowercased()
    }
}
