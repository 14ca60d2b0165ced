import GRDB

/// The SQLite schema, as GRDB migrations (recorded in GRDB's `grdb_migrations` table).
///
/// A migration, once released, is never edited: add a new one.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1-accounts-devices-logs") { db in
            try db.execute(sql: """
                CREATE TABLE server_settings (
                    key TEXT PRIMARY KEY NOT NULL,
                    value BLOB NOT NULL
                );
                CREATE TABLE accounts (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    salt BLOB NOT NULL,
                    rounds INTEGER NOT NULL,
                    wrapped_key BLOB NOT NULL,
                    recovery_wrapped_key BLOB NOT NULL,
                    epoch TEXT NOT NULL,
                    created_at TEXT NOT NULL
                );
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY NOT NULL,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    created_at TEXT NOT NULL,
                    last_seen_at TEXT
                );
                CREATE INDEX devices_account ON devices(account_id);
                CREATE TABLE logs (
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    head INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (account_id, name)
                ) WITHOUT ROWID;
                CREATE TABLE operations (
                    account_id TEXT NOT NULL,
                    log TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    op_id TEXT NOT NULL,
                    slot TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    PRIMARY KEY (account_id, log, position),
                    UNIQUE (account_id, log, op_id),
                    FOREIGN KEY (account_id, log) REFERENCES logs(account_id, name) ON DELETE CASCADE
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("2-community") { db in
            try db.execute(sql: """
                CREATE TABLE community_settings (
                    account_id TEXT PRIMARY KEY NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    favourites INTEGER NOT NULL DEFAULT 0,
                    ratings INTEGER NOT NULL DEFAULT 0,
                    rating_notes INTEGER NOT NULL DEFAULT 0
                ) WITHOUT ROWID;
                CREATE TABLE community_counters (
                    kind TEXT PRIMARY KEY NOT NULL,
                    seq INTEGER NOT NULL,
                    purged INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO community_counters (kind, seq, purged) VALUES ('favourites', 0, 0), ('ratings', 0, 0);
                CREATE TABLE community_items (
                    kind TEXT NOT NULL,
                    key TEXT NOT NULL,
                    text TEXT,
                    source TEXT,
                    votes INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    zeroed_at INTEGER,
                    PRIMARY KEY (kind, key)
                ) WITHOUT ROWID;
                CREATE INDEX community_items_top ON community_items(kind, votes DESC, key);
                CREATE UNIQUE INDEX community_items_seq ON community_items(kind, seq);
                CREATE TABLE community_votes (
                    kind TEXT NOT NULL,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (kind, account_id, key)
                ) WITHOUT ROWID;
                CREATE INDEX community_votes_key ON community_votes(kind, key, updated_at);
                CREATE TABLE shared_lists (
                    id TEXT PRIMARY KEY NOT NULL,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    title TEXT NOT NULL,
                    body BLOB NOT NULL,
                    count INTEGER NOT NULL,
                    created_at TEXT NOT NULL
                );
                CREATE INDEX shared_lists_account ON shared_lists(account_id, created_at);
                """)
        }
        migrator.registerMigration("3-account-recovery") { db in
            // bcrypt of the recovery secret; NULL for accounts made before (not recoverable).
            try db.execute(sql: "ALTER TABLE accounts ADD COLUMN recovery_hash TEXT")
        }
        migrator.registerMigration("4-compaction") { db in
            // kept: the furthest position of a compaction that named the operation as still
            // winning; removed_ms: when a compaction removed it (its payload and slot are gone,
            // its id and position stay for the grace period).
            try db.execute(sql: """
                ALTER TABLE operations ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE operations ADD COLUMN removed_ms INTEGER;
                CREATE INDEX operations_removed ON operations(removed_ms) WHERE removed_ms IS NOT NULL;
                ALTER TABLE logs ADD COLUMN compacted_through INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE logs ADD COLUMN compacted_kept INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("5-invites-and-usage") { db in
            // One-time sign-up codes (their SHA-256 only), and each account's stored bytes
            // (operations: id, slot, payload and 16 a row; shared lists: title and body), kept
            // by every write so a quota is checked without adding anything up.
            try db.execute(sql: """
                CREATE TABLE invites (
                    code_hash TEXT PRIMARY KEY NOT NULL,
                    created_at TEXT NOT NULL,
                    expires_at TEXT NOT NULL,
                    used_at TEXT,
                    used_by TEXT
                );
                CREATE TABLE account_usage (
                    account_id TEXT PRIMARY KEY NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    bytes INTEGER NOT NULL DEFAULT 0
                ) WITHOUT ROWID;
                INSERT INTO account_usage (account_id, bytes)
                SELECT a.id,
                       (SELECT coalesce(sum(length(CAST(o.op_id AS BLOB)) + length(CAST(o.slot AS BLOB)) + length(o.payload) + 16), 0)
                        FROM operations o WHERE o.account_id = a.id)
                     + (SELECT coalesce(sum(length(CAST(s.title AS BLOB)) + length(s.body)), 0) FROM shared_lists s WHERE s.account_id = a.id)
                FROM accounts a;
                """)
        }
        migrator.registerMigration("6-account-disable") { db in
            // Set by `suite-server accounts disable`: the account's devices are refused, its
            // password signs nothing in, nothing of it is deleted. NULL: in use.
            try db.execute(sql: "ALTER TABLE accounts ADD COLUMN disabled_at TEXT")
        }
        return migrator
    }
}
