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
        keepAlive: Duration = EventStream.defaultKeepAlive,
        _ body: @escaping @Sendable (Int, SyncService) async throws -> Void
    ) async throws {
        try await TestBackend.sqlite.withPlace { place in
            try await withLiveServer(storage: try await place.open(), service: makeService, keepAlive: keepAlive, body)
        }
    }

    /// Runs a live server over a storage (which it runs) until the body returns.
    static func withLiveServer(
        storage: any ServerStorage,
        service makeService: @escaping @Sendable (any ServerStorage) -> SyncService = { Fixtures.service($0) },
        keepAlive: Duration = EventStream.defaultKeepAlive,
        _ body: @escaping @Sendable (Int, SyncService) async throws -> Void
    ) async throws {
        do {
            let service = makeService(storage)
            var logger = Logger(label: "abuse-test")
            logger.logLevel = .warning
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            let app = try ServerApplication.make(service: service, port: 0, keepAlive: keepAlive, logger: logger, onServerRunning: { portContinuation.yield($0) })
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
            for _ in 0..<11 {
                statuses.append(try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.2", method: "POST", path: "/v1/login", body: wrong).status })
            }
            #expect(statuses == Array(repeating: 401, count: 10) + [429])
            #expect(try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.2", method: "POST", path: "/v1/login", body: right).status } == 429)
            #expect(try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.3", method: "POST", path: "/v1/login", body: right).status } == 200)
        }
    }

    /// Opens an event stream for a token and waits until it is subscribed.
    static func openStream(port: Int, token: String) async throws -> LoopbackClient {
        let stream = try LoopbackClient(port: port, timeout: 5)
        try stream.send(method: "GET", path: "/v1/events", headers: ["Authorization": "Bearer \(token)", "Connection": "close"])
        _ = try await blocking { try stream.readLine { $0 == ": connected" } }
        return stream
    }

    /// Revoking a device, or its logout, ends its open event stream at once (the keep-alive is
    /// a minute here, so only the revocation can end it); the other device's stream stays.
    @Test func revocationAndLogoutEndTheDevicesStreams() async throws {
        try await Self.withLiveServer(keepAlive: .seconds(60)) { port, service in
            let signup = Fixtures.signup()
            let laptop = try await service.signup(signup)
            let phone = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            let tablet = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "tablet"))
            let phoneStream = try await Self.openStream(port: port, token: phone.token)
            let tabletStream = try await Self.openStream(port: port, token: tablet.token)
            let laptopStream = try await Self.openStream(port: port, token: laptop.token)

            let revoke = try await blocking {
                try LoopbackClient.request(port: port, method: "DELETE", path: "/v1/devices/\(phone.deviceID)", headers: ["Authorization": "Bearer \(laptop.token)"])
            }
            #expect(revoke.status == 204)
            let started = ContinuousClock.now
            _ = try await blocking { try phoneStream.readToEnd() }
            #expect(ContinuousClock.now - started < .seconds(4))

            let logout = try await blocking {
                try LoopbackClient.request(port: port, method: "POST", path: "/v1/logout", headers: ["Authorization": "Bearer \(tablet.token)"])
            }
            #expect(logout.status == 204)
            _ = try await blocking { try tabletStream.readToEnd() }

            // The laptop's stream is still open and still hears pushes.
            let push = try await blocking {
                try LoopbackClient.request(port: port, method: "POST", path: "/v1/logs/notes/push",
                                           headers: ["Authorization": "Bearer \(laptop.token)", "Content-Type": "application/json"],
                                           body: try Self.json(SyncPushRequest(operations: Fixtures.operations("r", count: 1))))
            }
            #expect(push.status == 200)
            #expect(try await blocking { try laptopStream.readLine { $0.hasPrefix("data: ") } } == "data: notes")
        }
    }

    /// A device revoked behind this process's back (another server process on the same
    /// database) loses its stream at the next keep-alive.
    @Test func aStreamChecksItsTokenAtEachKeepAlive() async throws {
        try await Self.withLiveServer(keepAlive: .milliseconds(300)) { port, service in
            let signup = Fixtures.signup()
            let laptop = try await service.signup(signup)
            let phone = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            let stream = try await Self.openStream(port: port, token: phone.token)
            _ = try await blocking { try stream.readLine { $0 == ": keep-alive" } }
            let session = try await service.authenticate(token: laptop.token)
            #expect(try await service.storage.removeDevice(id: phone.deviceID, accountID: session.accountID))
            _ = try await blocking { try stream.readToEnd() }
        }
    }
}
