import Foundation
import GRDB
import ServiceLifecycle
import SuiteSyncProtocol

/// The storage on one SQLite file (`server.sqlite` in the data folder): WAL, `synchronous=FULL`,
/// the folder private to its owner (0700) and the file too (0600).
///
/// One server process per file: pushes are ordered by SQLite's single writer, and events go
/// straight to ``events``.
package final class SQLiteServerStorage: ServerStorage {
    /// The database file's name inside the data folder.
    package static let fileName = "server.sqlite"

    package let events = SyncEventHub()
    let pool: DatabasePool
    /// The group commit of pushes.
    private let pushes: GroupCommit<PushOutcome>
    /// The database file.
    package let fileURL: URL

    /// Opens (creating if needed) the storage in a data folder.
    ///
    /// - Parameter directory: The data folder; created with mode 0700 if missing.
    /// - Throws: ``ServerStorageError/dataDirectory(path:reason:)`` if the folder or the file
    ///   cannot be created, secured or opened, or the schema cannot be brought up to date.
    package init(directory: URL) throws {
        let fileManager = FileManager.default
        let path = directory.path
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ServerStorageError.dataDirectory(path: path, reason: "it is not a folder")
            }
        } else {
            do {
                try fileManager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ServerStorageError.dataDirectory(path: path, reason: "cannot create it (\(error.localizedDescription))")
            }
        }
        let fileURL = directory.appendingPathComponent(Self.fileName)
        self.fileURL = fileURL
        do {
            if !fileManager.fileExists(atPath: fileURL.path) {
                guard fileManager.createFile(atPath: fileURL.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw ServerStorageError.dataDirectory(path: path, reason: "cannot create \(Self.fileName)")
                }
            }
            try fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fileURL.path)
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw ServerStorageError.dataDirectory(path: path, reason: "cannot secure \(Self.fileName) (\(error.localizedDescription))")
        }

        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // What is deleted (unpublished favourites, ratings, shared lists) is overwritten,
            // not left in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        // A newer suite-server migrated this file: this one would not keep what those
        // migrations added right. Refused before anything is written (read-only: opening the
        // pool itself writes, to make the WAL files).
        if let size = (try? fileManager.attributesOfItem(atPath: fileURL.path)[.size] as? NSNumber)?.intValue, size > 0 {
            var readOnly = Configuration()
            readOnly.readonly = true
            let newer: Bool
            do {
                let queue = try DatabaseQueue(path: fileURL.path, configuration: readOnly)
                newer = try queue.read { try SQLiteSchema.migrator.hasBeenSuperseded($0) }
                try queue.close()
            } catch {
                throw ServerStorageError.dataDirectory(path: path, reason: "cannot read \(Self.fileName) (\(error))")
            }
            if newer {
                throw ServerStorageError.migrationFailed("\(Self.fileName) was made by a newer suite-server; run that version or newer (nothing was changed)")
            }
        }
        do {
            pool = try DatabasePool(path: fileURL.path, configuration: configuration)
            // GRDB turns WAL on after `prepareDatabase` and sets synchronous=NORMAL with it:
            // set FULL again on the one connection that writes.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            pushes = GroupCommit(pool)
            try SQLiteSchema.migrator.migrate(pool)
            try pool.write { db in
                let secret = Data((0..<32).map { _ in UInt8.random(in: .min ... .max) })
                try db.execute(sql: "INSERT INTO server_settings (key, value) VALUES ('secret', ?) ON CONFLICT (key) DO NOTHING", arguments: [secret])
            }
        } catch let error as ServerStorageError {
            throw error
        } catch {
            throw ServerStorageError.dataDirectory(path: path, reason: "cannot open \(Self.fileName) (\(error))")
        }
    }

    /// Waits for graceful shutdown, then ends the event streams.
    package func run() async throws {
        try? await gracefulShutdown()
        events.close()
    }

    package func serverSecret() async throws -> Data {
        try await pool.read { db in
            guard let secret = try Data.fetchOne(db, sql: "SELECT value FROM server_settings WHERE key = 'secret'") else {
                throw ServerStorageError.corrupt("the server secret is missing")
            }
            return secret
        }
    }

    package func createAccount(_ account: StoredAccount, device: NewDevice, invite: InviteClaim?) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO accounts (id, name, password_hash, salt, rounds, wrapped_key, recovery_wrapped_key, epoch, created_at, recovery_hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING
                """, arguments: [account.id, account.name, account.passwordHash, account.salt, account.rounds, account.wrappedKey, account.recoveryWrappedKey,
                                 account.epoch, account.createdAt, account.recoveryHash])
            guard db.changesCount == 1 else { throw ServerStorageError.accountExists }
            if let invite {
                try db.execute(sql: """
                    UPDATE invites SET used_at = ?, used_by = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?
                    """, arguments: [invite.at, account.id, invite.codeHash, invite.at])
                guard db.changesCount == 1 else { throw ServerStorageError.inviteRefused }
            }
            try db.execute(sql: "INSERT INTO account_usage (account_id, bytes) VALUES (?, 0)", arguments: [account.id])
            try Self.insert(device, db: db)
        }
    }

    package func createInvite(codeHash: String, createdAt: Date, expiresAt: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT INTO invites (code_hash, created_at, expires_at) VALUES (?, ?, ?)", arguments: [codeHash, createdAt, expiresAt])
        }
    }

    package func inviteIsUsable(codeHash: String, at date: Date) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM invites WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?", arguments: [codeHash, date]) != nil
        }
    }

    package func usage(accountID: String) async throws -> Int64 {
        try await pool.read { db in try Self.usage(accountID, db: db) }
    }

    static func usage(_ accountID: String, db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT bytes FROM account_usage WHERE account_id = ?", arguments: [accountID]) ?? 0
    }

    /// Adds bytes to an account's usage; past the quota (when they add), throws and the
    /// transaction writes nothing.
    static func addUsage(_ bytes: Int64, accountID: String, quota: Int64?, db: Database) throws {
        try AccountQuota.check(adding: bytes, to: try usage(accountID, db: db), quota: quota)
        try db.execute(sql: """
            INSERT INTO account_usage (account_id, bytes) VALUES (?1, ?2)
            ON CONFLICT (account_id) DO UPDATE SET bytes = max(0, bytes + ?2)
            """, arguments: [accountID, bytes])
    }

    package func account(named name: String) async throws -> StoredAccount? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE name = ?", arguments: [name]).map(Self.account)
        }
    }

    package func account(id: String) async throws -> StoredAccount? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [id]).map(Self.account)
        }
    }

    private static func account(_ row: Row) -> StoredAccount {
        StoredAccount(
            id: row["id"], name: row["name"], passwordHash: row["password_hash"], salt: row["salt"], rounds: row["rounds"],
            wrappedKey: row["wrapped_key"], recoveryWrappedKey: row["recovery_wrapped_key"], epoch: row["epoch"], createdAt: row["created_at"],
            recoveryHash: row["recovery_hash"], disabledAt: row["disabled_at"])
    }

    package func accountSummaries(named name: String?) async throws -> [AccountSummary] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.id, a.name, a.created_at, a.disabled_at,
                       (SELECT max(max(d.created_at, coalesce(d.last_seen_at, d.created_at))) FROM devices d WHERE d.account_id = a.id) AS device_activity,
                       (SELECT count(*) FROM devices d WHERE d.account_id = a.id) AS devices,
                       (SELECT count(*) FROM logs l WHERE l.account_id = a.id) AS logs,
                       (SELECT count(*) FROM operations o WHERE o.account_id = a.id AND o.removed_ms IS NULL) AS operations,
                       coalesce((SELECT u.bytes FROM account_usage u WHERE u.account_id = a.id), 0) AS bytes
                FROM accounts a WHERE ?1 IS NULL OR a.name = ?1 ORDER BY a.name
                """, arguments: [name]).map { row in
                let createdAt: Date = row["created_at"]
                let deviceActivity: Date? = row["device_activity"]
                return AccountSummary(
                    id: row["id"], name: row["name"], createdAt: createdAt, lastActivityAt: max(createdAt, deviceActivity ?? createdAt),
                    devices: row["devices"], logs: row["logs"], operations: row["operations"], bytes: row["bytes"], disabledAt: row["disabled_at"])
            }
        }
    }

    package func setAccountDisabled(id: String, at date: Date?) async throws -> Bool {
        try await pool.write { db in
            if let date {
                try db.execute(sql: "UPDATE accounts SET disabled_at = coalesce(disabled_at, ?) WHERE id = ?", arguments: [date, id])
            } else {
                try db.execute(sql: "UPDATE accounts SET disabled_at = NULL WHERE id = ?", arguments: [id])
            }
            return db.changesCount == 1
        }
    }

    package func replacePassword(accountID: String, expectedHash: String, with material: PasswordMaterial, addingDevice device: NewDevice?) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: """
                UPDATE accounts SET password_hash = ?, salt = ?, rounds = ?, wrapped_key = ? WHERE id = ? AND password_hash = ?
                """, arguments: [material.passwordHash, material.salt, material.rounds, material.wrappedKey, accountID, expectedHash])
            guard db.changesCount == 1 else { return false }
            if let device { try Self.insert(device, db: db) }
            return true
        }
    }

    package func deleteAccount(id: String) async throws -> Bool {
        try await pool.write { db in
            // Votes still there (published again since they were withdrawn) would leave their
            // items' counts too high: the caller withdraws them and asks again.
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM community_votes WHERE account_id = ? LIMIT 1", arguments: [id]) == nil else { return false }
            // Devices, logs (and so operations), settings and shared lists go by cascade.
            try db.execute(sql: "DELETE FROM accounts WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
    }

    package func addDevice(_ device: NewDevice) async throws {
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM accounts WHERE id = ?", arguments: [device.accountID]) != nil else {
                throw ServerStorageError.unknownAccount
            }
            try Self.insert(device, db: db)
        }
    }

    private static func insert(_ device: NewDevice, db: Database) throws {
        try db.execute(
            sql: "INSERT INTO devices (id, account_id, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [device.id, device.accountID, device.name, device.tokenHash, device.createdAt])
    }

    package func session(tokenHash: String, seenAt: Date) async throws -> DeviceSession? {
        let found = try await pool.read { db in
            try Row.fetchOne(db, sql: """
                SELECT d.id, d.account_id, d.last_seen_at, a.disabled_at IS NOT NULL AS disabled
                FROM devices d JOIN accounts a ON a.id = d.account_id WHERE d.token_hash = ?
                """, arguments: [tokenHash]).map { row in
                (session: DeviceSession(accountID: row["account_id"], deviceID: row["id"], accountDisabled: row["disabled"]), lastSeenAt: row["last_seen_at"] as Date?)
            }
        }
        guard let found else { return nil }
        if found.lastSeenAt.map({ seenAt.timeIntervalSince($0) >= LastSeen.resolution }) ?? true {
            try await pool.write { db in
                try db.execute(sql: "UPDATE devices SET last_seen_at = ? WHERE id = ?", arguments: [seenAt, found.session.deviceID])
            }
        }
        return found.session
    }

    package func devices(accountID: String) async throws -> [StoredDevice] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, created_at, last_seen_at FROM devices WHERE account_id = ? ORDER BY created_at, id", arguments: [accountID]).map { row in
                StoredDevice(id: row["id"], name: row["name"], createdAt: row["created_at"], lastSeenAt: row["last_seen_at"])
            }
        }
    }

    package func removeDevice(id: String, accountID: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM devices WHERE id = ? AND account_id = ?", arguments: [id, accountID])
            return db.changesCount > 0
        }
    }

    /// Pushes go through ``pushes``: those that arrive while a commit is under way are written
    /// together in the next transaction (one `fsync` for all), each in a savepoint of its own.
    /// The decisions are ``PushPlan``'s, made from what the log holds inside the transaction.
    package func push(accountID: String, log: String, operations: [SyncEnvelope], quota: Int64?) async throws -> PushOutcome {
        let candidates = PushPlan.candidates(operations)
        let outcome = try await pushes.write { db -> PushOutcome in
            guard let epoch = try String.fetchOne(db, sql: "SELECT epoch FROM accounts WHERE id = ?", arguments: [accountID]) else {
                throw ServerStorageError.unknownAccount
            }
            try db.execute(sql: "INSERT INTO logs (account_id, name) VALUES (?, ?) ON CONFLICT DO NOTHING", arguments: [accountID, log])
            let head = try Int64.fetchOne(db, sql: "SELECT head FROM logs WHERE account_id = ? AND name = ?", arguments: [accountID, log]) ?? 0
            let exists = try db.cachedStatement(sql: "SELECT 1 FROM operations WHERE account_id = ? AND log = ? AND op_id = ?")
            var stored = Set<String>()
            for operation in candidates {
                if try Bool.fetchOne(exists, arguments: [accountID, log, operation.id]) != nil { stored.insert(operation.id) }
            }
            let plan = PushPlan(candidates: candidates, stored: stored, head: head)
            guard !plan.operations.isEmpty else { return plan.outcome(epoch: epoch) }
            try Self.addUsage(plan.bytes, accountID: accountID, quota: quota, db: db)
            try db.execute(
                sql: "UPDATE logs SET head = ? WHERE account_id = ? AND name = ? AND head = ?",
                arguments: [plan.newHead, accountID, log, plan.head])
            guard db.changesCount == 1 else { throw ServerStorageError.corrupt("the log \(log) moved during a push") }
            let insert = try db.cachedStatement(sql: """
                INSERT INTO operations (account_id, log, position, op_id, slot, payload) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (account_id, log, op_id) DO NOTHING
                """)
            for (index, operation) in plan.operations.enumerated() {
                try insert.execute(arguments: [accountID, log, plan.position(at: index), operation.id, operation.slot, operation.payload])
                guard db.changesCount == 1 else { throw ServerStorageError.corrupt("operation \(operation.id) appeared during a push") }
            }
            return plan.outcome(epoch: epoch)
        }
        if outcome.stored > 0 {
            events.publish(accountID: accountID, log: log)
        }
        return outcome
    }

    package func pull(accountID: String, log: String, after: Int64, limit: Int, maximumBytes: Int) async throws -> SyncPullReply {
        try await pool.read { db in
            guard let epoch = try String.fetchOne(db, sql: "SELECT epoch FROM accounts WHERE id = ?", arguments: [accountID]) else {
                throw ServerStorageError.unknownAccount
            }
            let state = try Row.fetchOne(db, sql: "SELECT head, compacted_through, compacted_kept FROM logs WHERE account_id = ? AND name = ?",
                                         arguments: [accountID, log])
            let head: Int64 = state?["head"] ?? 0, through: Int64 = state?["compacted_through"] ?? 0, kept: Int64 = state?["compacted_kept"] ?? 0
            // Read row by row, so the page stops at its byte budget without loading more.
            let cursor = try Row.fetchCursor(db, sql: """
                SELECT position, op_id, slot, payload FROM operations
                WHERE account_id = ? AND log = ? AND position > ? AND removed_ms IS NULL ORDER BY position LIMIT ?
                """, arguments: [accountID, log, after, limit])
            var operations: [SyncEnvelope] = []
            var last = after, bytes = 0, full = false
            while let row = try cursor.next() {
                let operation = SyncEnvelope(id: row["op_id"], slot: row["slot"], payload: row["payload"])
                let size = SyncProtocol.size(of: operation)
                if !operations.isEmpty && bytes + size > maximumBytes {
                    full = true
                    break
                }
                bytes += size
                operations.append(operation)
                last = row["position"]
            }
            let anchor = after > 0
                ? try String.fetchOne(db, sql: "SELECT op_id FROM operations WHERE account_id = ? AND log = ? AND position = ?", arguments: [accountID, log, after])
                : nil
            // A page short of its limit (not of its bytes) read everything up to the head
            // (removed operations leave gaps).
            let next = operations.count < limit && !full ? max(last, head) : last
            return SyncPullReply(epoch: epoch, head: head, operations: operations, next: next, anchor: anchor,
                                 compacted: through > 0 ? through : nil,
                                 compactionWanted: CompactionPolicy.wanted(head: head, through: through, kept: kept) ? true : nil)
        }
    }

    package func compact(accountID: String, log: String, request: SyncCompactRequest, now: Date) async throws -> SyncCompactReply {
        try await pool.write { db in
            guard let head = try Int64.fetchOne(db, sql: "SELECT head FROM logs WHERE account_id = ? AND name = ?", arguments: [accountID, log]),
                  request.through >= 1, request.through <= head else {
                throw ServerStorageError.logMoved("position \(request.through) is not in the log")
            }
            let there = try String.fetchOne(db, sql: "SELECT op_id FROM operations WHERE account_id = ? AND log = ? AND position = ?",
                                            arguments: [accountID, log, request.through])
            guard there == request.anchor else { throw ServerStorageError.logMoved("another operation is at position \(request.through)") }
            let mark = try db.cachedStatement(sql: """
                UPDATE operations SET kept = max(kept, ?1) WHERE account_id = ?2 AND log = ?3 AND op_id = ?4 AND position <= ?1
                """)
            for id in request.keep {
                try mark.execute(arguments: [request.through, accountID, log, id])
            }
            try mark.execute(arguments: [request.through, accountID, log, request.anchor])
            guard request.done else { return SyncCompactReply(kept: 0, removed: 0) }
            let freed = try Int64.fetchOne(db, sql: """
                SELECT coalesce(sum(length(CAST(slot AS BLOB)) + length(payload)), 0) FROM operations
                WHERE account_id = ? AND log = ? AND position <= ? AND kept < ? AND removed_ms IS NULL
                """, arguments: [accountID, log, request.through, request.through]) ?? 0
            try Self.addUsage(-freed, accountID: accountID, quota: nil, db: db)
            try db.execute(sql: """
                UPDATE operations SET slot = '', payload = X'', removed_ms = ?
                WHERE account_id = ? AND log = ? AND position <= ? AND kept < ? AND removed_ms IS NULL
                """, arguments: [Int64((now.timeIntervalSince1970 * 1000).rounded()), accountID, log, request.through, request.through])
            let removed = Int64(db.changesCount)
            let kept = try Int64.fetchOne(db, sql: """
                SELECT count(*) FROM operations WHERE account_id = ? AND log = ? AND position <= ? AND removed_ms IS NULL
                """, arguments: [accountID, log, request.through]) ?? 0
            try db.execute(sql: """
                UPDATE logs SET compacted_through = ?1, compacted_kept = ?2 WHERE account_id = ?3 AND name = ?4 AND compacted_through <= ?1
                """, arguments: [request.through, kept, accountID, log])
            return SyncCompactReply(kept: kept, removed: removed)
        }
    }

    package func forgetRemovedOperations(removedBefore: Date) async throws -> [ForgottenOperations] {
        try await pool.write { db in
            let cutoff = Int64((removedBefore.timeIntervalSince1970 * 1000).rounded())
            let counts = try Row.fetchAll(db, sql: """
                SELECT a.name AS account, o.log AS log, count(*) AS count FROM operations o JOIN accounts a ON a.id = o.account_id
                WHERE o.removed_ms IS NOT NULL AND o.removed_ms < ? GROUP BY a.name, o.log ORDER BY a.name, o.log
                """, arguments: [cutoff])
            let freed = try Row.fetchAll(db, sql: """
                SELECT account_id, sum(length(CAST(op_id AS BLOB)) + 16) AS bytes FROM operations
                WHERE removed_ms IS NOT NULL AND removed_ms < ? GROUP BY account_id
                """, arguments: [cutoff])
            for row in freed {
                try Self.addUsage(-(row["bytes"] as Int64), accountID: row["account_id"], quota: nil, db: db)
            }
            try db.execute(sql: "DELETE FROM operations WHERE removed_ms IS NOT NULL AND removed_ms < ?", arguments: [cutoff])
            return counts.map { ForgottenOperations(account: $0["account"], log: $0["log"], count: $0["count"]) }
        }
    }

    package func logSizes() async throws -> [LogSize] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.name AS account, l.name AS log, l.head AS head, l.compacted_through AS compacted,
                       (SELECT count(*) FROM operations o WHERE o.account_id = l.account_id AND o.log = l.name AND o.removed_ms IS NULL) AS operations,
                       (SELECT count(*) FROM operations o WHERE o.account_id = l.account_id AND o.log = l.name AND o.removed_ms IS NOT NULL) AS removed,
                       (SELECT coalesce(sum(length(o.op_id) + length(o.slot) + length(o.payload) + 16), 0)
                        FROM operations o WHERE o.account_id = l.account_id AND o.log = l.name) AS bytes
                FROM logs l JOIN accounts a ON a.id = l.account_id ORDER BY a.name, l.name
                """).map {
                LogSize(account: $0["account"], log: $0["log"], head: $0["head"], operations: $0["operations"], removed: $0["removed"],
                        bytes: $0["bytes"], compacted: $0["compacted"])
            }
        }
    }

    /// A pragma's value on the writing connection (for tests and diagnostics).
    ///
    /// - Parameter name: The pragma, e.g. `journal_mode`.
    /// - Returns: Its value as text.
    package func pragma(_ name: String) async throws -> String? {
        try await pool.write { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    /// Every row of a table as text, for tests that check what is really stored.
    ///
    /// - Parameter table: A table name from the schema.
    /// - Returns: One description per row.
    package func dumpRows(of table: String) async throws -> [String] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map(\.description)
        }
    }
}
