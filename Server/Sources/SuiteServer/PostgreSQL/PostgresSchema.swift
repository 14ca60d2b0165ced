import Logging
import PostgresNIO

/// The PostgreSQL schema and its migration runner.
///
/// Applied versions are recorded in `schema_migrations`. The runner works in one transaction
/// under a transaction-scoped advisory lock, so server processes starting together apply each
/// migration once and the others wait, then see it applied. A migration, once released, is
/// never edited: add a new one.
enum PostgresSchema {
    /// The advisory lock's key ("SuiteSrv" in ASCII).
    static let migrationLock: Int64 = 0x5375_6974_6553_7276

    /// The migrations, in order; each is a list of statements.
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE server_settings (
                key TEXT PRIMARY KEY,
                value BYTEA NOT NULL
            )
            """,
            """
            CREATE TABLE accounts (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                password_hash TEXT NOT NULL,
                salt BYTEA NOT NULL,
                rounds INTEGER NOT NULL,
                wrapped_key BYTEA NOT NULL,
                recovery_wrapped_key BYTEA NOT NULL,
                epoch TEXT NOT NULL,
                created_at TIMESTAMPTZ NOT NULL
            )
            """,
            """
            CREATE TABLE devices (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                token_hash TEXT NOT NULL UNIQUE,
                created_at TIMESTAMPTZ NOT NULL,
                last_seen_at TIMESTAMPTZ
            )
            """,
            "CREATE INDEX devices_account ON devices(account_id)",
            """
            CREATE TABLE logs (
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                head BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (account_id, name)
            )
            """,
            """
            CREATE TABLE operations (
                account_id TEXT NOT NULL,
                log TEXT NOT NULL,
                position BIGINT NOT NULL,
                op_id TEXT NOT NULL,
                slot TEXT NOT NULL,
                payload BYTEA NOT NULL,
                PRIMARY KEY (account_id, log, position),
                UNIQUE (account_id, log, op_id),
                FOREIGN KEY (account_id, log) REFERENCES logs(account_id, name) ON DELETE CASCADE
            )
            """,
        ]),
        (2, [
            """
            CREATE TABLE community_settings (
                account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                favourites BOOLEAN NOT NULL DEFAULT false,
                ratings BOOLEAN NOT NULL DEFAULT false,
                rating_notes BOOLEAN NOT NULL DEFAULT false
            )
            """,
            """
            CREATE TABLE community_counters (
                kind TEXT PRIMARY KEY,
                seq BIGINT NOT NULL,
                purged BIGINT NOT NULL
            )
            """,
            "INSERT INTO community_counters (kind, seq, purged) VALUES ('favourites', 0, 0), ('ratings', 0, 0)",
            """
            CREATE TABLE community_items (
                kind TEXT NOT NULL,
                key TEXT NOT NULL,
                text TEXT,
                source TEXT,
                votes INTEGER NOT NULL,
                seq BIGINT NOT NULL,
                zeroed_at BIGINT,
                PRIMARY KEY (kind, key)
            )
            """,
            "CREATE INDEX community_items_top ON community_items(kind, votes DESC, key)",
            "CREATE UNIQUE INDEX community_items_seq ON community_items(kind, seq)",
            """
            CREATE TABLE community_votes (
                kind TEXT NOT NULL,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                key TEXT NOT NULL,
                payload TEXT NOT NULL,
                updated_at BIGINT NOT NULL,
                PRIMARY KEY (kind, account_id, key)
            )
            """,
            "CREATE INDEX community_votes_key ON community_votes(kind, key, updated_at)",
            """
            CREATE TABLE shared_lists (
                id TEXT PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                title TEXT NOT NULL,
                body BYTEA NOT NULL,
                count INTEGER NOT NULL,
                created_at TIMESTAMPTZ NOT NULL
            )
            """,
            "CREATE INDEX shared_lists_account ON shared_lists(account_id, created_at)",
        ]),
        // bcrypt of the recovery secret; NULL for accounts made before (not recoverable).
        (3, ["ALTER TABLE accounts ADD COLUMN recovery_hash TEXT"]),
        // Compaction: kept is the furthest position of a compaction that named the operation as
        // still winning; removed_ms when a compaction removed it (payload and slot emptied, id
        // and position kept for the grace period).
        (4, [
            "ALTER TABLE operations ADD COLUMN kept BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE operations ADD COLUMN removed_ms BIGINT",
            "CREATE INDEX operations_removed ON operations(removed_ms) WHERE removed_ms IS NOT NULL",
            "ALTER TABLE logs ADD COLUMN compacted_through BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE logs ADD COLUMN compacted_kept BIGINT NOT NULL DEFAULT 0",
        ]),
        // One-time sign-up codes (their SHA-256 only), and each account's stored bytes
        // (operations: id, slot, payload and 16 a row; shared lists: title and body), kept by
        // every write so a quota is checked without adding anything up.
        (5, [
            """
            CREATE TABLE invites (
                code_hash TEXT PRIMARY KEY,
                created_at TIMESTAMPTZ NOT NULL,
                expires_at TIMESTAMPTZ NOT NULL,
                used_at TIMESTAMPTZ,
                used_by TEXT
            )
            """,
            """
            CREATE TABLE account_usage (
                account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                bytes BIGINT NOT NULL DEFAULT 0
            )
            """,
            """
            INSERT INTO account_usage (account_id, bytes)
            SELECT a.id,
                   (SELECT COALESCE(sum(octet_length(o.op_id) + octet_length(o.slot) + octet_length(o.payload) + 16), 0) FROM operations o WHERE o.account_id = a.id)
                 + (SELECT COALESCE(sum(octet_length(s.title) + octet_length(s.body)), 0) FROM shared_lists s WHERE s.account_id = a.id)
            FROM accounts a
            """,
        ]),
        // Set by `suite-server accounts disable`: the account's devices are refused, its password
        // signs nothing in, nothing of it is deleted. NULL: in use.
        (6, ["ALTER TABLE accounts ADD COLUMN disabled_at TIMESTAMPTZ"]),
        // A push in one statement (one round trip instead of ten, and PL/pgSQL keeps its plans
        // for the connection): ``PostgresServerStorage/push(accountID:log:operations:quota:)``
        // called it until migration 8. No row: the account is unknown. SQLSTATE SUQ01: past the quota (DETAIL: the bytes used before);
        // SUC01: operations appeared under the log's lock.
        (7, [
            """
            CREATE FUNCTION suite_push(p_account TEXT, p_log TEXT, p_ids TEXT[], p_slots TEXT[], p_payloads BYTEA[],
                                       p_sizes BIGINT[], p_quota BIGINT, p_channel TEXT)
            RETURNS TABLE (r_epoch TEXT, r_head BIGINT, r_stored BIGINT)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_epoch TEXT;
                v_head BIGINT;
                v_fresh BIGINT;
                v_bytes BIGINT;
                v_total BIGINT;
                v_inserted BIGINT;
                v_ids TEXT[];
                v_slots TEXT[];
                v_payloads BYTEA[];
            BEGIN
                SELECT a.epoch INTO v_epoch FROM accounts a WHERE a.id = p_account FOR SHARE;
                IF NOT FOUND THEN
                    RETURN;
                END IF;
                INSERT INTO logs (account_id, name) VALUES (p_account, p_log) ON CONFLICT DO NOTHING;
                -- The row lock orders concurrent pushes to this log.
                SELECT l.head INTO v_head FROM logs l WHERE l.account_id = p_account AND l.name = p_log FOR UPDATE;
                -- The operations the log does not have yet, chosen once (in the batch's order):
                -- the head, the usage and the rows written all follow from this one choice.
                SELECT count(*), COALESCE(sum(t.size), 0), array_agg(t.op_id ORDER BY t.ord), array_agg(t.slot ORDER BY t.ord),
                       array_agg(t.payload ORDER BY t.ord)
                INTO v_fresh, v_bytes, v_ids, v_slots, v_payloads
                FROM unnest(p_ids, p_slots, p_payloads, p_sizes) WITH ORDINALITY AS t(op_id, slot, payload, size, ord)
                WHERE NOT EXISTS (SELECT 1 FROM operations o WHERE o.account_id = p_account AND o.log = p_log AND o.op_id = t.op_id);
                IF v_fresh = 0 THEN
                    RETURN QUERY SELECT v_epoch, v_head, 0::BIGINT;
                    RETURN;
                END IF;
                INSERT INTO account_usage AS u (account_id, bytes) VALUES (p_account, v_bytes)
                ON CONFLICT (account_id) DO UPDATE SET bytes = GREATEST(0, u.bytes + EXCLUDED.bytes)
                RETURNING u.bytes INTO v_total;
                IF p_quota IS NOT NULL AND v_total > p_quota THEN
                    RAISE EXCEPTION USING ERRCODE = 'SUQ01', MESSAGE = 'quota', DETAIL = (v_total - v_bytes)::TEXT;
                END IF;
                UPDATE logs l SET head = l.head + v_fresh WHERE l.account_id = p_account AND l.name = p_log RETURNING l.head INTO v_head;
                INSERT INTO operations (account_id, log, position, op_id, slot, payload)
                SELECT p_account, p_log, v_head - v_fresh + t.ord, t.op_id, t.slot, t.payload
                FROM unnest(v_ids, v_slots, v_payloads) WITH ORDINALITY AS t(op_id, slot, payload, ord)
                ON CONFLICT (account_id, log, op_id) DO NOTHING;
                GET DIAGNOSTICS v_inserted = ROW_COUNT;
                IF v_inserted <> v_fresh THEN
                    RAISE EXCEPTION USING ERRCODE = 'SUC01', MESSAGE = format('%s operations appeared in %s during a push', v_fresh - v_inserted, p_log);
                END IF;
                PERFORM pg_notify(p_channel, p_account || ' ' || p_log);
                RETURN QUERY SELECT v_epoch, v_head, v_fresh;
            END
            $$
            """,
        ]),
        // A push's decisions are ``PushPlan``'s, in Swift, for both backends. Two functions hold
        // no decision: one takes the locks and reads what the plan is made from, the other writes
        // the plan. As functions, their statements' plans are kept for the connection, and each
        // statement sees what committed before it ran (READ COMMITTED), so what they read is read
        // once the locks are held. `suite_push` (migration 7) stays for a server of the version
        // before that still runs on the database during an upgrade; nothing here calls it.
        //
        // suite_push_facts: the account's epoch (a share lock), the log's head (its row locked:
        // pushes to the log wait), the account's usage (its row locked: pushes to its other logs
        // wait, so two cannot pass the quota together) and which of the ids the log holds. No
        // row: the account is unknown.
        // suite_push_write: how many rows the head's move and the operations' insert touched
        // (the caller checks them against its plan). The notification goes at commit.
        (8, [
            """
            CREATE FUNCTION suite_push_facts(p_account TEXT, p_log TEXT, p_ids TEXT[])
            RETURNS TABLE (r_epoch TEXT, r_head BIGINT, r_used BIGINT, r_stored TEXT[])
            LANGUAGE plpgsql AS $$
            DECLARE
                v_epoch TEXT;
                v_head BIGINT;
                v_used BIGINT;
            BEGIN
                SELECT a.epoch INTO v_epoch FROM accounts a WHERE a.id = p_account FOR SHARE;
                IF NOT FOUND THEN
                    RETURN;
                END IF;
                INSERT INTO logs (account_id, name) VALUES (p_account, p_log) ON CONFLICT DO NOTHING;
                SELECT l.head INTO v_head FROM logs l WHERE l.account_id = p_account AND l.name = p_log FOR UPDATE;
                INSERT INTO account_usage (account_id, bytes) VALUES (p_account, 0) ON CONFLICT DO NOTHING;
                SELECT u.bytes INTO v_used FROM account_usage u WHERE u.account_id = p_account FOR UPDATE;
                RETURN QUERY SELECT v_epoch, v_head, v_used, ARRAY(
                    SELECT o.op_id FROM operations o WHERE o.account_id = p_account AND o.log = p_log AND o.op_id = ANY(p_ids));
            END
            $$
            """,
            """
            CREATE FUNCTION suite_push_write(p_account TEXT, p_log TEXT, p_head BIGINT, p_new_head BIGINT, p_positions BIGINT[],
                                             p_ids TEXT[], p_slots TEXT[], p_payloads BYTEA[], p_bytes BIGINT, p_channel TEXT)
            RETURNS TABLE (r_moved BIGINT, r_inserted BIGINT)
            LANGUAGE plpgsql AS $$
            DECLARE
                v_moved BIGINT;
                v_inserted BIGINT;
            BEGIN
                UPDATE account_usage u SET bytes = GREATEST(0, u.bytes + p_bytes) WHERE u.account_id = p_account;
                UPDATE logs l SET head = p_new_head WHERE l.account_id = p_account AND l.name = p_log AND l.head = p_head;
                GET DIAGNOSTICS v_moved = ROW_COUNT;
                INSERT INTO operations (account_id, log, position, op_id, slot, payload)
                SELECT p_account, p_log, t.position, t.op_id, t.slot, t.payload
                FROM unnest(p_positions, p_ids, p_slots, p_payloads) AS t(position, op_id, slot, payload)
                ON CONFLICT (account_id, log, op_id) DO NOTHING;
                GET DIAGNOSTICS v_inserted = ROW_COUNT;
                PERFORM pg_notify(p_channel, p_account || ' ' || p_log);
                RETURN QUERY SELECT v_moved, v_inserted;
            END
            $$
            """,
        ]),
    ]

    /// Brings the database's schema up to date.
    ///
    /// - Parameters:
    ///   - connection: A connection outside any transaction.
    ///   - logger: Where to log the migrations applied.
    /// - Throws: The database's error; nothing is applied then.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await PostgresTransaction.run(on: connection, logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """, logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            // A newer suite-server migrated this database: this one would not keep what those
            // migrations added (usage, say) right. Refused, nothing changed (the transaction
            // rolls back).
            let known = Set(migrations.map(\.version))
            if let newer = applied.subtracting(known).max() {
                throw ServerStorageError.migrationFailed("the database has schema version \(newer), from a newer suite-server; run that version or newer (nothing was changed)")
            }
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_migrations (version) VALUES (\(migration.version))", logger: logger)
                logger.info("applied schema migration \(migration.version)")
            }
        }
    }
}
