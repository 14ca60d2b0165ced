import Foundation
import SuiteServer
import SuiteSyncProtocol
import Testing

/// `suite-server accounts …` run as a process beside a running `serve`.
extension ServerBinaryTests {
    /// SQLite, and PostgreSQL when `SUITE_TEST_POSTGRES_URL` or CI is set.
    static let accountBackends: [TestBackend] = [.sqlite] + (TestBackend.postgresRuns ? [.postgres] : [])

    /// The storage flags of a backend.
    static func storageArguments(_ backend: TestBackend, folder: URL) throws -> [String] {
        switch backend {
        case .sqlite: ["--data-dir", folder.appendingPathComponent("data").path]
        case .postgres: ["--database", try #require(TestBackend.postgresURL)]
        }
    }

    /// list, disable, enable and delete against the storage of a running server: what each
    /// prints, and what the account's device gets from the server after each.
    @Test(arguments: accountBackends)
    func accountsCommandsActOnARunningServer(backend: TestBackend) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let place = try Self.storageArguments(backend, folder: folder)
        let server = try await ServerProcess(place)
        let port = server.port
        let signup = Fixtures.signup()
        let name = signup.account
        let created = try await blocking {
            try LoopbackClient.request(port: port, method: "POST", path: "/v1/signup", body: try SyncProtocol.encoder.encode(signup))
        }
        #expect(created.status == 201)
        let session = try SyncProtocol.decoder.decode(SessionReply.self, from: created.body)
        let token = session.token
        let operations = Fixtures.operations("binary", count: 3)
        let push = try await blocking {
            try LoopbackClient.request(port: port, method: "POST", path: "/v1/logs/notes/push", headers: ["Authorization": "Bearer \(token)"],
                                       body: try SyncProtocol.encoder.encode(SyncPushRequest(operations: operations)))
        }
        #expect(push.status == 200)
        func pull() async throws -> (status: Int, body: String) {
            let reply = try await blocking {
                try LoopbackClient.request(port: port, method: "GET", path: "/v1/logs/notes", headers: ["Authorization": "Bearer \(token)"])
            }
            return (reply.status, String(decoding: reply.body, as: UTF8.self))
        }
        func accounts(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await Self.run(["accounts"] + arguments + place)
        }
        func entry() async throws -> AccountListEntry? {
            let list = try await accounts(["list", "--json"])
            #expect(list.status == 0 && list.stderr.isEmpty, "\(list.stderr)")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode([AccountListEntry].self, from: Data(list.stdout.utf8)).first { $0.name == name }
        }

        let table = try await accounts(["list"])
        #expect(table.status == 0 && table.stderr.isEmpty, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("NAME") == true)
        let line = try #require(lines.first { $0.hasPrefix(name + " ") })
        #expect(line.hasSuffix("in use"))
        #expect(line.count == lines[0].count - "STATE".count + "in use".count, "aligned: \(table.stdout)")
        #expect(!table.stdout.contains(token) && !table.stdout.contains("laptop"))
        let listed = try #require(try await entry())
        #expect(listed.devices == 1 && listed.logs == 1 && listed.operations == 3 && !listed.disabled && listed.disabledAt == nil)
        #expect(listed.bytes == operations.reduce(0) { $0 + Int64(SyncProtocol.size(of: $1) + 16) })

        let disable = try await accounts(["disable", name])
        #expect(disable.status == 0 && disable.stderr.isEmpty, "\(disable.stderr)")
        #expect(disable.stdout.hasPrefix("disabled \(name):"))
        let refused = try await pull()
        #expect(refused.status == 403)
        #expect(refused.body == #"{"error":"this account is disabled by the server's operator"}"#)
        #expect(try await entry()?.disabled == true)
        #expect(try await accounts(["list"]).stdout.split(separator: "\n").first { $0.hasPrefix(name + " ") }?.contains("disabled since") == true)
        #expect(try await accounts(["disable", name]).stdout.contains("already disabled"))

        let enable = try await accounts(["enable", name])
        #expect(enable.status == 0 && enable.stdout.hasPrefix("enabled \(name)"), "\(enable)")
        #expect(try await pull().status == 200)
        #expect(try await accounts(["enable", name]).stdout == "\(name) was not disabled\n")

        let unconfirmed = try await accounts(["delete", name])
        #expect(unconfirmed.status == 1)
        #expect(unconfirmed.stdout.isEmpty)
        #expect(unconfirmed.stderr.split(separator: "\n").count == 1, "\(unconfirmed.stderr)")
        #expect(unconfirmed.stderr.hasPrefix("suite-server: deleting \(name) removes 1 device, 1 log, 3 operations"))
        #expect(unconfirmed.stderr.contains("add --yes"))
        #expect(try await pull().status == 200)

        let delete = try await accounts(["delete", name, "--yes"])
        #expect(delete.status == 0 && delete.stderr.isEmpty, "\(delete.stderr)")
        #expect(delete.stdout.hasPrefix("deleted \(name) and 1 device, 1 log, 3 operations"))
        #expect(try await pull().status == 401)
        #expect(try await entry() == nil)

        let end = try await server.stop()
        #expect(end.reason == .exit && end.status == 0)
    }

    /// A name no account has: one line on stderr, exit 1, nothing printed or changed.
    @Test(arguments: [["disable", "nobody"], ["enable", "nobody"], ["delete", "nobody"], ["delete", "nobody", "--yes"]])
    func anUnknownAccountExits1WithOneLine(arguments: [String]) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let result = try await Self.run(["accounts"] + arguments + ["--data-dir", data])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "suite-server: no account is named \"nobody\"\n")
        let list = try await Self.run(["accounts", "list", "--data-dir", data])
        #expect(list.status == 0 && list.stdout == "no accounts\n")
        let json = try await Self.run(["accounts", "list", "--json", "--data-dir", data])
        #expect(json.status == 0 && json.stdout.filter { !$0.isWhitespace } == "[]")
    }

    @Test(arguments: [
        ["accounts", "disable"],
        ["accounts", "list", "--bogus"],
        ["accounts", "delete", "x", "--data-dir", "/tmp/x", "--database", "postgres://u@h/db"],
        ["accounts", "remove", "x"],
    ])
    func accountsUsageErrorsExit64WithOneLine(arguments: [String]) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("(see suite-server accounts "), "\(result.stderr)")
    }

    @Test func accountsHelpNamesTheSubcommandsAndExitCodes() async throws {
        let group = try await Self.run(["accounts", "--help"])
        #expect(group.status == 0)
        for word in ["list", "disable", "enable", "delete", "Exit codes"] {
            #expect(group.stdout.contains(word), "\(word)")
        }
        let delete = try await Self.run(["accounts", "delete", "--help"])
        #expect(delete.status == 0)
        #expect(delete.stdout.contains("--yes") && delete.stdout.contains("exits 1"))
    }
}
