import Foundation
import GRDB
import Testing
@testable import SuiteStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection per store for short commands, kept open until the process exits when asked,
/// and a log left beside a path whose store file is gone.
@Suite struct StoreConnectionsTests {
    /// A log with frames of another database, left where a new store is created, must not be
    /// replayed into it: SQLite would apply those pages to the new file.
    @Test func aLogLeftWhereANewStoreIsCreatedIsNotReplayedIntoIt() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("first.sqlite")
        let second = folder.appendingPathComponent("second.sqlite")
        let store = try openStore(first)
        // The store stays open, so its log keeps these frames (nothing checkpoints them yet).
        for index in 0..<50 {
            try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: ["row \(index)"]) }
        }
        let log = try Data(contentsOf: URL(fileURLWithPath: first.path + "-wal"))
        #expect(log.count > 4096, "the test needs a log with frames")
        // As after `mv second.sqlite elsewhere` with its log left behind.
        try log.write(to: URL(fileURLWithPath: second.path + "-wal"))
        let fresh = try openStore(second)
        let count = try fresh.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") }
        #expect(count == 0)
        #expect(try fresh.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
        try fresh.close()
        try store.close()
    }

    @Test func aSingleConnectionStoreReadsItsOwnWritesAndRefusesWritesWhenReadOnly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.sqlite")
        try openStore(url).close()
        try StoreOpening.$connections.withValue(.single) {
            let store = try openStore(url)
            try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('a')") }
            #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM item") } == ["a"])
            try store.close()
            let reader = try TestStore.open(at: url, migrator: migrator(versions: 1), configuration: configuration, readOnly: true)
            #expect(try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
            #expect(throws: TestStoreError.self) {
                try reader.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('b')") }
            }
        }
        // A store that needs a migration is opened the usual way in this mode too.
        try StoreOpening.$connections.withValue(.single) {
            let store = try openStore(url, versions: 2)
            #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
        }
    }

    /// A connection kept until exit is not closed with its store: its log keeps every commit
    /// (nothing checkpointed, nothing removed), and another connection sees them all.
    @Test func aConnectionKeptUntilExitLeavesItsLogAndLosesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.sqlite")
        try openStore(url).close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "closing removes the log")
        try StoreOpening.$connections.withValue(.singleUntilExit) {
            let store = try openStore(url)
            try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('kept')") }
            try store.close()
        }
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"), "the kept connection left its log")
        let other = try openStore(url)
        #expect(try other.read { db in try String.fetchAll(db, sql: "SELECT name FROM item") } == ["kept"])
        #expect(try other.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
    }
}
