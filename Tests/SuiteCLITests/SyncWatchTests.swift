import Foundation
import SuiteTestSupport
import Testing
@testable import SuiteCLI

/// The sync settings under syncs run at once.
@Suite struct SyncWatchTests {
    /// Settings written by many syncs at once: every write succeeds and the file is always whole.
    @Test func settingsWrittenAtOnceNeverCollide() throws {
        let suite = try Suite()
        let folder = suite.storeFolder
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            var account = SyncAccount(server: URL(string: "http://127.0.0.1:9")!, account: "ada", deviceID: "d1", token: "token", dataKey: Data(count: 32))
            for write in 0..<40 {
                account.lastError = "run \(index), write \(write)"
                do {
                    try account.save(in: folder)
                    guard try SyncAccount.load(from: folder) != nil else { throw CLIError.io("gone") }
                } catch {
                    failures.add("\(index).\(write): \(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left == ["sync.json"], "no temporary file is left: \(left)")
    }

    /// Syncs run at once (a `--watch` beside a manual one), as processes: none fails.
    @Test func syncsRunAtOnceAllSucceed() async throws {
        let suite = try Suite()
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        try SyncClockTests.join(suite, server)
        await SyncClockTests.logs(server, serverTime: SyncClockTests.now)
        #expect(try await suite.runAsync(["sync"]).status == 0)
        let results = try await withThrowingTaskGroup(of: Suite.Result.self) { group in
            for _ in 0..<8 { group.addTask { try await suite.runProcessAsync(["sync"]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("cannot write the sync settings"), "\(result.stderr)")
        }
    }
}

/// Errors collected from several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ failure: String) { lock.withLock { list.append(failure) } }
    var all: [String] { lock.withLock { list } }
}
