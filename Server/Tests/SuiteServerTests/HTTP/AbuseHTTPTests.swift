import Foundation
import Logging
import ServiceLifecycle
import SuiteServer
import SuiteSyncProtocol
import Testing

/// Abuse over real sockets on a live server (127.0.0.1 and other loopback addresses, a free
/// port): what the limits see of a client is its socket's address.
@Suite("Abuse over HTTP")
struct AbuseHTTPTests {
    /// Runs a live server over SQLite until the body returns.
    static func withLiveServer(
        service makeService: @escaping @Sendable (any ServerStorage) -> SyncService = { Fixtures.service($0) },
        _ body: @escaping @Sendable (Int, SyncService) async throws -> Void
    ) async throws {
        try await TestBackend.sqlite.withPlace { place in
            let storage = try await place.open()
            let service = makeService(storage)
            var logger = Logger(label: "abuse-test")
            logger.logLevel = .warning
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            let app = ServerApplication.make(service: service, port: 0, logger: logger, onServerRunning: { portContinuation.yield($0) })
            let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                let port = try #require(await ports.first { _ in true })
                do {
                    try await body(port, service)
                } catch {
                    await group.triggerGracefulShutdown()
                    throw error
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    static func json<Value: Encodable>(_ value: Value) throws -> Data {
        try SyncProtocol.encoder.encode(value)
    }

    /// The limits count by the socket's address: guesses from 127.0.0.2 do not stop the owner
    /// at 127.0.0.3.
    @Test func signInLimitsCountBySocketAddress() async throws {
        try await Self.withLiveServer { port, service in
            let signup = Fixtures.signup()
            _ = try await service.signup(signup)
            let wrong = try Self.json(LoginRequest(account: signup.account, authenticationSecret: Data("nope".utf8), device: "x"))
            let right = try Self.json(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            var statuses: [Int] = []
            for _ in 0..<6 {
                statuses.append(try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.2", method: "POST", path: "/v1/login", body: wrong).status })
            }
            #expect(statuses == [401, 401, 401, 401, 401, 429])
            #expect(try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.2", method: "POST", path: "/v1/login", body: right).status } == 429)
            #expect(try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.3", method: "POST", path: "/v1/login", body: right).status } == 200)
        }
    }
}
