import Foundation
import GRDB
import Testing
@testable import SuiteStorage

@Suite struct StoreErrorKindTests {
    @Test func eachFailureKeepsItsKindAsAValue() {
        let path = "/x/store.sqlite"
        #expect(StoreError(.classify(DatabaseError(resultCode: .SQLITE_FULL), path: path)).kind == .diskFull)
        #expect(StoreError(.classify(DatabaseError(resultCode: .SQLITE_READONLY), path: path)).kind == .readOnly)
        #expect(StoreError(.classify(DatabaseError(resultCode: .SQLITE_BUSY), path: path)).kind == .busy)
        #expect(StoreError(.classify(DatabaseError(resultCode: .SQLITE_CORRUPT), path: path)).kind == .damaged)
        #expect(StoreError(.classify(DatabaseError(resultCode: .SQLITE_NOTADB), path: path)).kind == .damaged)
        #expect(StoreError(.newerSchema(path: path)).kind == .newerSchema)
        #expect(StoreError(.foreign(path: path, reason: "x")).kind == .foreign)
        for kind in StoreError.Kind.allCases {
            #expect(StoreError(kind: kind, path: path, detail: "d").description.contains(path))
        }
    }

    @Test func writingThroughAReadOnlyStoreIsAReadOnlyFailure() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.sqlite")
        _ = try openStore(url)
        let reader = try TestStore.open(at: url, migrator: migrator(versions: 1), configuration: configuration, readOnly: true)
        do {
            try reader.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('x')") }
            Issue.record("a read-only store must refuse writes")
        } catch {
            #expect(StoreError(error.failure).kind == .readOnly)
        }
    }
}

@Suite struct RecordIDTests {
    enum Thing {}

    @Test func encodesAsTheBareNumberAndParsesBack() throws {
        let id: RecordID<Thing> = 42
        #expect(String(decoding: try JSONEncoder().encode([id]), as: UTF8.self) == "[42]")
        #expect(try JSONDecoder().decode([RecordID<Thing>].self, from: Data("[7]".utf8)) == [7])
        #expect(RecordID<Thing>("12") == 12)
        #expect(RecordID<Thing>("#12") == nil)
        #expect("\(id)" == "42")
    }
}

@Suite struct InMemoryStoreFoundationTests {
    @Test func hasTheMigrationsAndTheApplicationID() throws {
        let store = try TestStore.inMemory(migrator: migrator(versions: 2), configuration: configuration)
        try store.write { db in try db.execute(sql: "INSERT INTO item (name, note) VALUES ('a', 'b')") }
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
        #expect(try store.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") } == configuration.applicationID)
        #expect(try store.read { db in try Int32.fetchOne(db, sql: "PRAGMA user_version") } == 2)
    }

    @Test func observesItsOwnWritesAndEndsOnCancellation() async throws {
        let store = try TestStore.inMemory(migrator: migrator(versions: 1), configuration: configuration)
        let counts = store.observe { () throws(TestStoreError) -> Int in
            try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? 0 }
        }
        let task = Task {
            var seen: [Int] = []
            for try await count in counts {
                seen.append(count)
                if count == 2 { break }
            }
            return seen
        }
        while store.changes.subscriberCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('a')") }
        try await Task.sleep(for: .milliseconds(50))
        try store.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('b')") }
        let seen = try await task.value
        #expect(seen.first == 0 || seen.first == 1)
        #expect(seen.last == 2)
        // Leaving the loop cancels the observation's work.
        for _ in 0..<30_000 where store.changes.subscriberCount != 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.changes.subscriberCount == 0)
    }
}
