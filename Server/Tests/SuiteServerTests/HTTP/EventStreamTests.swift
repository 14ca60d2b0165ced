import Foundation
import Logging
import ServiceLifecycle
import SuiteServer
import SuiteSyncProtocol
import Testing

/// The event stream on a live server (127.0.0.1, a free port), read as it arrives.
@Suite("Event stream")
struct EventStreamTests {
    @Test func aPushReachesAnOpenStreamWhichEndsAtShutdown() async throws {
        try await TestBackend.sqlite.withPlace { place in
            let storage = try await place.open()
            let service = Fixtures.service(storage)
            var logger = Logger(label: "sse-test")
            logger.logLevel = .warning
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            let app = try ServerApplication.make(
                service: service, port: 0, keepAlive: .milliseconds(300), logger: logger,
                onServerRunning: { portContinuation.yield($0) })
            let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                let port = try #require(await ports.first { _ in true })
                let session = try await service.signup(Fixtures.signup())

                let stream = try LoopbackClient(port: port)
                try stream.send(method: "GET", path: "/v1/events", headers: ["Authorization": "Bearer \(session.token)"])
                #expect(try await blocking { try stream.readLine() } == "HTTP/1.1 200 OK")
                let headers = try await blocking {
                    var lines: [String] = []
                    while case let line = try stream.readLine(), !line.isEmpty { lines.append(line.lowercased()) }
                    return lines
                }
                #expect(headers.contains("content-type: text/event-stream"))
                // Subscribed once the first comment arrives.
                _ = try await blocking { try stream.readLine { $0 == ": connected" } }

                let push = try await blocking {
                    try LoopbackClient.request(
                        port: port, method: "POST", path: "/v1/logs/notes/push",
                        headers: ["Authorization": "Bearer \(session.token)", "Content-Type": "application/json"],
                        body: try SyncProtocol.encoder.encode(SyncPushRequest(operations: Fixtures.operations("s", count: 2))))
                }
                #expect(push.status == 200)
                #expect(try await blocking { try stream.readLine { $0.hasPrefix("data: ") } } == "data: notes")
                #expect(try await blocking { try stream.readLine { $0.hasPrefix(":") && $0 != ": connected" } } == ": keep-alive")

                // Graceful shutdown ends the stream and the server.
                await group.triggerGracefulShutdown()
                _ = try await blocking { try stream.readToEnd() }
                try await tasks.waitForAll()
                #expect(storage.events.subscriberCount == 0)
            }
        }
    }
}
