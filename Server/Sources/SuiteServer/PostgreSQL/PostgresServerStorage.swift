import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import ServiceLifecycle
import SuiteSyncProtocol

/// The storage on a PostgreSQL database, which several server processes may share.
///
/// Requests use a connection pool; every transaction goes through ``PostgresTransaction``.
/// A push that stores something sends `pg_notify('suite_sync', ACCOUNT || ' ' || LOG)` in its
/// transaction, and every process LISTENs on a dedicated connection and feeds what it hears to
/// ``events``, so an event stream hears about pushes served by any process.
package final class PostgresServerStorage: ServerStorage {
    /// The notification channel.
    package static let channel = "suite_sync"

    package let events = SyncEventHub()
    private let url: PostgresURL
    let pool: PostgresPool
    let logger: Logger
    private let secret: Data
    private let isListening = NIOLockedValueBox(false)

    /// Connects, brings the schema up to date and makes sure the server secret exists.
    ///
    /// Call ``run()`` (or add the storage to a service group) before using it.
    /// - Parameters:
    ///   - url: The database.
    ///   - maximumConnections: The pool's size.
    ///   - logger: Where the storage and the driver log.
    /// - Throws: ``ServerStorageError/unavailable(_:)`` if the database cannot be reached,
    ///   ``ServerStorageError/migrationFailed(_:)`` if the schema cannot be updated.
    package init(url: PostgresURL, maximumConnections: Int = 20, logger: Logger) async throws {
        self.url = url
        self.logger = logger
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 0, logger: logger)
        } catch {
            throw ServerStorageError.unavailable("cannot connect to \(url): \(Self.oneLine(error))")
        }
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
            let candidate = ByteBuffer(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max) })
            try await connection.query(
                "INSERT INTO server_settings (key, value) VALUES ('secret', \(candidate)) ON CONFLICT (key) DO NOTHING",
                logger: logger)
            var stored: Data?
            for try await value in try await connection.query("SELECT value FROM server_settings WHERE key = 'secret'", logger: logger).decode(Data.self) {
                stored = value
            }
            try? await connection.close()
            guard let stored else { throw ServerStorageError.corrupt("the server secret is missing") }
            secret = stored
        } catch let error as ServerStorageError {
            try? await connection.close()
            throw error
        } catch {
            try? await connection.close()
            throw ServerStorageError.migrationFailed(Self.oneLine(error))
        }
        var configuration = url.clientConfiguration
        configuration.options.maximumConnections = max(1, maximumConnections)
        pool = PostgresPool(configuration: configuration, probe: url.connectionConfiguration, logger: logger)
    }

    /// Whether the database already holds a suite-server's tables (a restore goes only into one
    /// that does not).
    package static func hasSchema(url: PostgresURL) async throws -> Bool {
        let logger = Logger(label: "suite-server-restore")
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 3, logger: logger)
        } catch {
            throw ServerStorageError.unavailable("cannot connect to \(url): \(oneLine(error))")
        }
        var found = false
        do {
            for try await exists in try await connection.query("SELECT to_regclass('accounts') IS NOT NULL", logger: logger).decode(Bool.self) {
                found = exists
            }
        } catch {
            try? await connection.close()
            throw ServerStorageError.unavailable("cannot read \(url): \(oneLine(error))")
        }
        try? await connection.close()
        return found
    }

    /// Runs the connection pool and the notification listener until graceful shutdown (or
    /// cancellation), then ends the event streams.
    package func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.pool.run() }
            group.addTask { await self.listen() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        events.close()
    }

    package func waitUntilReady() async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(15))
        while !isListening.withLockedValue({ $0 }) {
            guard clock.now < deadline else {
                throw ServerStorageError.unavailable("cannot listen for notifications on \(url)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// LISTENs on a connection of its own, reconnecting after failures, until cancelled.
    private func listen() async {
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 1, logger: logger)
                await withTaskCancellationHandler {
                    do {
                        try await connection.listen(on: Self.channel) { notifications in
                            isListening.withLockedValue { $0 = true }
                            for try await notification in notifications {
                                let parts = notification.payload.split(separator: " ", maxSplits: 1)
                                if parts.count == 2 {
                                    events.publish(accountID: String(parts[0]), log: String(parts[1]))
                                }
                            }
                        }
                    } catch {
                        if !Task.isCancelled {
                            logger.warning("notification listener stopped: \(Self.oneLine(error))")
                        }
                    }
                } onCancel: {
                    let closing: EventLoopFuture<Void> = connection.close()
                    _ = closing
                }
                isListening.withLockedValue { $0 = false }
                try? await connection.close()
            } catch {
                logger.warning("notification listener cannot connect: \(Self.oneLine(error))")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Runs a body in a transaction on a pooled connection (see ``PostgresTransaction``).
    ///
    /// A request never waits on a connection the database cut (a restart, a shutdown): it fails
    /// at once with ``ServerStorageError/unavailable(_:)`` (503, try again), whether the driver
    /// reports the cut or leaves a query sent at that moment waiting forever
    /// (``PostgresConnectionWatch``). The transaction then did not commit, or committed just
    /// before the cut, as when a commit's answer is lost: a push tried again stores each
    /// operation once either way.
    ///
    /// - Parameter body: The work.
    /// - Returns: The body's result, once committed.
    /// - Throws: The body's error after a rollback, or the database's.
    package func withTransaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await withWatchedConnection { [logger] connection in
            try await PostgresTransaction.run(on: connection, logger: logger, body)
        }
    }

    /// Runs a body on a pooled connection, outside a transaction (for single statements), with
    /// the watch of ``withTransaction(_:)``: a connection the database cuts fails the request at
    /// once with ``ServerStorageError/unavailable(_:)``.
    func withWatchedConnection<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            // When the watch gives up, the connection goes back to the pool while the abandoned
            // work still holds it: harmless, as a closed connection never opens again and the
            // pool does not lend it.
            return try await pool.withConnection { [logger] connection in
                try await PostgresConnectionWatch.abandoningIfClosed(connection, logger: logger) { try await body(connection) }
            }
        } catch let error as PSQLError where PostgresConnectionWatch.isConnectionLoss(error) {
            throw ServerStorageError.unavailable("the connection to the database was cut: \(Self.oneLine(error))")
        }
    }

    package func serverSecret() async throws -> Data {
        secret
    }

    package func createAccount(_ account: StoredAccount, device: NewDevice, invite: InviteClaim?) async throws {
        try await withTransaction { [logger] connection in
            let rows = try await connection.query("""
                INSERT INTO accounts (id, name, password_hash, salt, rounds, wrapped_key, recovery_wrapped_key, epoch, created_at, recovery_hash)
                VALUES (\(account.id), \(account.name), \(account.passwordHash), \(account.salt), \(account.rounds),
                        \(account.wrappedKey), \(account.recoveryWrappedKey), \(account.epoch), \(account.createdAt), \(account.recoveryHash))
                ON CONFLICT (name) DO NOTHING RETURNING id
                """, logger: logger)
            guard try await rows.collect().count == 1 else { throw ServerStorageError.accountExists }
            if let invite {
                let used = try await connection.query("""
                    UPDATE invites SET used_at = \(invite.at), used_by = \(account.id)
                    WHERE code_hash = \(invite.codeHash) AND used_at IS NULL AND expires_at > \(invite.at) RETURNING 1
                    """, logger: logger)
                guard try await used.collect().count == 1 else { throw ServerStorageError.inviteRefused }
            }
            try await connection.query("INSERT INTO account_usage (account_id, bytes) VALUES (\(account.id), 0)", logger: logger)
            try await Self.insert(device, connection: connection, logger: logger)
        }
    }

    package func createInvite(codeHash: String, createdAt: Date, expiresAt: Date) async throws {
        _ = try await withWatchedConnection { [logger] connection in
            try await connection.query("INSERT INTO invites (code_hash, created_at, expires_at) VALUES (\(codeHash), \(createdAt), \(expiresAt))", logger: logger)
        }
    }

    package func inviteIsUsable(codeHash: String, at date: Date) async throws -> Bool {
        try await withWatchedConnection { [logger] connection in
            let rows = try await connection.query("""
                SELECT 1 FROM invites WHERE code_hash = \(codeHash) AND used_at IS NULL AND expires_at > \(date)
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    package func usage(accountID: String) async throws -> Int64 {
        try await withWatchedConnection { [logger] connection in
            var bytes: Int64 = 0
            for try await value in try await connection.query("SELECT bytes FROM account_usage WHERE account_id = \(accountID)", logger: logger).decode(Int64.self) {
                bytes = value
            }
            return bytes
        }
    }

    /// Adds bytes to an account's usage (the row lock orders concurrent writers of the
    /// account); past the quota (when they add), throws, and the caller's transaction rolls back.
    static func addUsage(_ bytes: Int64, accountID: String, quota: Int64?, connection: PostgresConnection, logger: Logger) async throws {
        var total: Int64 = 0
        for try await value in try await connection.query("""
            INSERT INTO account_usage (account_id, bytes) VALUES (\(accountID), \(bytes))
            ON CONFLICT (account_id) DO UPDATE SET bytes = GREATEST(0, account_usage.bytes + EXCLUDED.bytes) RETURNING bytes
            """, logger: logger).decode(Int64.self) {
            total = value
        }
        try AccountQuota.check(adding: bytes, to: total - bytes, quota: quota)
    }

    package func account(named name: String) async throws -> StoredAccount? {
        return try await withWatchedConnection { [logger] connection in
            let rows = try await connection.query("""
                SELECT id, name, password_hash, salt, rounds, wrapped_key, recovery_wrapped_key, epoch, created_at, recovery_hash, disabled_at
                FROM accounts WHERE name = \(name)
                """, logger: logger)
            return try await Self.firstAccount(rows)
        }
    }

    package func account(id: String) async throws -> StoredAccount? {
        return try await withWatchedConnection { [logger] connection in
            let rows = try await connection.query("""
                SELECT id, name, password_hash, salt, rounds, wrapped_key, recovery_wrapped_key, epoch, created_at, recovery_hash, disabled_at
                FROM accounts WHERE id = \(id)
                """, logger: logger)
            return try await Self.firstAccount(rows)
        }
    }

    private static func firstAccount(_ rows: PostgresRowSequence) async throws -> StoredAccount? {
        var found: StoredAccount?
        for try await (id, name, hash, salt, rounds, wrapped, recovery, epoch, createdAt, recoveryHash, disabledAt)
            in rows.decode((String, String, String, Data, Int, Data, Data, String, Date, String?, Date?).self) {
            found = StoredAccount(id: id, name: name, passwordHash: hash, salt: salt, rounds: rounds, wrappedKey: wrapped, recoveryWrappedKey: recovery,
                                  epoch: epoch, createdAt: createdAt, recoveryHash: recoveryHash, disabledAt: disabledAt)
        }
        return found
    }

    package func accountSummaries(named name: String?) async throws -> [AccountSummary] {
        try await withWatchedConnection { [logger] connection in
            let rows = try await connection.query("""
                SELECT a.id, a.name, a.created_at, a.disabled_at,
                       (SELECT max(GREATEST(d.created_at, d.last_seen_at)) FROM devices d WHERE d.account_id = a.id),
                       (SELECT count(*) FROM devices d WHERE d.account_id = a.id)::bigint,
                       (SELECT count(*) FROM logs l WHERE l.account_id = a.id)::bigint,
                       (SELECT count(*) FROM operations o WHERE o.account_id = a.id AND o.removed_ms IS NULL)::bigint,
                       COALESCE((SELECT u.bytes FROM account_usage u WHERE u.account_id = a.id), 0)::bigint
                FROM accounts a WHERE \(name)::text IS NULL OR a.name = \(name) ORDER BY a.name
                """, logger: logger)
            var summaries: [AccountSummary] = []
            for try await (id, name, createdAt, disabledAt, deviceActivity, devices, logs, operations, bytes)
                in rows.decode((String, String, Date, Date?, Date?, Int64, Int64, Int64, Int64).self) {
                summaries.append(AccountSummary(
                    id: id, name: name, createdAt: createdAt, lastActivityAt: max(createdAt, deviceActivity ?? createdAt),
                    devices: devices, logs: logs, operations: operations, bytes: bytes, disabledAt: disabledAt))
            }
            return summaries
        }
    }

    package func setAccountDisabled(id: String, at date: Date?) async throws -> Bool {
        try await withWatchedConnection { [logger] connection in
            let rows = if let date {
                try await connection.query("UPDATE accounts SET disabled_at = COALESCE(disabled_at, \(date)) WHERE id = \(id) RETURNING id", logger: logger)
            } else {
                try await connection.query("UPDATE accounts SET disabled_at = NULL WHERE id = \(id) RETURNING id", logger: logger)
            }
            return try await rows.collect().count == 1
        }
    }

    package func replacePassword(accountID: String, expectedHash: String, with material: PasswordMaterial, addingDevice device: NewDevice?) async throws -> Bool {
        try await withTransaction { [logger] connection in
            let rows = try await connection.query("""
                UPDATE accounts SET password_hash = \(material.passwordHash), salt = \(material.salt), rounds = \(material.rounds), wrapped_key = \(material.wrappedKey)
                WHERE id = \(accountID) AND password_hash = \(expectedHash) RETURNING id
                """, logger: logger)
            guard try await rows.collect().count == 1 else { return false }
            if let device { try await Self.insert(device, connection: connection, logger: logger) }
            return true
        }
    }

    package func deleteAccount(id: String) async throws -> Bool {
        try await withTransaction { [logger] connection in
            // Publishing takes the settings row's lock: none can start until this commits. Votes
            // still there (published again since they were withdrawn) would leave their items'
            // counts too high: the caller withdraws them and asks again.
            try await connection.query("SELECT 1 FROM community_settings WHERE account_id = \(id) FOR UPDATE", logger: logger)
            let votes = try await connection.query("SELECT 1 FROM community_votes WHERE account_id = \(id) LIMIT 1", logger: logger)
            guard try await votes.collect().isEmpty else { return false }
            // Devices, logs, operations, settings and shared lists go by cascade.
            let rows = try await connection.query("DELETE FROM accounts WHERE id = \(id) RETURNING id", logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    package func addDevice(_ device: NewDevice) async throws {
        try await withTransaction { [logger] connection in
            let rows = try await connection.query("SELECT 1 FROM accounts WHERE id = \(device.accountID) FOR SHARE", logger: logger)
            guard try await rows.collect().count == 1 else { throw ServerStorageError.unknownAccount }
            try await Self.insert(device, connection: connection, logger: logger)
        }
    }

    private static func insert(_ device: NewDevice, connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO devices (id, account_id, name, token_hash, created_at)
            VALUES (\(device.id), \(device.accountID), \(device.name), \(device.tokenHash), \(device.createdAt))
            """, logger: logger)
    }

    package func session(tokenHash: String, seenAt: Date) async throws -> DeviceSession? {
        return try await withWatchedConnection { [logger] connection in
            let rows = try await connection.query("""
                SELECT d.id, d.account_id, d.last_seen_at, a.disabled_at IS NOT NULL
                FROM devices d JOIN accounts a ON a.id = d.account_id WHERE d.token_hash = \(tokenHash)
                """, logger: logger)
            var found: (session: DeviceSession, lastSeenAt: Date?)?
            for try await (id, accountID, lastSeenAt, disabled) in rows.decode((String, String, Date?, Bool).self) {
                found = (DeviceSession(accountID: accountID, deviceID: id, accountDisabled: disabled), lastSeenAt)
            }
            guard let found else { return nil }
            if found.lastSeenAt.map({ seenAt.timeIntervalSince($0) >= LastSeen.resolution }) ?? true {
                try await connection.query("UPDATE devices SET last_seen_at = \(seenAt) WHERE id = \(found.session.deviceID)", logger: logger)
            }
            return found.session
        }
    }

    package func devices(accountID: String) async throws -> [StoredDevice] {
        return try await withWatchedConnection { [logger] connection in
            let rows = try await connection.query("""
                SELECT id, name, created_at, last_seen_at FROM devices WHERE account_id = \(accountID) ORDER BY created_at, id
                """, logger: logger)
            var devices: [StoredDevice] = []
            for try await (id, name, createdAt, lastSeenAt) in rows.decode((String, String, Date, Date?).self) {
                devices.append(StoredDevice(id: id, name: name, createdAt: createdAt, lastSeenAt: lastSeenAt))
            }
            return devices
        }
    }

    package func removeDevice(id: String, accountID: String) async throws -> Bool {
        return try await withWatchedConnection { [logger] connection in
            let rows = try await connection.query("DELETE FROM devices WHERE id = \(id) AND account_id = \(accountID) RETURNING id", logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    /// A transaction: `suite_push_facts` (schema migration 8) takes the account's epoch (a share
    /// lock, so it cannot change meanwhile), creates the log if need be and locks its row
    /// (ordering concurrent pushes to it), locks the account's usage (ordering pushes to its
    /// other logs against the quota) and says which of the batch's ids the log holds;
    /// ``PushPlan`` decides from that, and ``AccountQuota`` refuses it before anything is
    /// written; `suite_push_write` adds the usage, moves the head, stores the operations at the
    /// plan's positions and calls `pg_notify` (delivered at commit).
    package func push(accountID: String, log: String, operations: [SyncEnvelope], quota: Int64?) async throws -> PushOutcome {
        let candidates = PushPlan.candidates(operations)
        return try await withTransaction { [logger] connection in
            var facts: (epoch: String, head: Int64, used: Int64, stored: [String])?
            for try await row in try await connection.query(
                "SELECT r_epoch, r_head, r_used, r_stored FROM suite_push_facts(\(accountID), \(log), \(candidates.map(\.id))::text[])",
                logger: logger
            ).decode((String, Int64, Int64, [String]).self) {
                facts = (row.0, row.1, row.2, row.3)
            }
            guard let facts else { throw ServerStorageError.unknownAccount }
            let plan = PushPlan(candidates: candidates, stored: Set(facts.stored), head: facts.head)
            guard !plan.operations.isEmpty else { return plan.outcome(epoch: facts.epoch) }
            try AccountQuota.check(adding: plan.bytes, to: facts.used, quota: quota)
            let positions = plan.operations.indices.map(plan.position(at:))
            let ids = plan.operations.map(\.id), slots = plan.operations.map(\.slot)
            let payloads = plan.operations.map { ByteBuffer(bytes: $0.payload) }
            var written: (moved: Int64, inserted: Int64)?
            for try await row in try await connection.query("""
                SELECT r_moved, r_inserted FROM suite_push_write(\(accountID), \(log), \(plan.head), \(plan.newHead), \(positions)::bigint[],
                    \(ids)::text[], \(slots)::text[], \(payloads)::bytea[], \(plan.bytes), \(Self.channel))
                """, logger: logger).decode((Int64, Int64).self) {
                written = (row.0, row.1)
            }
            guard let written, written.moved == 1 else { throw ServerStorageError.corrupt("the log \(log) moved during a push") }
            guard written.inserted == Int64(plan.operations.count) else {
                throw ServerStorageError.corrupt("\(Int64(plan.operations.count) - written.inserted) operations appeared in \(log) during a push")
            }
            return plan.outcome(epoch: facts.epoch)
        }
    }

    package func pull(accountID: String, log: String, after: Int64, limit: Int, maximumBytes: Int) async throws -> SyncPullReply {
        return try await withWatchedConnection { [logger] connection in
            // The head first, and operations only up to it: a push commits its operations with
            // its head, so every operation up to this head is visible to the next statement.
            let summary = try await connection.query("""
                SELECT a.epoch, COALESCE(l.head, 0), COALESCE(l.compacted_through, 0), COALESCE(l.compacted_kept, 0),
                       (SELECT op_id FROM operations WHERE account_id = a.id AND log = \(log) AND position = \(after))
                FROM accounts a LEFT JOIN logs l ON l.account_id = a.id AND l.name = \(log) WHERE a.id = \(accountID)
                """, logger: logger)
            var found: (epoch: String, head: Int64, through: Int64, kept: Int64, anchor: String?)?
            for try await row in summary.decode((String, Int64, Int64, Int64, String?).self) {
                found = (row.0, row.1, row.2, row.3, row.4)
            }
            guard let found else { throw ServerStorageError.unknownAccount }
            // The sizes first (octet_length reads no payload), then the operations of the page
            // that fits the byte budget.
            let sizes = try await connection.query("""
                SELECT position, octet_length(op_id) + octet_length(slot) + octet_length(payload) FROM operations
                WHERE account_id = \(accountID) AND log = \(log) AND position > \(after) AND position <= \(found.head) AND removed_ms IS NULL
                ORDER BY position LIMIT \(Int64(limit))
                """, logger: logger)
            var through = after, bytes = 0, count = 0, full = false
            for try await (position, size) in sizes.decode((Int64, Int32).self) {
                if full { continue }
                if count > 0 && bytes + Int(size) > maximumBytes {
                    full = true
                    continue
                }
                bytes += Int(size)
                count += 1
                through = position
            }
            let rows = try await connection.query("""
                SELECT position, op_id, slot, payload FROM operations
                WHERE account_id = \(accountID) AND log = \(log) AND position > \(after) AND position <= \(through) AND removed_ms IS NULL
                ORDER BY position
                """, logger: logger)
            var operations: [SyncEnvelope] = []
            var last = after
            for try await (position, id, slot, payload) in rows.decode((Int64, String, String, Data).self) {
                operations.append(SyncEnvelope(id: id, slot: slot, payload: payload))
                last = position
            }
            // A page short of its limit (not of its bytes) read everything up to the head
            // (removed operations leave gaps).
            let next = count < limit && !full ? max(last, found.head) : last
            return SyncPullReply(epoch: found.epoch, head: found.head, operations: operations, next: next, anchor: after > 0 ? found.anchor : nil,
                                 compacted: found.through > 0 ? found.through : nil,
                                 compactionWanted: CompactionPolicy.wanted(head: found.head, through: found.through, kept: found.kept) ? true : nil)
        }
    }

    package func compact(accountID: String, log: String, request: SyncCompactRequest, now: Date) async throws -> SyncCompactReply {
        try await withTransaction { [logger] connection in
            // The log's row lock orders this against pushes and other compactions of the log.
            var head: Int64?
            for try await value in try await connection.query(
                "SELECT head FROM logs WHERE account_id = \(accountID) AND name = \(log) FOR UPDATE", logger: logger
            ).decode(Int64.self) {
                head = value
            }
            guard let head, request.through >= 1, request.through <= head else {
                throw ServerStorageError.logMoved("position \(request.through) is not in the log")
            }
            var there: String?
            for try await id in try await connection.query(
                "SELECT op_id FROM operations WHERE account_id = \(accountID) AND log = \(log) AND position = \(request.through)", logger: logger
            ).decode(String.self) {
                there = id
            }
            guard there == request.anchor else { throw ServerStorageError.logMoved("another operation is at position \(request.through)") }
            let ids = request.keep + [request.anchor]
            try await connection.query("""
                UPDATE operations SET kept = GREATEST(kept, \(request.through))
                WHERE account_id = \(accountID) AND log = \(log) AND op_id = ANY(\(ids)) AND position <= \(request.through)
                """, logger: logger)
            guard request.done else { return SyncCompactReply(kept: 0, removed: 0) }
            let removedAt = Int64((now.timeIntervalSince1970 * 1000).rounded())
            var freed: Int64 = 0
            for try await value in try await connection.query("""
                SELECT COALESCE(sum(octet_length(slot) + octet_length(payload)), 0)::bigint FROM operations
                WHERE account_id = \(accountID) AND log = \(log) AND position <= \(request.through) AND kept < \(request.through) AND removed_ms IS NULL
                """, logger: logger).decode(Int64.self) {
                freed = value
            }
            try await Self.addUsage(-freed, accountID: accountID, quota: nil, connection: connection, logger: logger)
            var removed: Int64 = 0
            for try await count in try await connection.query("""
                WITH removed AS (
                    UPDATE operations SET slot = '', payload = ''::bytea, removed_ms = \(removedAt)
                    WHERE account_id = \(accountID) AND log = \(log) AND position <= \(request.through) AND kept < \(request.through) AND removed_ms IS NULL
                    RETURNING 1
                )
                SELECT count(*) FROM removed
                """, logger: logger).decode(Int64.self) {
                removed = count
            }
            var kept: Int64 = 0
            for try await count in try await connection.query("""
                SELECT count(*) FROM operations
                WHERE account_id = \(accountID) AND log = \(log) AND position <= \(request.through) AND removed_ms IS NULL
                """, logger: logger).decode(Int64.self) {
                kept = count
            }
            try await connection.query("""
                UPDATE logs SET compacted_through = \(request.through), compacted_kept = \(kept)
                WHERE account_id = \(accountID) AND name = \(log) AND compacted_through <= \(request.through)
                """, logger: logger)
            return SyncCompactReply(kept: kept, removed: removed)
        }
    }

    package func forgetRemovedOperations(removedBefore: Date) async throws -> [ForgottenOperations] {
        let cutoff = Int64((removedBefore.timeIntervalSince1970 * 1000).rounded())
        return try await withTransaction { [logger] connection in
            var forgotten: [ForgottenOperations] = []
            try await connection.query("""
                UPDATE account_usage u SET bytes = GREATEST(0, u.bytes - f.bytes)
                FROM (SELECT account_id, sum(octet_length(op_id) + 16)::bigint AS bytes FROM operations
                      WHERE removed_ms IS NOT NULL AND removed_ms < \(cutoff) GROUP BY account_id) f
                WHERE u.account_id = f.account_id
                """, logger: logger)
            for try await (account, log, count) in try await connection.query("""
                WITH gone AS (
                    DELETE FROM operations WHERE removed_ms IS NOT NULL AND removed_ms < \(cutoff) RETURNING account_id, log
                )
                SELECT a.name, g.log, count(*)::bigint FROM gone g JOIN accounts a ON a.id = g.account_id GROUP BY a.name, g.log ORDER BY a.name, g.log
                """, logger: logger).decode((String, String, Int64).self) {
                forgotten.append(ForgottenOperations(account: account, log: log, count: Int(count)))
            }
            return forgotten
        }
    }

    package func logSizes() async throws -> [LogSize] {
        return try await withWatchedConnection { [logger] connection in
            var sizes: [LogSize] = []
            for try await (account, log, head, compacted, operations, removed, bytes) in try await connection.query("""
                SELECT a.name, l.name, l.head, l.compacted_through,
                       (SELECT count(*) FROM operations o WHERE o.account_id = l.account_id AND o.log = l.name AND o.removed_ms IS NULL)::bigint,
                       (SELECT count(*) FROM operations o WHERE o.account_id = l.account_id AND o.log = l.name AND o.removed_ms IS NOT NULL)::bigint,
                       (SELECT COALESCE(sum(octet_length(o.op_id) + octet_length(o.slot) + octet_length(o.payload) + 16), 0)
                        FROM operations o WHERE o.account_id = l.account_id AND o.log = l.name)::bigint
                FROM logs l JOIN accounts a ON a.id = l.account_id ORDER BY a.name, l.name
                """, logger: logger).decode((String, String, Int64, Int64, Int64, Int64, Int64).self) {
                sizes.append(LogSize(account: account, log: log, head: head, operations: operations, removed: removed, bytes: bytes, compacted: compacted))
            }
            return sizes
        }
    }

    /// Every row of a table as text, for tests that check what is really stored.
    ///
    /// - Parameter table: A table name from the schema.
    /// - Returns: One text per row.
    package func dumpRows(of table: String) async throws -> [String] {
        return try await withWatchedConnection { [logger] connection in
            var result: [String] = []
            for try await text in try await connection.query("SELECT t::text FROM \(unescaped: table) t", logger: logger).decode(String.self) {
                result.append(text)
            }
            return result
        }
    }

    /// An error's description on one line (for messages that must be one line).
    static func oneLine(_ error: any Error) -> String {
        String(reflecting: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
