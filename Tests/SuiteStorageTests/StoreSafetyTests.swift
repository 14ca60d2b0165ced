import Foundation
import GRDB
import Testing
@testable import SuiteStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// §4 of issue 14: the lock file, refused writes and damage SQLite meets.
@Suite struct StoreSafety {
    @Test func aSymlinkAtTheLockPathIsRefusedAndItsTargetNeitherCreatedNorChanged() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.sqlite")
        let missingTarget = folder.appendingPathComponent("elsewhere-missing").path
        let existingTarget = folder.appendingPathComponent("elsewhere-existing").path
        try Data("precious".utf8).write(to: URL(fileURLWithPath: existingTarget))
        #expect(chmod(existingTarget, 0o644) == 0)
        for target in [missingTarget, existingTarget] {
            unlink(url.path + ".lock")
            #expect(symlink(target, url.path + ".lock") == 0)
            do {
                _ = try openStore(url)
                Issue.record("a symlinked lock file must be refused")
            } catch {
                guard case .unavailable(let path, let reason) = error.failure else {
                    Issue.record("unexpected failure \(error.failure)")
                    continue
                }
                #expect(path == url.path + ".lock")
                #expect(reason.contains("symbolic link"))
            }
        }
        #expect(!FileManager.default.fileExists(atPath: missingTarget), "the link's target was created")
        #expect(try String(contentsOfFile: existingTarget, encoding: .utf8) == "precious")
        #expect(try mode(existingTarget) == 0o644)
        #expect(!FileManager.default.fileExists(atPath: url.path), "a store was created without its lock")
    }

    @Test func aLockPathThatIsNotARegularFileIsRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.sqlite")
        #expect(mkfifo(url.path + ".lock", 0o600) == 0)
        #expect(throws: TestStoreError.self) { _ = try openStore(url) }
    }

    /// Reopening a current store and refusing a write (an error inside the transaction) moves
    /// nothing in the file: not the change counter, not the schema cookie.
    @Test func aRefusedWriteLeavesTheFileByteIdentical() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.sqlite")
        do {
            let store = try openStore(url)
            try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('a')") }
            try store.close()
        }
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "closing checkpoints and removes the log")
        let before = try Data(contentsOf: url)
        struct Refused: Error {}
        do {
            let store = try openStore(url)
            #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
            #expect(throws: TestStoreError.self) {
                try store.write { db in
                    try db.execute(sql: "INSERT INTO item (name) VALUES ('b')")
                    throw TestStoreError(storeFailure: .unavailable(path: url.path, reason: "refused"))
                }
            }
            try store.close()
        }
        #expect(try Data(contentsOf: url) == before)
        let log = (try? Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))) ?? Data()
        #expect(log.isEmpty)
        // And a write that commits still works and is durable.
        let store = try openStore(url)
        try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('c')") }
        try store.close()
        #expect(try openStore(url).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 2)
    }

    /// An error SQLite raises as SQLITE_CORRUPT while reading or writing is a `.corrupt` failure
    /// naming the store (the CLI's exit 74), and the write changes nothing.
    @Test func damageMetWhileReadingOrWritingIsACorruptFailure() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.sqlite")
        do {
            let store = try openStore(url)
            try store.write { db in
                for index in 0..<2_000 {
                    try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: ["item number \(index) with some padding text"])
                }
            }
            try store.close()
        }
        let (root, pageSize) = try openStore(url).read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'item'") ?? 0,
             try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
        var bytes = try Data(contentsOf: url)
        let offset = (root - 1) * pageSize
        try #require(root > 1 && offset + pageSize <= bytes.count)
        let pageType = bytes[offset]
        #expect(pageType == 0x05, "the table's root should be an interior table page")
        bytes.replaceSubrange(offset..<offset + pageSize, with: [UInt8](repeating: 0xA5, count: pageSize))
        try bytes.write(to: url)

        let store = try openStore(url)
        for attempt in ["read", "write"] {
            do {
                if attempt == "read" {
                    _ = try store.read { db in try Int.fetchOne(db, sql: "SELECT max(name) FROM item") }
                } else {
                    try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('x')") }
                }
                Issue.record("the \(attempt) should have failed")
            } catch {
                guard case .corrupt(let path, _) = error.failure else {
                    Issue.record("\(attempt): unexpected failure \(error.failure)")
                    continue
                }
                #expect(path == url.path)
            }
        }
        try store.close()
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try StoreCheck.problems(path: url.path, applicationID: configuration.applicationID).isEmpty == false)
    }

    @Test func checkFindsAHealthyStoreHealthyAndAForeignOneForeign() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.sqlite")
        try openStore(url).close()
        let before = try Data(contentsOf: url)
        #expect(try StoreCheck.problems(path: url.path, applicationID: configuration.applicationID) == [])
        #expect(throws: StoreFailure.self) { try StoreCheck.problems(path: url.path, applicationID: 42) }
        #expect(try Data(contentsOf: url) == before)
    }
}
