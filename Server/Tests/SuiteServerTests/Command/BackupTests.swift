import Foundation
import Logging
import PostgresNIO
import SuiteServer
import SuiteSyncProtocol
import Testing

/// `suite-server backup` while pushes go on, and `restore` into an empty place: the account, its
/// token, its epoch and every operation acknowledged before the backup come back, positions
/// without gaps, and the device goes on syncing.
@Suite("Backup and restore")
struct BackupTests {
    static func pull(port: Int, token: String) async throws -> SyncPullReply {
        var after: Int64 = 0
        var all: SyncPullReply?
        while true {
            let path = "/v1/logs/notes?after=\(after)"
            let answer = try await blocking {
                try LoopbackClient.request(port: port, method: "GET", path: path, headers: ["Authorization": "Bearer \(token)"])
            }
            #expect(answer.status == 200)
            let page = try SyncProtocol.decoder.decode(SyncPullReply.self, from: answer.body)
            if all == nil { all = page } else { all?.operations += page.operations }
            all?.head = page.head
            after = page.next
            if !page.hasMore { return try #require(all) }
        }
    }

    static func push(port: Int, token: String, ids: [String]) async throws -> Int {
        let body = try SyncProtocol.encoder.encode(SyncPushRequest(operations: ids.map { SyncEnvelope(id: $0, slot: "s", payload: Data($0.utf8)) }))
        return try await blocking {
            try LoopbackClient.request(port: port, method: "POST", path: "/v1/logs/notes/push", headers: ["Authorization": "Bearer \(token)"], body: body).status
        }
    }

    func roundTrip(source: [String], target: [String]) async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let backup = folder.appendingPathComponent("backup").path
        let server = try await ServerProcess(source)
        let port = server.port
        let session = try await ServerBinaryTests.signup(port: port)
        let before = (0..<100).map { "before-\($0)" }
        #expect(try await Self.push(port: port, token: session.token, ids: before) == 200)
        let epoch = try await Self.pull(port: port, token: session.token).epoch
        // Pushes go on while the backup runs.
        let pusher = Task {
            var n = 0
            while !Task.isCancelled {
                _ = try? await Self.push(port: port, token: session.token, ids: ["during-\(n)"])
                n += 1
            }
        }
        let made = try await ServerBinaryTests.run(["backup"] + source + [backup])
        pusher.cancel()
        _ = await pusher.result
        #expect(made.status == 0, "\(made.stderr)")
        _ = try await server.stop()

        let restored = try await ServerBinaryTests.run(["restore"] + target + [backup])
        #expect(restored.status == 0, "\(restored.stderr)")
        let again = try await ServerBinaryTests.run(["restore"] + target + [backup])
        #expect(again.status == 74 && again.stderr.split(separator: "\n").count == 1, "a restore over a server: \(again.stderr)")

        let second = try await ServerProcess(target)
        let pulled = try await Self.pull(port: second.port, token: session.token)
        #expect(pulled.epoch == epoch)
        let ids = pulled.operations.map(\.id)
        #expect(Set(before).isSubset(of: Set(ids)))
        #expect(Int64(ids.count) == pulled.head, "positions without gaps")
        #expect(ids.allSatisfy { $0.hasPrefix("before-") || $0.hasPrefix("during-") })
        // The device goes on.
        #expect(try await Self.push(port: second.port, token: session.token, ids: ["after-restore"]) == 200)
        _ = try await second.stop()
    }

    @Test func sqliteWhileServing() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await roundTrip(source: ["--data-dir", folder.appendingPathComponent("a").path], target: ["--data-dir", folder.appendingPathComponent("b").path])
    }

    @Test(.enabled(if: TestBackend.postgresRuns, "SUITE_TEST_POSTGRES_URL is not set (Server/Scripts/with-postgres sets it)"))
    func postgresWhileServing() async throws {
        let source = try #require(TestBackend.postgresURL)
        try await TestBackend.withScratchDatabase { target in
            try await roundTrip(source: ["--database", source], target: ["--database", target])
        }
    }

    @Test func aDamagedOrForeignBackupIsRefused() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("a").path, backup = folder.appendingPathComponent("backup")
        #expect(try await ServerBinaryTests.run(["invite", "--data-dir", data]).status == 0)
        #expect(try await ServerBinaryTests.run(["backup", "--data-dir", data, backup.path]).status == 0)
        #expect(try await ServerBinaryTests.run(["backup", "--data-dir", data, backup.path]).status == 74, "a backup into a folder that is not empty")
        let handle = try FileHandle(forWritingTo: backup.appendingPathComponent("server.sqlite"))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data("damage".utf8))
        try handle.close()
        let damaged = try await ServerBinaryTests.run(["restore", "--data-dir", folder.appendingPathComponent("b").path, backup.path])
        #expect(damaged.status == 65 && damaged.stderr.contains("damaged"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("b/server.sqlite").path))
        let nothing = try await ServerBinaryTests.run(["restore", "--data-dir", folder.appendingPathComponent("b").path, folder.path])
        #expect(nothing.status == 65)
    }
}
