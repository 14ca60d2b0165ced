import Foundation
import SuiteSync
import SuiteTestSupport
import Testing
@testable import SuiteCLI

/// The sync settings under syncs run at once, what `suite sync --watch` prints, `sync install`.
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

    /// A late writer changes only its own fields of the settings as they are now, and writes
    /// nothing once the folder logged out, or out and in again as another session.
    @Test func lateWritesNeverUndoAPublishOrALogout() throws {
        let suite = try Suite()
        let folder = suite.storeFolder
        let session = SyncAccount(server: URL(string: "http://127.0.0.1:9")!, account: "ada", deviceID: "d1", token: "old", dataKey: Data(count: 32))
        try session.save(in: folder)
        var published = session
        published.publishUser = "ada"
        try published.save(in: folder)   // another process: suite sync publish
        #expect(try SyncAccount.update(in: folder, session: session) { $0.lastError = "late" })
        let now = try #require(try SyncAccount.load(from: folder))
        #expect(now.publishUser == "ada" && now.lastError == "late")

        SyncAccount.remove(from: folder)
        #expect(try !SyncAccount.update(in: folder, session: session) { $0.lastError = "after logout" })
        #expect(try SyncAccount.load(from: folder) == nil, "a sync that ends after a logout never writes the token back")

        var other = session
        other.token = "new"
        try other.save(in: folder)
        #expect(try !SyncAccount.update(in: folder, session: session) { $0.lastError = "stale" })
        #expect(try SyncAccount.load(from: folder)?.token == "new" && SyncAccount.load(from: folder)?.lastError == nil)
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

    /// `suite sync --watch` says what it watches as it starts, and each line reaches a file as
    /// it is printed (not when the watcher stops).
    @Test func watchSaysWhatItWatchesAndPrintsLineByLine() async throws {
        let suite = try Suite()
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        #expect(try await suite.runAsync(["bundle", "add", "Sign the lease"]).status == 0)
        try SyncClockTests.join(suite, server)
        await SyncClockTests.logs(server, serverTime: SyncClockTests.now)
        let output = suite.folder.appendingPathComponent("watch.log")
        #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
        let process = Process()
        process.executableURL = Suite.binary
        process.arguments = ["sync", "--watch"]
        process.environment = suite.environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var text = ""
        for _ in 0..<600 where !(text.contains("Watching") && text.contains("bundle: sent ")) {
            try await Task.sleep(nanoseconds: 50_000_000)
            text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        }
        #expect(process.isRunning, "read while it still runs")
        #expect(text.hasPrefix("Watching bmm, places, quotes, bundle in \(suite.storeFolder.path) with \(server.baseURL.absoluteString) as ada;"), "\(text)")
        #expect(text.contains("\nbundle: sent "), "\(text)")
        process.terminate()
        process.waitUntilExit()
    }

    @Test func installWritesAUserServiceThatWatches() throws {
        var suite = try Suite()
        suite.environment["XDG_CONFIG_HOME"] = suite.path("config")
        let store = suite.path("my store")
        let result = try suite.run(["sync", "install", "--store-dir", store])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("systemctl --user enable --now suite-sync.service"))
        let servicePath = suite.path("config/systemd/user/suite-sync.service")
        let service = try String(contentsOfFile: servicePath, encoding: .utf8)
        let exec = try #require(service.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        #expect(exec.hasPrefix("ExecStart=\"/") && exec.hasSuffix(" \"sync\" \"--watch\" \"--store-dir\" \"\(store)\""), "\(exec)")
        #expect(service.contains("\nRestart=on-failure\n") && service.contains("\nWantedBy=default.target\n"))
        if let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: FileManager.default.isExecutableFile(atPath:)) {
            let verified = try suite.run(["\"$1\" verify --man=no \"$2\" 2>&1", "sh", analyze, servicePath], viaShell: true)
            #expect(verified.status == 0, "\(verified.stdout)")
        } else {
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "CI must provide systemd-analyze (Debian's systemd; .ci/run)")
            print("SKIPPED: systemd-analyze is not installed: the unit was not verified by systemd (.ci/run installs it)")
        }
        let cron = try suite.run(["sync", "install", "--cron", "--store-dir", store])
        #expect(cron.status == 0)
        #expect(cron.stdout.hasPrefix("@reboot DBUS_SESSION_BUS_ADDRESS=") && cron.stdout.contains(" 'sync' '--watch' '--store-dir' '\(store)'"), "\(cron.stdout)")
    }
}

/// Errors collected from several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ failure: String) { lock.withLock { list.append(failure) } }
    var all: [String] { lock.withLock { list } }
}
