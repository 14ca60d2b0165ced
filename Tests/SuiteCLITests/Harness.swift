import Foundation
import GRDB
import Testing
@testable import SuiteCLI

/// Runs `suite` commands for one test: in this process by default (``run(_:stdin:environment:viaShell:)``,
/// with the test's own environment and streams), or as the real binary built beside the test bundle
/// where the process itself matters (``runProcess(_:stdin:environment:)``, `viaShell:`): signals and
/// kills, several processes at once, raw argument bytes, file descriptors, the process's time zone.
///
/// Each test gets a private folder, removed when the test's last copy of its `Suite` goes.
struct Suite: Sendable {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        /// The stderr lines, without empty ones.
        var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    static var binary: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("suite")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return bundle.appendingPathComponent("suite")
    }

    let folder: URL
    var environment: [String: String]
    /// Removes `folder` when the last copy of this `Suite` goes.
    private let cleanup: TemporaryFolder

    /// A private folder for this test, used as $HOME; the store folder defaults to `store` inside it.
    init() throws {
        cleanup = try TemporaryFolder(prefix: "suite-cli-tests")
        folder = cleanup.url
        environment = [
            "HOME": folder.path,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "SUITE_HOME": folder.appendingPathComponent("store").path,
            "LANG": "C.UTF-8",
        ]
    }

    var storeFolder: URL { URL(fileURLWithPath: environment["SUITE_HOME"] ?? folder.path) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Runs `suite` in this process as the executable does (the fast path, else ArgumentParser),
    /// with this test's environment, `stdin`, and stdout and stderr captured; none is a terminal.
    /// With `viaShell`, runs `/bin/sh -c` instead: `arguments` are the script, then $0, $1 ….
    @discardableResult
    func run(_ arguments: [String], stdin: Data = Data(), environment extra: [String: String?] = [:], viaShell: Bool = false) throws -> Result {
        if viaShell {
            return try spawn(URL(fileURLWithPath: "/bin/sh"), ["-c"] + arguments, stdin: stdin, environment: extra)
        }
        var environment = self.environment
        for (key, value) in extra { environment[key] = value }
        return InProcess.run(arguments, stdin: stdin, environment: environment)
    }

    /// Runs the real binary in a process of its own.
    @discardableResult
    func runProcess(_ arguments: [String], stdin: Data = Data(), environment extra: [String: String?] = [:]) throws -> Result {
        try spawn(Self.binary, arguments, stdin: stdin, environment: extra)
    }

    private func spawn(_ executable: URL, _ arguments: [String], stdin: Data, environment extra: [String: String?]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = self.environment
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let id = UUID().uuidString
        let input = folder.appendingPathComponent(".in-\(id)")
        let output = folder.appendingPathComponent(".out-\(id)")
        let errors = folder.appendingPathComponent(".err-\(id)")
        try stdin.write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let inputHandle = try FileHandle(forReadingFrom: input)
        let outputHandle = try FileHandle(forWritingTo: output)
        let errorHandle = try FileHandle(forWritingTo: errors)
        defer {
            try? inputHandle.close(); try? outputHandle.close(); try? errorHandle.close()
            for url in [input, output, errors] { try? FileManager.default.removeItem(at: url) }
        }
        process.standardInput = inputHandle
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errors), as: UTF8.self))
    }

    /// ``run(_:stdin:environment:viaShell:)`` on a thread of its own, so an async test never blocks
    /// Swift's cooperative pool (an HTTP server in the same process needs those threads to answer).
    @discardableResult
    func runAsync(_ arguments: [String], stdin: Data = Data(), environment extra: [String: String?] = [:]) async throws -> Result {
        try await InProcess.onThread { try self.run(arguments, stdin: stdin, environment: extra) }
    }

    /// ``runProcess(_:stdin:environment:)`` on a thread of its own (see ``runAsync(_:environment:)``).
    @discardableResult
    func runProcessAsync(_ arguments: [String], stdin: Data = Data(), environment extra: [String: String?] = [:]) async throws -> Result {
        try await InProcess.onThread { try self.runProcess(arguments, stdin: stdin, environment: extra) }
    }

    /// ``run(_:stdin:environment:viaShell:)`` as if a person typed `stdin` at a terminal.
    @discardableResult
    func runTyped(_ arguments: [String], stdin: String) -> Result {
        InProcess.run(arguments, stdin: Data(stdin.utf8), environment: environment, stdinIsTerminal: true)
    }

    @discardableResult
    func run(_ arguments: String..., stdin: String = "") throws -> Result {
        try run(arguments, stdin: Data(stdin.utf8))
    }

    /// Every row of every table of a store, as text: equal dumps mean an unchanged store.
    func dump(_ fileName: String) throws -> String {
        let path = storeFolder.appendingPathComponent(fileName).path
        guard FileManager.default.fileExists(atPath: path) else { return "(no store)" }
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in
            var text = ""
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                text += "[\(table)]\n"
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"") {
                    text += row.description + "\n"
                }
            }
            return text
        }
    }
}

/// Checks the bad-input contract: the expected exit code, exactly one stderr line starting
/// with "suite: " that contains `message`, no stack trace.
func expectFailure(_ result: Suite.Result, status: Int32, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == status, "exit \(result.status), stderr: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.errorLines.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("suite: "), sourceLocation: sourceLocation)
    #expect(result.stderr.contains(message), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
}

/// A folder in the temporary folder, removed with everything in it when this goes.
final class TemporaryFolder: Sendable {
    let url: URL

    init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs commands in this process, as the executable does.
enum InProcess {
    /// What a stream received.
    final class Capture: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes = Data()

        func append(_ data: Data) { lock.lock(); bytes.append(data); lock.unlock() }
        var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: bytes, as: UTF8.self) }
    }

    static func run(_ arguments: [String], stdin: Data, environment: [String: String], stdinIsTerminal: Bool = false) -> Suite.Result {
        let output = Capture(), errors = Capture()
        let context = CLIContext(environment: environment, standardOutput: CLIOutput { output.append($0) },
                                 standardError: CLIOutput { errors.append($0) }, standardInput: CLIInput(stdin),
                                 stdinIsTerminal: stdinIsTerminal, executable: Suite.binary.path)
        // On a thread of its own while the caller waits (blocked, as for a process): the caller may
        // be one of the cooperative pool's few threads, which an HTTP server in this process needs.
        let status = onThreadWaiting {
            SuiteMain.runFast(arguments, context: context) ?? blocking { await SuiteMain.run(arguments, context: context) }
        }
        return Suite.Result(status: status, stdout: output.text, stderr: errors.text)
    }

    /// Runs `work` on a new thread and waits for it.
    static func onThreadWaiting(_ work: @escaping @Sendable () -> Int32) -> Int32 {
        final class Box: @unchecked Sendable { var value: Int32 = 0 }
        let box = Box(), done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = work()
            done.signal()
        }
        // Room for deep parsing and rendering, as a main thread has.
        thread.stackSize = 8 << 20
        thread.start()
        done.wait()
        return box.value
    }

    /// Runs `operation` to its end on the calling thread, neither on Swift's cooperative pool (the
    /// caller may be one of its few threads, which must not all wait for the pool) nor on GCD's
    /// threads (which the commands' own work, a fetch say, needs).
    static func blocking(_ operation: @escaping @Sendable () async -> Int32) -> Int32 {
        final class Box: @unchecked Sendable { var value: Int32 = 0 }
        let box = Box()
        if #available(macOS 15.0, iOS 18.0, *) {
            let executor = CallingThreadExecutor()
            Task(executorPreference: executor) {
                box.value = await operation()
                executor.finish()
            }
            executor.run()
        } else {
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                box.value = await operation()
                done.signal()
            }
            done.wait()
        }
        return box.value
    }

    /// Spawns a thread of its own for `work` (not one of GCD's, which commands need).
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}

/// Runs a task's jobs on the thread that calls ``run()``, until ``finish()``.
@available(macOS 15.0, iOS 18.0, *)
final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
