import Foundation
import SuiteSync
import SuiteTestSupport
import Testing
@testable import SuiteCLI

/// `suite sync` against a real HTTP server whose logs hold a damaged operation and one moved from
/// another log: the sync finishes for everything else in both directions, says in one line what
/// was set aside (never blaming the password), and `sync status` and `sync set-aside` show it.
@Suite struct SyncSetAsideCommandTests {
    @Test func aDamagedOrMovedOperationIsSetAsideAndEverythingElseSyncs() async throws {
        let server = try await LoopbackSyncServer()
        let a = try Suite(), b = try Suite()
        let dataKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        for (suite, device) in [(a, "device-a"), (b, "device-b")] {
            try SyncAccount(server: server.baseURL, account: "ada", deviceID: device, token: "token-\(device)", dataKey: dataKey).save(in: suite.storeFolder)
        }
        #expect(try await a.runAsync(["bmm", "add", "Acme"]).status == 0)
        #expect(try await a.runAsync(["bundle", "add", "Call the plumber", "--before", "leave home"]).status == 0)
        let first = try await a.runAsync(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        // A rename on A, damaged on the server; and one of the bmm log's operations moved into the bundle log.
        let before = await server.logs.operations(log: "bmm").count
        #expect(try await a.runAsync(["bmm", "rename", "Acme Bakery"]).status == 0)
        #expect(try await a.runAsync(["sync"]).status == 0)
        let renamed = await server.logs.operations(log: "bmm").dropFirst(before)
        #expect(!renamed.isEmpty)
        for operation in renamed {
            var payload = operation.payload
            payload[payload.count - 1] ^= 0x01
            await server.logs.damage(log: "bmm", id: operation.id, payload: payload)
        }
        let moved = try #require(await server.logs.operations(log: "bmm").first)
        await server.logs.copy(id: moved.id, from: "bmm", to: "bundle")

        #expect(try await b.runAsync(["bundle", "add", "Water the plants", "--after", "come back from work"]).status == 0)
        let synced = try await b.runAsync(["sync"])
        let count = renamed.count + 1
        #expect(synced.status == 65)
        #expect(synced.errorLines.count == 1, "\(synced.stderr)")
        #expect(synced.stderr.hasPrefix("suite: \(count) operations from the server could not be used and were set aside (bmm \(renamed.count), bundle 1)"))
        #expect(synced.stderr.contains("suite sync set-aside"))
        #expect(!synced.stderr.lowercased().contains("password"))
        #expect(synced.stdout.contains("bundle: sent") && synced.stdout.contains("1 set aside"))

        // Everything else arrived: the model (under its name before the damaged rename) and A's todo.
        #expect(try await b.runAsync(["bmm", "list"]).stdout.contains("Acme"))
        #expect(!(try await b.runAsync(["bmm", "list"]).stdout.contains("Acme Bakery")))
        #expect(try await b.runAsync(["bundle", "list"]).stdout.contains("Call the plumber"))
        // And B's todo went the other way (A meets the moved operation too, and sets it aside).
        let back = try await a.runAsync(["sync"])
        #expect(back.status == 65)
        #expect(back.stderr.hasPrefix("suite: 1 operation from the server could not be used and was set aside (bundle 1)"))
        #expect(try await a.runAsync(["bundle", "list"]).stdout.contains("Water the plants"))

        let status = try await b.runAsync(["sync", "status"])
        #expect(status.status == 0)
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("bmm: ") && $0.hasSuffix("; \(renamed.count) operation\(renamed.count == 1 ? "" : "s") from the server set aside (suite sync set-aside)") })
        #expect(lines.contains { $0.hasPrefix("bundle: ") && $0.hasSuffix("; 1 operation from the server set aside (suite sync set-aside)") })
        #expect(status.stdout.contains("Last error: \(count) operations from the server could not be used"))
        let statusJSON = try JSONSerialization.jsonObject(with: Data(try await b.runAsync(["sync", "status", "--json"]).stdout.utf8)) as? [String: Any]
        let stores = try #require(statusJSON?["stores"] as? [[String: Any]])
        #expect(stores.first { $0["store"] as? String == "bundle" }?["setAside"] as? Int == 1)

        let listed = try await b.runAsync(["sync", "set-aside"])
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("bundle \(moved.id): does not open with the account's key"))
        for operation in renamed { #expect(listed.stdout.contains("bmm \(operation.id): does not open")) }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await b.runAsync(["sync", "set-aside", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(json.count == count)
        #expect(json.contains { $0["log"] as? String == "bundle" && $0["operation"] as? String == moved.id && ($0["reason"] as? String)?.isEmpty == false })

        // The next sync goes through: nothing new set aside; the kept ones are still listed.
        let again = try await b.runAsync(["sync"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.isEmpty)
        #expect(try await b.runAsync(["sync", "status"]).stdout.contains("; 1 operation from the server set aside (suite sync set-aside)"))
        await server.stop()
    }

    /// The password is named where it is the cause: logging in with a wrong one.
    @Test func aWrongPasswordAtLoginSaysPassword() async throws {
        let server = try await LoopbackSyncServer()
        let suite = try Suite()
        let result = try await suite.runAsync(["sync", "login", "--server", server.baseURL.absoluteString, "--account", "ada", "--password-stdin"],
                                              stdin: Data("not the password".utf8))
        expectFailure(result, status: 1, "wrong account name or password")
        #expect(!FileManager.default.fileExists(atPath: suite.storeFolder.appendingPathComponent("sync.json").path))
        await server.stop()
    }
}
