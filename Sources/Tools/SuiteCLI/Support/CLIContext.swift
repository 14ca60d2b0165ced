import Foundation
#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
#endif

/// Everything a command reads from or writes to outside its arguments and files: the
/// environment, the three standard streams, whether they are terminals, and the colour chosen
/// for this run.
///
/// Commands read it as ``current`` (a task-local value). The executable runs with ``process``,
/// the real streams; tests run commands in-process with their own (``SuiteMain/run(_:context:)``).
public struct CLIContext: Sendable {
    /// The environment variables (`$SUITE_HOME`, `$PATH`, `$YELP_API_KEY` …).
    public var environment: [String: String]
    /// Where output for people and documents go.
    public var standardOutput: CLIOutput
    /// Where diagnostics, progress and prompts go.
    public var standardError: CLIOutput
    /// Where `-` and the prompts read from.
    public var standardInput: CLIInput
    public var stdoutIsTerminal: Bool
    public var stdinIsTerminal: Bool
    public var stderrIsTerminal: Bool
    /// What the program was invoked as (argv[0]): the timer installers write its absolute path.
    public var executable: String
    /// The colour chosen while the command line is read (`--color`, `$NO_COLOR`, `$SUITE_ACCENT`).
    let colour = ColourChoice()

    /// - Parameters:
    ///   - environment: the environment variables.
    ///   - standardOutput, standardError: the output streams.
    ///   - standardInput: the input stream.
    ///   - stdoutIsTerminal, stdinIsTerminal, stderrIsTerminal: whether each stream is a terminal.
    ///   - executable: what the program was invoked as.
    public init(environment: [String: String], standardOutput: CLIOutput, standardError: CLIOutput, standardInput: CLIInput,
                stdoutIsTerminal: Bool = false, stdinIsTerminal: Bool = false, stderrIsTerminal: Bool = false, executable: String = "suite") {
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardInput = standardInput
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stdinIsTerminal = stdinIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
        self.executable = executable
    }

    /// This process's environment and standard streams. Standard output is buffered (a line at a
    /// time on a terminal) and flushed when a command ends, before input is read and before
    /// another program runs; standard error is written at once.
    public static var process: CLIContext {
        let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        return CLIContext(environment: processEnvironment(),
                          standardOutput: CLIOutput(descriptor: STDOUT_FILENO, buffered: true, lineBuffered: stdoutIsTerminal),
                          standardError: CLIOutput(descriptor: STDERR_FILENO, buffered: false),
                          standardInput: CLIInput(descriptor: STDIN_FILENO),
                          stdoutIsTerminal: stdoutIsTerminal, stdinIsTerminal: isatty(STDIN_FILENO) == 1, stderrIsTerminal: isatty(STDERR_FILENO) == 1,
                          executable: CommandLine.arguments.first ?? "suite")
    }

    /// This process's environment variables, read from `environ` as `getenv` sees them (of a
    /// name given twice, the first). `ProcessInfo` (still used on Darwin) is not: setting it up
    /// and its dictionary cost the frequent commands about half a millisecond at every start.
    static func processEnvironment() -> [String: String] {
        #if canImport(Darwin)
        return ProcessInfo.processInfo.environment
        #else
        var variables: [String: String] = [:]
        // `environ` is null after `clearenv()`.
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = start else { return variables }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(text[..<equals])
                if variables[name] == nil { variables[name] = String(text[text.utf8.index(after: equals)...]) }
            }
            entry += 1
        }
        return variables
        #endif
    }

    /// The context of the command running now; the process's own outside a run.
    static var current: CLIContext { bound ?? processDefault }

    /// The context bound by ``SuiteMain`` for a run (nil outside one: no environment read, no
    /// streams made, until something asks).
    @TaskLocal static var bound: CLIContext?
    private static let processDefault = CLIContext.process

    /// This context with a colour choice of its own, for one run.
    func forOneRun() -> CLIContext {
        CLIContext(environment: environment, standardOutput: standardOutput, standardError: standardError, standardInput: standardInput,
                   stdoutIsTerminal: stdoutIsTerminal, stdinIsTerminal: stdinIsTerminal, stderrIsTerminal: stderrIsTerminal, executable: executable)
    }
}

/// An output stream: bytes go to a descriptor, or to a closure (a test's buffer).
public final class CLIOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = Data()
    private let buffered: Bool
    private let lineBuffered: Bool
    private let sink: @Sendable (Data) -> Void

    /// Bytes written are handed to `sink` at once, in order.
    public init(_ sink: @escaping @Sendable (Data) -> Void) {
        self.sink = sink
        buffered = false
        lineBuffered = false
    }

    /// Bytes go to `descriptor`; with `buffered`, collected up to 64 KiB (up to a line break with
    /// `lineBuffered`) until ``flush()``.
    public init(descriptor: Int32, buffered: Bool, lineBuffered: Bool = false) {
        // A write that fails (a closed pipe, a full disk) is dropped, as the C library's stdout does.
        sink = { data in _ = writeAll(data, to: descriptor) }
        self.buffered = buffered
        self.lineBuffered = lineBuffered
    }

    /// Writes `data` (at once when unbuffered).
    public func write(_ data: Data) {
        guard buffered else { return sink(data) }
        lock.lock()
        pending.append(data)
        let full = pending.count >= 1 << 16 || (lineBuffered && data.contains(UInt8(ascii: "\n")))
        let out = full ? pending : nil
        if full { pending = Data() }
        // Written inside the lock, so that bytes leave in the order they came.
        if let out { sink(out) }
        lock.unlock()
    }

    /// Writes `text` as UTF-8.
    public func write(_ text: String) {
        var text = text
        // From the contiguous bytes: `Data(text.utf8)` costs a start-up's worth of generic lookups.
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            write(Data(bytes: base, count: bytes.count))
        }
    }

    /// Writes out what is buffered.
    public func flush() {
        guard buffered else { return }
        lock.lock()
        if !pending.isEmpty { sink(pending); pending = Data() }
        lock.unlock()
    }
}

/// An input stream: a descriptor, or bytes given in advance (a test's).
public final class CLIInput: @unchecked Sendable {
    private let lock = NSLock()
    private let descriptor: Int32?
    private var bytes: Data
    private var offset = 0

    /// Reads `descriptor`.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        bytes = Data()
    }

    /// Reads `data`, then the end of input.
    public init(_ data: Data) {
        descriptor = nil
        bytes = data
    }

    /// Up to `count` bytes; empty at the end of input.
    ///
    /// - Throws: ``CLIError/io(_:)`` when reading fails.
    func read(upTo count: Int) throws -> Data {
        lock.lock()
        defer { lock.unlock() }
        guard let descriptor else {
            let end = min(bytes.count, offset + count)
            defer { offset = end }
            return bytes.subdata(in: bytes.startIndex + offset..<bytes.startIndex + end)
        }
        var chunk = [UInt8](repeating: 0, count: count)
        while true {
            let read = systemRead(descriptor, &chunk, count)
            if read >= 0 { return Data(chunk[..<read]) }
            if errno == EINTR { continue }
            throw CLIError.io("cannot read standard input: \(String(cString: strerror(errno)))")
        }
    }
}
