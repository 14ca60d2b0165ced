import GRDB

extension DatabaseMigrator {
    /// Registers a store migration: `migrate` runs, and in the same transaction `PRAGMA
    /// user_version` becomes the number of migrations registered so far.
    ///
    /// A store's `user_version` thus counts its applied migrations, atomically with them. ``Store``
    /// trusts a store whose header and connection both show this build's count and skips reading
    /// the migrations table; any other count (a store from a newer version has a larger one) gets
    /// the full check. Every store migration is registered through here.
    package mutating func registerStoreMigration(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        let version = migrations.count + 1
        registerMigration(identifier) { db in
            try migrate(db)
            try db.execute(sql: "PRAGMA user_version = \(version)")
        }
    }
}
