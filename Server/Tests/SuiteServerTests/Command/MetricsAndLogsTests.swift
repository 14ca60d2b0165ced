import Foundation
import SuiteSyncProtocol
import Testing

/// `/metrics` and the request log of the real executable: what they count, and that neither
/// holds a token, a secret, an account name or a payload.
@Suite("Metrics and logs")
struct MetricsAndLogsTests {
    @Test func metricsCountRoutesAndLogsHoldNoSecret() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("server.log")
        let server = try await ServerProcess(["--data-dir", folder.appendingPathComponent("data").path], errors: log, environment: ["LOG_LEVEL": "info"])
        let port = server.port
        let signup = Fixtures.signup(account: Fixtures.accountName("metrics"))
        let body = try SyncProtocol.encoder.encode(signup)
        let created = try await blocking { try LoopbackClient.request(port: port, method: "POST", path: "/v1/signup", body: body) }
        #expect(created.status == 201)
        let session = try SyncProtocol.decoder.decode(SessionReply.self, from: created.body)
        let auth = ["Authorization": "Bearer \(session.token)"]
        let operations = [SyncEnvelope(id: "m-1", slot: "s", payload: Data("payload-PLAINTEXT-MARK".utf8)), SyncEnvelope(id: "m-2", slot: "s", payload: Data("x".utf8)),
                          SyncEnvelope(id: "m-3", slot: "s", payload: Data("y".utf8))]
        let pushBody = try SyncProtocol.encoder.encode(SyncPushRequest(operations: operations))
        #expect(try await blocking { try LoopbackClient.request(port: port, method: "POST", path: "/v1/logs/notes/push", headers: auth, body: pushBody).status } == 200)
        #expect(try await blocking { try LoopbackClient.request(port: port, method: "GET", path: "/v1/logs/notes?after=0", headers: auth).status } == 200)
        #expect(try await blocking { try LoopbackClient.request(port: port, method: "GET", path: "/v1/logs/notes", headers: ["Authorization": "Bearer guess-9f3c1a"]).status } == 401)

        let metrics = try await blocking { try LoopbackClient.request(port: port, method: "GET", path: "/metrics") }
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains(#"suite_http_requests_total{route="/v1/logs/{log}/push",method="POST",status="200"} 1"#), "\(text)")
        #expect(text.contains(#"suite_http_requests_total{route="/v1/logs/{log}",method="GET",status="401"} 1"#))
        #expect(text.contains("suite_operations_stored_total 3"))
        #expect(text.contains(#"suite_http_request_duration_seconds_bucket{route="/v1/signup",le="#))
        #expect(text.contains("suite_connections_open 1"))
        #expect(text.contains("suite_event_streams_open 0"))
        // Through a proxy, or from another machine, there is nothing there.
        #expect(try await blocking { try LoopbackClient.request(port: port, method: "GET", path: "/metrics", headers: ["X-Forwarded-For": "203.0.113.1"]).status } == 404)

        _ = try await server.stop()
        let logged = try String(contentsOf: log, encoding: .utf8)
        #expect(logged.contains("answered"))
        #expect(logged.contains("route=/v1/logs/{log}/push"), "\(logged)")
        #expect(logged.contains("hb.request.id="))
        for secret in [session.token, signup.account, signup.authenticationSecret.base64EncodedString(), "PLAINTEXT-MARK", "guess-9f3c1a"] {
            #expect(!text.contains(secret), "/metrics holds \(secret)")
            #expect(!logged.contains(secret), "the log holds \(secret)")
        }
    }
}
