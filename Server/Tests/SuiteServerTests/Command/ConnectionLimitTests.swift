import Foundation
import SuiteSyncProtocol
import Testing

/// Connections a client can hold on the real executable: caps and timeouts (issue "A sync
/// server you can put on the internet", §1).
@Suite("Connection limits")
struct ConnectionLimitTests {
    /// 300 sockets that send nothing, against a server allowed 256 descriptors: it caps its
    /// connections below that, closes the idle ones after the header timeout, and the health
    /// check from elsewhere is answered within seconds.
    @Test func idleSocketsCannotShutEveryoneOut() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess(["--data-dir", folder.appendingPathComponent("data").path, "--header-timeout", "1"], descriptorLimit: 256)
        let port = server.port
        let idle = try (0..<300).map { index in try LoopbackClient(port: port, from: "127.0.0.\(2 + index % 10)", timeout: 15) }
        let started = ContinuousClock.now
        let health = try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.50", method: "GET", path: "/v1/health") }
        #expect(health.status == 200)
        #expect(ContinuousClock.now - started < .seconds(10))
        let closed = try await blocking { idle.filter { $0.isClosedByServer() }.count }
        #expect(closed == 300, "every idle socket is closed by the server")
        let end = try await server.stop()
        #expect(end.reason == .exit && end.status == 0)
    }

    /// One address cannot hold more than its share: past it, new connections close at once.
    @Test func oneAddressHoldsAtMostItsShare() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess(["--data-dir", folder.appendingPathComponent("data").path, "--connections-per-address", "10", "--header-timeout", "30"])
        let port = server.port
        let clients = try (0..<15).map { _ in try LoopbackClient(port: port, from: "127.0.0.2", timeout: 2) }
        let closed = await withTaskGroup(of: Bool.self, returning: Int.self) { group in
            for client in clients { group.addTask { (try? await blocking { client.isClosedByServer() }) ?? false } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(closed == 5)
        // Another address is served meanwhile.
        #expect(try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.3", method: "GET", path: "/v1/health").status } == 200)
        _ = try await server.stop()
    }

    /// A head or a body sent too slowly is cut off; a response that lasts (the event stream)
    /// is not.
    @Test func slowRequestsAreCutButStreamsLast() async throws {
        let folder = ServerBinaryTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess(["--data-dir", folder.appendingPathComponent("data").path,
                                              "--header-timeout", "1", "--body-timeout", "1", "--idle-timeout", "1"])
        let port = server.port
        let session = try await ServerBinaryTests.signup(port: port)

        let slowHead = try LoopbackClient(port: port, timeout: 6)
        let headStarted = ContinuousClock.now
        let trickle = Task.detached {
            for byte in "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8 {
                guard (try? slowHead.sendRaw(Data([byte]))) != nil else { return }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(try await blocking { slowHead.isClosedByServer() })
        #expect(ContinuousClock.now - headStarted < .seconds(4), "a head trickled in byte by byte is cut at the header timeout")
        trickle.cancel()

        let slowBody = try LoopbackClient(port: port, timeout: 6)
        try slowBody.sendRaw(Data("POST /v1/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"account\"".utf8))
        let bodyStarted = ContinuousClock.now
        #expect(try await blocking { slowBody.isClosedByServer() })
        #expect(ContinuousClock.now - bodyStarted < .seconds(4))

        let stream = try LoopbackClient(port: port, timeout: 10)
        try stream.send(method: "GET", path: "/v1/events", headers: ["Authorization": "Bearer \(session.token)"])
        _ = try await blocking { try stream.readLine { $0 == ": connected" } }
        try await Task.sleep(for: .seconds(3))
        let push = try await blocking {
            try LoopbackClient.request(port: port, method: "POST", path: "/v1/logs/notes/push", headers: ["Authorization": "Bearer \(session.token)"],
                                       body: try SyncProtocol.encoder.encode(SyncPushRequest(operations: Fixtures.operations("slow", count: 1))))
        }
        #expect(push.status == 200)
        #expect(try await blocking { try stream.readLine { $0.hasPrefix("data: ") } } == "data: notes")
        _ = try await server.stop()
    }
}
