import Foundation
import GRDB
import Testing

/// Runs the real `suite` binary built beside the test bundle.
struct Suite {
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

    /// A private folder for this test, used as $HOME; the store folder defaults to `store` inside it.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("suite-cli-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        environment = [
            "HOME": folder.path,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "SUITE_HOME": folder.appendingPathComponent("store").path,
            "LANG": "C.UTF-8",
        ]
    }

    var storeFolder: URL { URL(fileURLWithPath: environment["SUITE_HOME"] ?? folder.path) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @discardableResult
    func run(_ arguments: [String], stdin: Data = Data(), environment extra: [String: String?] = [:], viaShell: Bool = false) throws -> Result {
        let process = Process()
        if viaShell {
            // arguments: the shell script, then $0, $1 …
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c"] + arguments
        } else {
            process.executableURL = Self.binary
            process.arguments = arguments
        }
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

    /// Runs the binary on a GCD thread, so an async test never blocks Swift's cooperative pool
    /// (an HTTP server in the same process needs those threads to answer).
    @discardableResult
    func runAsync(_ arguments: [String], environment extra: [String: String?] = [:]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try self.run(arguments, environment: extra) })
            }
        }
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
