import Foundation
import Testing

/// A running `suite-server serve` process, started with `--listen 127.0.0.1:0`.
final class ServerProcess: @unchecked Sendable {  // used by one task at a time
    let process = Process()
    let port: Int
    private let watchdog: Task<Void, any Error>

    /// Starts the server and reads its first line (within 60 s; the process is killed after
    /// 120 s whatever happens), under a descriptor limit when one is given.
    init(_ arguments: [String], descriptorLimit: Int? = nil, openSignup: Bool = true, errors: URL? = nil, environment: [String: String] = [:]) async throws {
        let executable = try ServerBinaryTests.executable()
        // Open sign-up unless the test says (the tests sign up without invitation codes).
        let signup = openSignup ? ["--signup", "open"] : []
        let serve = ["serve"] + arguments + signup + ["--listen", "127.0.0.1:0"]
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", executable.path] + serve
        } else {
            process.executableURL = executable
            process.arguments = serve
        }
        let output = Pipe()
        process.standardOutput = output
        if let errors {
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        try process.run()
        let process = self.process
        watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            process.terminate()
        }
        let firstLine = try await blocking {
            var data = Data()
            while !data.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            return String(decoding: data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        }
        let prefix = arguments.contains("--tls-cert") ? "listening on https://127.0.0.1:" : "listening on http://127.0.0.1:"
        #expect(firstLine.hasPrefix(prefix), "first line: \(firstLine)")
        port = try #require(Int(firstLine.dropFirst(prefix.count)))
    }

    deinit {
        watchdog.cancel()
        if process.isRunning { process.terminate() }
    }

    /// Sends a signal and waits for the process to end.
    /// - Returns: How it ended and its status.
    func stop(signal: Int32 = SIGTERM) async throws -> (reason: Process.TerminationReason, status: Int32) {
        kill(process.processIdentifier, signal)
        let process = self.process
        try await blocking { process.waitUntilExit() }
        return (process.terminationReason, process.terminationStatus)
    }
}
