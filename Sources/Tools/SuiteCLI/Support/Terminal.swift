import Foundation
import SuiteEnvironment
import SuiteStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard streams: diagnostics, JSON, terminal detection and reading input strictly.
enum Terminal {
    /// Writes one line to stderr: line breaks and control characters in it are made visible, so
    /// quoted user text can never start a second (forged) line.
    static func printError(_ line: String) {
        printError(line, context: .current)
    }

    /// ``printError(_:)`` to `context`'s stderr, from work that runs outside the command's task
    /// (progress from another thread).
    static func printError(_ line: String, context: CLIContext) {
        context.standardError.write(VisibleText.visible(line, oneLine: true) + "\n")
    }

    static var stdoutIsTerminal: Bool { CLIContext.current.stdoutIsTerminal }
    static var stdinIsTerminal: Bool { CLIContext.current.stdinIsTerminal }
    static var stderrIsTerminal: Bool { CLIContext.current.stderrIsTerminal }

    /// The run's environment variables.
    static var environment: [String: String] { CLIContext.current.environment }
    /// The environment as Suite reads it (store folder, user, providers), shared with the web app.
    static var suite: SuiteEnvironment { SuiteEnvironment(environment) }

    /// Readies another program to run in this run's place: this run's environment, and what was
    /// printed so far written out before the program writes.
    static func prepare(_ process: Process) {
        let context = CLIContext.current
        process.environment = context.environment
        context.standardOutput.flush()
    }

    /// Writes bytes to stdout as they are (documents; text for people goes through `print`).
    static func write(_ data: Data) {
        CLIContext.current.standardOutput.write(data)
    }

    /// Prints `value` as one pretty-printed JSON document with sorted keys.
    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        let data = try encoder.encode(value)
        write(data + Data("\n".utf8))
    }

    /// Writes a command's document to `output` or to stdout (no `output`, or `-`). A regular file
    /// is replaced atomically, saying so on stdout; see ``OutputFile`` for the other kinds.
    static func emit(_ data: Data, to output: String?, note: String = "") throws {
        try stream(to: output, note: note) { emit in try emit(data) }
    }

    /// As ``emit(_:to:note:)``, with the document made piece by piece (see ``OutputFile/stream(to:_:)``).
    static func stream(to output: String?, note: String = "", _ produce: Producer) throws {
        guard let output else {
            try Chunks.gather(produce) { write($0) }
            return
        }
        if try OutputFile.stream(to: output, produce) == .regularFile {
            print("Wrote \(output)\(note).")
        }
    }

    /// Decodes bytes as UTF-8, refusing invalid sequences.
    static func utf8(_ data: Data, source: String) throws -> String {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CLIError.badInput("\(source) is not valid UTF-8 text")
        }
        return text
    }

    /// Reads all of standard input as UTF-8 text.
    static func readAllStandardInput() throws -> String {
        try utf8(readStandardInput(limit: textLimit), source: "standard input")
    }

    /// The most read for one text field (the text rule's own limits are far below it).
    static let textLimit = 16 << 20

    /// All of standard input as bytes, at most `limit` (an endless pipe is refused, exit 65).
    static func readStandardInput(limit: Int = FileContents.importLimit) throws -> Data {
        let context = CLIContext.current
        context.standardOutput.flush()
        var data = Data()
        while true {
            let chunk: Data
            do { chunk = try context.standardInput.read(upTo: 1 << 20) } catch { throw CLIError.io("cannot read standard input") }
            if chunk.isEmpty { return data }
            data.append(chunk)
            if data.count > limit { throw CLIError.badInput("standard input is larger than \(limit >> 20) MiB; nothing was read in") }
        }
    }

    /// Reads a file as bytes, with exit-code-friendly errors; FIFOs and pipes (`/dev/stdin`,
    /// `<(…)`) are read as streams (``InputFile``).
    static func readFile(_ path: String, limit: Int = FileContents.importLimit) throws -> Data {
        try InputFile.read(path, limit: limit)
    }
}

/// Reads standard input line by line without repairing invalid UTF-8.
final class LineReader {
    private var buffer: [UInt8] = []
    private var atEnd = false
    private let context: CLIContext

    init(context: CLIContext = .current) {
        self.context = context
    }

    /// The next line without its line break, nil at end of input.
    func next() throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return try decode(line)
            }
            if atEnd {
                if buffer.isEmpty { return nil }
                let line = buffer
                buffer.removeAll()
                return try decode(line)
            }
            // What was asked is on the screen before waiting for the answer.
            context.standardOutput.flush()
            let chunk = try context.standardInput.read(upTo: 65_536)
            if chunk.isEmpty { atEnd = true } else { buffer += chunk }
        }
    }

    private func decode(_ bytes: [UInt8]) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError.badInput("standard input is not valid UTF-8 text")
        }
        return text
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif

/// Writes all of `data` to `fd`, again after EINTR and short writes.
///
/// - Returns: nil, or what went wrong.
func writeAll(_ data: Data, to fd: Int32) -> String? {
    var failure: String?
    data.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let written = systemWrite(fd, base + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
                return
            }
            offset += written
        }
    }
    return failure
}

/// Writes a file so that it is either wholly replaced or untouched: temp file in the same folder,
/// write, fsync, fchmod, rename, fsync the folder. A new file gets mode 0600; a replaced one keeps
/// its mode.
enum AtomicFile {
    static func write(_ data: Data, to path: String) throws {
        try stream(to: path) { emit in try emit(data) }
    }

    /// As ``write(_:to:)``, with the bytes made piece by piece by `produce`; if it throws, the
    /// file is untouched and its error goes on.
    static func stream(to path: String, _ produce: Producer) throws {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var info = stat()
        let mode: mode_t = stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o600
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CLIError.io("cannot write \(path): it is a folder")
        }
        let temporary = folder + "/.\(url.lastPathComponent).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CLIError.io("cannot write \(path): \(String(cString: strerror(errno)))") }
        var failure: String?
        do {
            try Chunks.gather(produce) { chunk in
                if let problem = writeAll(chunk, to: fd) {
                    failure = problem
                    throw CLIError.io("cannot write \(path): \(problem)")
                }
            }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil, fchmod(fd, mode) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw CLIError.io("cannot write \(path): \(failure)")
        }
        let folderFD = open(folder, O_RDONLY | O_CLOEXEC)
        if folderFD >= 0 { fsync(folderFD); close(folderFD) }
    }
}
