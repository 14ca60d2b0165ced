import Foundation
import GRDB
import Testing
@testable import SuiteStorage

/// The connection used without GRDB (`quotes random`): opened only for a current store, with the
/// store's settings; transactions all or nothing; errors as GRDB's.
@Suite struct DirectConnectionTests {
    func open(_ url: URL, versions: Int = 1, applicationID: Int32 = configuration.applicationID) throws -> DirectConnection? {
        var settings = configuration
        settings.applicationID = applicationID
        settings.busyTimeout = 5
        return try DirectConnection.openCurrent(path: url.path, configuration: settings,
                                                schemaVersion: TestStore.schemaVersion(of: migrator(versions: versions)), keptUntilExit: false)
    }

    @Test func onlyACurrentStoreOfItsKindIsOpened() throws {
        let folder = try temporaryFolder()
        let url = folder.appendingPathComponent("test.sqlite")
        #expect(try open(url) == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing is created")
        try openStore(url).close()
        #expect(try open(url) != nil)
        // Another kind of store, or a newer or older schema: left to Store.open.
        #expect(try open(url, applicationID: 0x1234) == nil)
        #expect(try open(url, versions: 2) == nil)
        // A store migrated by a newer version whose header still says the old one (the new
        // `user_version` is in the log only): SQLite's answer counts.
        let store = try openStore(url)
        try store.write { db in try db.execute(sql: "PRAGMA user_version = 7") }
        #expect(try open(url) == nil)
        try store.close()
    }

    @Test func theStoresSettingsApply() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        try openStore(url).close()
        let connection = try #require(try open(url))
        func pragma(_ name: String) throws -> Int64 {
            let statement = try connection.prepare("PRAGMA \(name)")
            #expect(try statement.step())
            return statement.columns.int64(0)
        }
        #expect(try pragma("synchronous") == 2)  // FULL
        #expect(try pragma("temp_store") == 2)  // MEMORY
        #expect(try pragma("foreign_keys") == 1)
        // A light transaction commits with NORMAL, and FULL is back after it, whatever happens.
        try connection.transaction(light: true) { () throws in
            #expect(try pragma("synchronous") == 1)
        }
        #expect(try pragma("synchronous") == 2)
        struct Refused: Error {}
        #expect(throws: Refused.self) { try connection.transaction(light: true) { throw Refused() } }
        #expect(try pragma("synchronous") == 2)
    }

    @Test func aTransactionIsAllOrNothing() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        try openStore(url).close()
        let connection = try #require(try open(url))
        let insert = "INSERT INTO item (name) VALUES (?)"
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try connection.transaction {
                try connection.prepare(insert).bind("kept?", at: 1).run()
                throw Refused()
            }
        }
        try connection.transaction { try connection.prepare(insert).bind("kept", at: 1).run() }
        // A failing statement: GRDB's error, with SQLite's extended code and the statement.
        let error = #expect(throws: DatabaseError.self) {
            try connection.transaction { try connection.prepare(insert).bind(nil as String?, at: 1).run() }
        }
        #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL)
        #expect(error?.sql == insert)
        #expect(throws: DatabaseError.self) { try connection.prepare("SELECT nothing FROM nowhere") }
        let store = try openStore(url)
        #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM item") } == ["kept"])
        try store.close()
    }

    @Test func aBorrowedConnectionIsTheStoresOwn() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        try store.write { db in
            try DirectConnection(borrowing: db).prepare("INSERT INTO item (name) VALUES (?)").bind("ünïcode ✓", at: 1).run()
        }
        let names = try store.read { db -> [String] in
            let statement = try DirectConnection(borrowing: db).prepare("SELECT name, NULL FROM item")
            var names: [String] = []
            while try statement.step() {
                names.append(statement.columns.text(0))
                #expect(statement.columns.optionalText(1) == nil && statement.columns.optionalInt64(1) == nil)
            }
            return names
        }
        #expect(names == ["ünïcode ✓"])
        // Still open and usable by GRDB afterwards (the borrowed one is not closed).
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
        try store.close()
    }

    /// What a file at the path is, for the openings to refuse.
    enum Unusable: String, CaseIterable, Sendable {
        case folder, fifo, empty, randomBytes, truncated, busy
    }

    /// Both openings go through one check (``StoreFileCheck``): a file one refuses, the other
    /// refuses with the same failure, and neither changes it.
    @Test(arguments: Unusable.allCases)
    func bothOpeningsRefuseAFileAlike(_ kind: Unusable) throws {
        let folder = try temporaryFolder()
        let url = folder.appendingPathComponent("test.sqlite")
        var holder: FileLock?
        switch kind {
        case .folder: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        case .fifo: #expect(mkfifo(url.path, 0o600) == 0)
        case .empty: #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        case .randomBytes: try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: url)
        case .truncated:
            try openStore(url).close()
            let whole = try Data(contentsOf: url)
            try whole.prefix(whole.count / 2).write(to: url)
        case .busy:
            try openStore(url).close()
            holder = try FileLock(path: url.path + ".lock", timeout: 1)
        }
        let before = kind == .folder || kind == .fifo ? nil : try Data(contentsOf: url)
        var settings = configuration
        settings.busyTimeout = 0.2
        var storeFailure: StoreFailure?
        do { _ = try TestStore.open(at: url, migrator: migrator(versions: 1), configuration: settings) } catch { storeFailure = error.failure }
        var directFailure: StoreFailure?
        do {
            let connection = try DirectConnection.openCurrent(path: url.path, configuration: settings,
                                                              schemaVersion: TestStore.schemaVersion(of: migrator(versions: 1)), keptUntilExit: false)
            #expect(connection == nil)
        } catch {
            directFailure = error
        }
        #expect(storeFailure != nil, "Store.open refuses a file that is \(kind)")
        #expect(directFailure == storeFailure, "the quick opening refuses it alike")
        if let before { #expect(try Data(contentsOf: url) == before) }
        withExtendedLifetime(holder) {}
    }

    /// The connection settings are one list: GRDB's connections and the direct one agree.
    @Test func bothOpeningsGiveTheSameSettings() throws {
        let url = try temporaryFolder().appendingPathComponent("test.sqlite")
        let store = try openStore(url)
        let connection = try #require(try open(url))
        for name in ["synchronous", "temp_store", "foreign_keys"] {
            let statement = try connection.prepare("PRAGMA \(name)")
            #expect(try statement.step())
            let direct = statement.columns.int64(0)
            #expect(try store.write { db in try Int64.fetchOne(db, sql: "PRAGMA \(name)") } == direct, "\(name)")
        }
        try store.close()
    }
}
