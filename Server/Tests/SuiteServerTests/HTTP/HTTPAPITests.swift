import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SuiteServer
import SuiteSyncProtocol
import Testing

/// The HTTP layer on SQLite, without sockets: routes, statuses and error bodies.
@Suite("HTTP API")
struct HTTPAPITests {
    static func withApp(
        service makeService: @escaping @Sendable (any ServerStorage) -> SyncService = { Fixtures.service($0) },
        _ body: @escaping @Sendable (any TestClientProtocol, any InspectableStorage) async throws -> Void
    ) async throws {
        try await TestBackend.sqlite.withPlace { place in
            let storage = try await place.open()
            var logger = Logger(label: "http-test")
            logger.logLevel = .warning
            let app = try ServerApplication.make(service: makeService(storage), logger: logger)
            try await app.test(.router) { client in
                try await body(client, storage)
            }
        }
    }

    static func json<Value: Encodable>(_ value: Value) throws -> ByteBuffer {
        ByteBuffer(bytes: try SyncProtocol.encoder.encode(value))
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ response: TestResponse) throws -> Value {
        try SyncProtocol.decoder.decode(type, from: Data(response.body.readableBytesView))
    }

    static func bearer(_ token: String) -> HTTPFields {
        [.authorization: "Bearer \(token)", .contentType: "application/json"]
    }

    static func signup(_ client: any TestClientProtocol, _ request: SignupRequest = Fixtures.signup()) async throws -> SessionReply {
        let response = try await client.execute(uri: "/v1/signup", method: .post, body: try json(request))
        #expect(response.status == .created)
        return try decode(SessionReply.self, response)
    }

    /// The error body's message, checking that it is a ServerErrorReply.
    static func errorMessage(_ response: TestResponse) throws -> String {
        #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
        return try decode(ServerErrorReply.self, response).error
    }

    @Test func keysOverHTTP() async throws {
        try await Self.withApp { client, storage in
            let request = Fixtures.signup()
            let session = try await Self.signup(client, request)
            let change = PasswordChangeRequest(authenticationSecret: Data("wrong".utf8), newAuthenticationSecret: Data("new-secret-0123456789".utf8),
                                               salt: Data(repeating: 3, count: 16), rounds: 600_000, wrappedKey: Data("w".utf8))
            // A wrong password with a valid token is 403, not 401: the device is still signed in.
            let wrong = try await client.execute(uri: "/v1/account/password", method: .post, headers: Self.bearer(session.token), body: try Self.json(change))
            #expect(wrong.status == .forbidden)
            #expect(try Self.errorMessage(wrong) == "the current password is wrong")
            let unsigned = try await client.execute(uri: "/v1/account/password", method: .post, body: try Self.json(change))
            #expect(unsigned.status == .unauthorized)
            var right = change
            right.authenticationSecret = request.authenticationSecret
            let changed = try await client.execute(uri: "/v1/account/password", method: .post, headers: Self.bearer(session.token), body: try Self.json(right))
            #expect(changed.status == .noContent)

            let key = try await client.execute(uri: "/v1/recover/key", method: .post,
                                               body: try Self.json(RecoveryKeyRequest(account: request.account, recoverySecret: try #require(request.recoverySecret))))
            #expect(try Self.decode(RecoveryKeyReply.self, key).recoveryWrappedKey == request.recoveryWrappedKey)
            let recover = RecoverRequest(account: request.account, recoverySecret: try #require(request.recoverySecret), authenticationSecret: Data("recovered-0123456789".utf8),
                                         salt: Data(repeating: 4, count: 16), rounds: 600_000, wrappedKey: Data("w2".utf8), device: "phone")
            let recovered = try await client.execute(uri: "/v1/recover", method: .post, body: try Self.json(recover))
            #expect(recovered.status == .created)
            let phone = try Self.decode(SessionReply.self, recovered)
            let garbage = try await client.execute(uri: "/v1/recover", method: .post, body: ByteBuffer(string: "{\"account\": 1}"))
            #expect(garbage.status == .badRequest)

            let deleted = try await client.execute(uri: "/v1/account/delete", method: .post, headers: Self.bearer(phone.token),
                                                   body: try Self.json(AccountDeletionRequest(authenticationSecret: recover.authenticationSecret)))
            #expect(deleted.status == .noContent)
            #expect(try await storage.account(named: request.account) == nil)
            let after = try await client.execute(uri: "/v1/devices", method: .get, headers: Self.bearer(session.token))
            #expect(after.status == .unauthorized)
        }
    }

    @Test func healthAnswersOK() async throws {
        try await Self.withApp { client, _ in
            let response = try await client.execute(uri: "/v1/health", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == "ok")
        }
    }

    @Test func accountsOverHTTP() async throws {
        try await Self.withApp { client, storage in
            let request = Fixtures.signup()
            let session = try await Self.signup(client, request)

            let again = try await client.execute(uri: "/v1/signup", method: .post, body: try Self.json(request))
            #expect(again.status == .conflict)
            #expect(try Self.errorMessage(again).contains("exists"))

            let bad = try await client.execute(uri: "/v1/signup", method: .post, body: try Self.json(Fixtures.signup(account: "a\u{0}b")))
            #expect(bad.status == .badRequest)
            let empty = try await client.execute(uri: "/v1/signup", method: .post, body: try Self.json(Fixtures.signup(secret: Data())))
            #expect(empty.status == .badRequest)
            let garbage = try await client.execute(uri: "/v1/signup", method: .post, body: ByteBuffer(string: "{not json"))
            #expect(garbage.status == .badRequest)
            _ = try Self.errorMessage(garbage)

            let prelogin = try await client.execute(uri: "/v1/prelogin", method: .post, body: try Self.json(PreloginRequest(account: request.account)))
            #expect(try Self.decode(PreloginReply.self, prelogin) == PreloginReply(salt: request.salt, rounds: request.rounds))

            let login = try await client.execute(uri: "/v1/login", method: .post, body: try Self.json(LoginRequest(account: request.account, authenticationSecret: request.authenticationSecret, device: "phone")))
            #expect(login.status == .ok)
            let phone = try Self.decode(SessionReply.self, login)
            #expect(phone.deviceID != session.deviceID)

            let wrong = try await client.execute(uri: "/v1/login", method: .post, body: try Self.json(LoginRequest(account: request.account, authenticationSecret: Data("nope".utf8), device: "phone")))
            #expect(wrong.status == .unauthorized)
            #expect(try Self.errorMessage(wrong) == "wrong account or secret")

            let devices = try await client.execute(uri: "/v1/devices", method: .get, headers: Self.bearer(session.token))
            #expect(devices.status == .ok)
            let list = try Self.decode([DeviceInfo].self, devices)
            #expect(list.count == 2 && list.filter(\.isCurrent).map(\.id) == [session.deviceID])

            let missing = try await client.execute(uri: "/v1/devices/\(UUID().uuidString.lowercased())", method: .delete, headers: Self.bearer(session.token))
            #expect(missing.status == .notFound)
            let revoke = try await client.execute(uri: "/v1/devices/\(phone.deviceID)", method: .delete, headers: Self.bearer(session.token))
            #expect(revoke.status == .noContent)
            let revoked = try await client.execute(uri: "/v1/devices", method: .get, headers: Self.bearer(phone.token))
            #expect(revoked.status == .unauthorized)
            #expect(revoked.headers[.wwwAuthenticate] == "Bearer")

            let logout = try await client.execute(uri: "/v1/logout", method: .post, headers: Self.bearer(session.token))
            #expect(logout.status == .noContent)
            let after = try await client.execute(uri: "/v1/devices", method: .get, headers: Self.bearer(session.token))
            #expect(after.status == .unauthorized)
            #expect(try await storage.dumpRows(of: "devices").filter { $0.contains(session.deviceID) }.isEmpty)
        }
    }

    /// A request that must be refused for its missing or bad token.
    struct UnauthenticatedRequest: Sendable, CustomTestStringConvertible {
        var path: String
        var method: HTTPRequest.Method
        var authorization: String?
        var testDescription: String { "\(method) \(path) \(authorization ?? "without Authorization")" }
    }

    @Test(arguments: [
        UnauthenticatedRequest(path: "/v1/devices", method: .get, authorization: nil),
        UnauthenticatedRequest(path: "/v1/devices", method: .get, authorization: "Bearer not-a-token"),
        UnauthenticatedRequest(path: "/v1/devices", method: .get, authorization: "Basic dXNlcjpwYXNz"),
        UnauthenticatedRequest(path: "/v1/logs/notes", method: .get, authorization: nil),
        UnauthenticatedRequest(path: "/v1/logs/notes/push", method: .post, authorization: nil),
        UnauthenticatedRequest(path: "/v1/events", method: .get, authorization: nil),
        UnauthenticatedRequest(path: "/v1/logout", method: .post, authorization: "Bearer"),
    ])
    func protectedRoutesNeedAValidToken(request: UnauthenticatedRequest) async throws {
        let (path, method) = (request.path, request.method)
        let headers: HTTPFields = request.authorization.map { [.authorization: $0] } ?? [:]
        try await Self.withApp { client, _ in
            let response = try await client.execute(uri: path, method: method, headers: headers, body: try Self.json(SyncPushRequest(operations: [])))
            #expect(response.status == .unauthorized)
            _ = try Self.errorMessage(response)
        }
    }

    @Test func logsOverHTTP() async throws {
        try await Self.withApp { client, _ in
            let session = try await Self.signup(client)
            let operations = Fixtures.operations("h", count: 12)
            let push = try await client.execute(uri: "/v1/logs/notes/push", method: .post, headers: Self.bearer(session.token), body: try Self.json(SyncPushRequest(operations: operations)))
            #expect(push.status == .ok)
            let pushed = try Self.decode(SyncPushReply.self, push)
            #expect(pushed.head == 12)

            let page = try await client.execute(uri: "/v1/logs/notes?after=4&limit=5", method: .get, headers: Self.bearer(session.token))
            let reply = try Self.decode(SyncPullReply.self, page)
            #expect(reply == SyncPullReply(epoch: pushed.epoch, head: 12, operations: Array(operations[4..<9]), next: 9, anchor: "h-3", serverTime: reply.serverTime))
            // The server's clock, in milliseconds, for the devices' clock check.
            let sent = Date().timeIntervalSince1970 * 1000
            for time in [pushed.serverTime, reply.serverTime] {
                let millis = try #require(time)
                #expect(abs(Double(millis) - sent) < 60_000)
            }

            let all = try Self.decode(SyncPullReply.self, try await client.execute(uri: "/v1/logs/notes", method: .get, headers: Self.bearer(session.token)))
            #expect(all.operations == operations && all.next == 12 && all.anchor == nil)

            for query in ["after=x", "limit=0", "after=-1", "limit=ten"] {
                let response = try await client.execute(uri: "/v1/logs/notes?\(query)", method: .get, headers: Self.bearer(session.token))
                #expect(response.status == .badRequest, "\(query)")
            }
            for name in ["Notes", "a_b", "%20", String(repeating: "n", count: 65)] {
                let pull = try await client.execute(uri: "/v1/logs/\(name)", method: .get, headers: Self.bearer(session.token))
                #expect(pull.status == .badRequest, "\(name)")
                let push = try await client.execute(uri: "/v1/logs/\(name)/push", method: .post, headers: Self.bearer(session.token), body: try Self.json(SyncPushRequest(operations: operations)))
                #expect(push.status == .badRequest, "\(name)")
                _ = try Self.errorMessage(push)
            }
            let tooMany = try await client.execute(
                uri: "/v1/logs/notes/push", method: .post, headers: Self.bearer(session.token),
                body: try Self.json(SyncPushRequest(operations: Fixtures.operations("t", count: SyncProtocol.maximumBatch + 1))))
            #expect(tooMany.status == .badRequest)
            #expect(try Self.errorMessage(tooMany).contains("\(SyncProtocol.maximumBatch)"))
            let garbage = try await client.execute(uri: "/v1/logs/notes/push", method: .post, headers: Self.bearer(session.token), body: ByteBuffer(string: #"{"operations": 3}"#))
            #expect(garbage.status == .badRequest)

            let unknown = try await client.execute(uri: "/v1/nothing-here", method: .get)
            #expect(unknown.status == .notFound)
            _ = try Self.errorMessage(unknown)
        }
    }

    @Test func signInsAreRateLimited() async throws {
        try await Self.withApp { client, _ in
            let request = Fixtures.signup()
            _ = try await Self.signup(client, request)
            let wrong = try Self.json(LoginRequest(account: request.account, authenticationSecret: Data("nope".utf8), device: "phone"))
            for _ in 0..<SignInRateLimiter.Rules().addressFailures {
                #expect(try await client.execute(uri: "/v1/login", method: .post, body: wrong).status == .unauthorized)
            }
            let right = try Self.json(LoginRequest(account: request.account, authenticationSecret: request.authenticationSecret, device: "phone"))
            let limited = try await client.execute(uri: "/v1/login", method: .post, body: right)
            #expect(limited.status == .tooManyRequests)
            _ = try Self.errorMessage(limited)
        }
    }

    @Test func secretsAreHashedWithBcryptCostTen() async throws {
        try await Self.withApp(service: { SyncService(storage: $0) }) { client, storage in
            let request = Fixtures.signup()
            _ = try await Self.signup(client, request)
            let account = try #require(try await storage.account(named: request.account))
            #expect(account.passwordHash.hasPrefix("$2b$10$"))
            let login = try await client.execute(uri: "/v1/login", method: .post, body: try Self.json(LoginRequest(account: request.account, authenticationSecret: request.authenticationSecret, device: "phone")))
            #expect(login.status == .ok)
        }
    }
}
