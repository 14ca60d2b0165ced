import FlyingFox
import Foundation
import SuiteSyncProtocol

/// The sync protocol's log routes over real HTTP on 127.0.0.1 (an ephemeral port), kept by an
/// ``InMemorySyncServer`` that the test can damage, plus empty community answers: for running the
/// real `suite sync` against a server. Any bearer token is accepted; `prelogin` answers with a
/// fixed salt and `login` refuses every password.
package final class LoopbackSyncServer: Sendable {
    /// The logs, as the test sees and changes them.
    package let logs = InMemorySyncServer()
    private let server: HTTPServer
    private let task: Task<Void, any Error>
    package let port: UInt16

    package init() async throws {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30)
        let logs = self.logs
        await server.appendRoute("*") { request in
            let parts = request.path.split(separator: "/").map(String.init)
            let query = Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            let body = try await request.bodyData
            let reply: Data
            switch (request.method.rawValue, parts.count) {
            case ("GET", 3) where parts[0] == "v1" && parts[1] == "logs":
                reply = try SyncProtocol.encoder.encode(try await logs.pull(
                    log: parts[2], after: Int64(query["after"] ?? "0") ?? 0, limit: Int(query["limit"] ?? "500") ?? 500))
            case ("POST", 4) where parts[0] == "v1" && parts[1] == "logs" && parts[3] == "push":
                let push = try SyncProtocol.decoder.decode(SyncPushRequest.self, from: body)
                reply = try SyncProtocol.encoder.encode(try await logs.push(log: parts[2], operations: push.operations))
            case ("POST", 4) where parts[0] == "v1" && parts[1] == "logs" && parts[3] == "compact":
                let compact = try SyncProtocol.decoder.decode(SyncCompactRequest.self, from: body)
                reply = try SyncProtocol.encoder.encode(try await logs.compact(log: parts[2], request: compact))
            case ("GET", 3) where parts == ["v1", "community", "settings"]:
                reply = try SyncProtocol.encoder.encode(CommunitySettings())
            case ("GET", 3) where parts[0] == "v1" && parts[1] == "community":
                reply = Data(#"{"items":[],"next":0,"reset":false,"more":false}"#.utf8)
            case ("POST", 2) where parts == ["v1", "prelogin"]:
                reply = try SyncProtocol.encoder.encode(PreloginReply(salt: Data(repeating: 1, count: 16), rounds: 600_000))
            case ("POST", 2) where parts == ["v1", "login"]:
                return Self.answer(401, try SyncProtocol.encoder.encode(ServerErrorReply(error: "wrong account name or password")))
            default:
                return Self.answer(404, try SyncProtocol.encoder.encode(ServerErrorReply(error: "no such route")))
            }
            return Self.answer(200, reply)
        }
        self.server = server
        task = Task { try await server.run() }
        // Generous: other tests may keep the cooperative threads busy for a few seconds.
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        self.port = port
    }

    private static func answer(_ status: Int, _ body: Data) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers[HTTPHeader("Content-Type")] = "application/json"
        return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: status == 200 ? "OK" : "Refused"), headers: headers, body: body)
    }

    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    package func stop() async {
        await server.stop()
        task.cancel()
    }
}
