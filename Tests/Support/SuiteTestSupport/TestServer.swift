import FlyingFox
import Foundation

/// A real HTTP server on 127.0.0.1 (an ephemeral port) whose answers the test scripts.
public final class TestServer: Sendable {
    public struct Answer: Sendable {
        public var status: Int
        public var body: String
        public var headers: [String: String]
        public var delay: TimeInterval

        public init(status: Int, body: String, headers: [String: String] = [:], delay: TimeInterval = 0) {
            self.status = status; self.body = body; self.headers = headers; self.delay = delay
        }
    }

    /// What the server saw and will answer.
    public actor Script {
        var answers: [String: [Answer]] = [:]
        public var requests: [(path: String, query: [String: String], headers: [String: String], body: String)] = []

        public func set(_ path: String, _ list: [Answer]) { answers[path] = list }

        /// The next scripted answer for `path` (the last one repeats).
        func answer(for path: String) -> Answer {
            guard var list = answers[path] ?? answers.first(where: { path.hasPrefix($0.key) && $0.key.hasSuffix("/") })?.value, !list.isEmpty else {
                return Answer(status: 404, body: "{\"error\": {\"code\": \"NOT_FOUND\"}}")
            }
            let next = list.removeFirst()
            if list.isEmpty { list = [next] }
            if answers[path] != nil { answers[path] = list } else if let key = answers.keys.first(where: { path.hasPrefix($0) && $0.hasSuffix("/") }) { answers[key] = list }
            return next
        }

        func record(_ path: String, _ query: [String: String], _ headers: [String: String], _ body: String) {
            requests.append((path, query, headers, body))
        }

        public func count(_ prefix: String) -> Int { requests.filter { $0.path.hasPrefix(prefix) }.count }
    }

    let server: HTTPServer
    public let script = Script()
    public let port: UInt16
    private let task: Task<Void, any Error>

    public init() async throws {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30)
        let script = self.script
        await server.appendRoute("*") { request in
            let query = Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            var headers: [String: String] = [:]
            for (key, value) in request.headers { headers[key.rawValue.lowercased()] = value }
            let body = String(decoding: try await request.bodyData, as: UTF8.self)
            await script.record(request.path, query, headers, body)
            let answer = await script.answer(for: request.path)
            if answer.delay > 0 { try await Task.sleep(nanoseconds: UInt64(answer.delay * 1_000_000_000)) }
            var responseHeaders = HTTPHeaders()
            responseHeaders[HTTPHeader("Content-Type")] = "application/json"
            for (key, value) in answer.headers { responseHeaders[HTTPHeader(key)] = value }
            return HTTPResponse(statusCode: HTTPStatusCode(answer.status, phrase: "Scripted"), headers: responseHeaders, body: Data(answer.body.utf8))
        }
        self.server = server
        task = Task { try await server.run() }
        // Generous: other tests may keep the cooperative threads busy for a few seconds.
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        self.port = port
    }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    public func stop() async {
        await server.stop()
        task.cancel()
    }
}
