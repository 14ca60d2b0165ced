import Foundation
import SuiteSyncProtocol
import Testing

/// The built `suite-server` executable, run as a process.
@Suite("suite-server binary")
struct ServerBinaryTests {
    /// The executable beside the test bundle.
    static func executable() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../.build/debug").standardized,
        ].map { $0.appendingPathComponent("suite-server") }
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, "suite-server is not built next to the tests")
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("suite-server-binary-\(UUID().uuidString)", isDirectory: true)
    }

    /// Runs the executable to its end (killing it after 30 s), with more environment variables.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            process.terminate()
        }
        defer { watchdog.cancel() }
        let (stdout, stderr) = try await blocking {
            let out = output.fileHandleForReading.readDataToEndOfFile()
            let err = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
        }
        return (process.terminationStatus, stdout, stderr)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func servesThenStopsCleanlyOnSignal(signal: Int32) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess(["--data-dir", folder.appendingPathComponent("data").path])
        let port = server.port
        #expect(port > 0)

        let health = try await blocking { try LoopbackClient.request(port: port, method: "GET", path: "/v1/health") }
        #expect(health.status == 200)
        #expect(String(decoding: health.body, as: UTF8.self) == "ok")

        // An open event stream must not hold the shutdown back.
        let session = try await Self.signup(port: port)
        let stream = try LoopbackClient(port: port)
        try stream.send(method: "GET", path: "/v1/events", headers: ["Authorization": "Bearer \(session.token)"])
        _ = try await blocking { try stream.readLine { $0 == ": connected" } }

        let end = try await server.stop(signal: signal)
        #expect(end.reason == .exit)
        #expect(end.status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("data/server.sqlite").path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    /// Two processes on one PostgreSQL database: a push served by one reaches an event stream
    /// open on the other.
    @Test(.enabled(if: TestBackend.postgresRuns, "SUITE_TEST_POSTGRES_URL is not set (Server/Scripts/with-postgres sets it)"))
    func twoProcessesOnPostgreSQLShareEvents() async throws {
        let database = try #require(TestBackend.postgresURL)
        let first = try await ServerProcess(["--database", database])
        let second = try await ServerProcess(["--database", database])
        let session = try await Self.signup(port: first.port)

        let stream = try LoopbackClient(port: first.port)
        try stream.send(method: "GET", path: "/v1/events", headers: ["Authorization": "Bearer \(session.token)"])
        _ = try await blocking { try stream.readLine { $0 == ": connected" } }

        let port = second.port
        let push = try await blocking {
            try LoopbackClient.request(
                port: port, method: "POST", path: "/v1/logs/bundles/push", headers: ["Authorization": "Bearer \(session.token)"],
                body: try SyncProtocol.encoder.encode(SyncPushRequest(operations: Fixtures.operations("two", count: 3))))
        }
        #expect(push.status == 200)
        #expect(try await blocking { try stream.readLine { $0.hasPrefix("data: ") } } == "data: bundles")

        for server in [first, second] {
            let end = try await server.stop()
            #expect(end.reason == .exit && end.status == 0)
        }
    }

    static func signup(port: Int) async throws -> SessionReply {
        let response = try await blocking {
            try LoopbackClient.request(port: port, method: "POST", path: "/v1/signup", body: try SyncProtocol.encoder.encode(Fixtures.signup()))
        }
        #expect(response.status == 201)
        return try SyncProtocol.decoder.decode(SessionReply.self, from: response.body)
    }

    @Test(arguments: [
        ["serve", "--listen", "nowhere"],
        ["serve", "--listen", "127.0.0.1:99999"],
        ["serve", "--data-dir", "/tmp/x", "--database", "postgres://u@h/db"],
        ["serve", "--database", "mysql://u@h/db"],
        ["serve", "--bogus"],
        ["serve", "--signup", "maybe"],
        ["serve", "--quota-mb", "-1"],
        ["serve", "--header-timeout", "0"],
        ["serve", "--max-connections", "0"],
        ["invite", "--days", "0"],
        ["launch"],
    ])
    func usageErrorsExit64WithOneLine(arguments: [String]) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func anUnreachableDatabaseExits69() async throws {
        let folder = Self.temporaryFolder()
        let result = try await Self.run(["serve", "--database", "postgres://nobody@/suite?host=\(folder.path)", "--listen", "127.0.0.1:0"])
        #expect(result.status == 69)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func anUnusableDataFolderExits74() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("not-a-folder")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8)))
        let result = try await Self.run(["serve", "--data-dir", file.path, "--listen", "127.0.0.1:0"])
        #expect(result.status == 74)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func helpGoesToStandardOutput() async throws {
        let result = try await Self.run(["serve", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--data-dir"))
        #expect(result.stdout.contains("--listen"))
    }

    /// `serve` signs up by invitation unless told: without a code the sign-up is refused;
    /// `suite-server invite` prints a code that works once.
    @Test func serveSignsUpByInvitationByDefault() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let server = try await ServerProcess(["--data-dir", data], openSignup: false)
        let port = server.port
        func signup(_ invite: String?) async throws -> Int {
            var request = Fixtures.signup()
            request.invite = invite
            let body = try SyncProtocol.encoder.encode(request)
            return try await blocking { try LoopbackClient.request(port: port, method: "POST", path: "/v1/signup", body: body).status }
        }
        #expect(try await signup(nil) == 403)
        let invite = try await Self.run(["invite", "--data-dir", data])
        #expect(invite.status == 0)
        let code = invite.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.range(of: #"^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$"#, options: .regularExpression) != nil, "\(code)")
        #expect(try await signup(code) == 201)
        #expect(try await signup(code) == 403)
        _ = try await server.stop()
    }
}
