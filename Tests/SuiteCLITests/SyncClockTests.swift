import Foundation
import SuiteSync
import SuiteTestSupport
import Testing
@testable import SuiteCLI

/// `suite sync` against a scripted server whose clock is far behind this device's.
@Suite struct SyncClockTests {
    /// Joins the store folder to a scripted server (its token and key are never checked).
    static func join(_ suite: Suite, _ server: TestServer) throws {
        try FileManager.default.createDirectory(at: suite.storeFolder, withIntermediateDirectories: true)
        try SyncAccount(server: server.baseURL, account: "ada", deviceID: "d1", token: "token", dataKey: Data(repeating: 7, count: 32))
            .save(in: suite.storeFolder)
    }

    /// Every log empty, the server's clock at `serverTime` (answers pulls and pushes alike).
    static func logs(_ server: TestServer, serverTime: Int64) async {
        await server.script.set("/v1/logs/", [.init(status: 200, body: #"{"epoch": "e1", "head": 0, "operations": [], "next": 0, "serverTime": \#(serverTime)}"#)])
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test func aClockTooFarAheadSendsNothingSaysByHowMuchAndStatusShowsIt() async throws {
        let suite = try Suite()
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        #expect(try await suite.runAsync(["bundle", "add", "Sign the lease"]).status == 0)
        try Self.join(suite, server)
        // This device is 2 days 3 h (and 30 s) ahead of the server.
        await Self.logs(server, serverTime: Self.now - (51 * 3600 + 30) * 1000)
        let refused = try await suite.runAsync(["sync"])
        #expect(refused.status == 1)
        #expect(refused.errorLines.count == 1, "\(refused.stderr)")
        let line = try #require(refused.errorLines.first)
        #expect(line.hasPrefix("suite: this device's clock is 2 days 3 h ahead of the server's"), "\(line)")
        #expect(line.contains("set the clock right and sync again (nothing was lost: ") && line.contains(" wait to be sent)"), "\(line)")
        #expect(await server.script.requests.filter { $0.path.hasSuffix("/push") }.isEmpty, "nothing was sent")
        #expect(await server.script.requests.filter { $0.path.hasPrefix("/v1/logs/") }.count == 4, "every store still received")

        let status = try await suite.runAsync(["sync", "status"])
        #expect(status.stdout.contains("Clock: 2 days 3 h ahead of the server (too far ahead: nothing is sent until the clock is set right)"), "\(status.stdout)")
        #expect(status.stdout.contains("Last error: this device's clock is 2 days 3 h ahead"), "\(status.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(try await suite.runAsync(["sync", "status", "--json"]).stdout.utf8)) as? [String: Any]
        #expect((json?["clockAhead"] as? Double).map { (51 * 3600.0 ... 52 * 3600.0).contains($0) } == true)

        // The clock set right (here: 3 h 30 min behind, which is fine): the changes go.
        await Self.logs(server, serverTime: Self.now + (3 * 3600 + 30 * 60 + 30) * 1000)
        let synced = try await suite.runAsync(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("bundle: sent "), "\(synced.stdout)")
        #expect(await !server.script.requests.filter { $0.path == "/v1/logs/bundle/push" }.isEmpty)
        let after = try await suite.runAsync(["sync", "status"])
        #expect(after.stdout.contains("Clock: 3 h 30 min behind the server, at "), "\(after.stdout)")
        #expect(after.stdout.contains("bundle: 0 changes to send"), "\(after.stdout)")
    }

    @Test func clockDistancesReadAsPeopleSayThem() {
        #expect(ClockOffset.distance(200) == "0.2 s")
        #expect(ClockOffset.distance(-5 * 60_000 - 10) == "5 min")
        #expect(ClockOffset.distance(3 * 3_600_000) == "3 h")
        #expect(ClockOffset.distance(90 * 60_000) == "1 h 30 min")
        #expect(ClockOffset.distance(51 * 3_600_000) == "2 days 3 h")
        #expect(ClockOffset.distance(24 * 3_600_000) == "1 day")
        #expect(ClockOffset.phrase(-200) == "0.2 s behind the server")
        #expect(ClockOffset.phrase(20) == "the same as the server's")
    }
}
