import Foundation

/// A spinner with the elapsed time on stderr while a provider works, redrawn ten times a second
/// on one line and wiped when done; nothing at all when stderr is not a terminal.
final class Spinner: @unchecked Sendable {
    static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    private let context: CLIContext
    private let started = Date()
    private let lock = NSLock()
    private var message: String
    private var tick = 0
    private var timer: DispatchSourceTimer?

    private init(_ message: String, context: CLIContext) {
        self.message = message
        self.context = context
    }

    /// A running spinner, or nil when stderr is not a terminal.
    static func start(_ message: String, context: CLIContext = .current) -> Spinner? {
        guard context.stderrIsTerminal else { return nil }
        let spinner = Spinner(message, context: context)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak spinner] in spinner?.draw() }
        spinner.timer = timer
        timer.resume()
        return spinner
    }

    /// One line of the spinner: a frame, the message (made visible, one line) and the seconds.
    static func line(tick: Int, message: String, elapsed: TimeInterval) -> String {
        "\r" + frames[tick % frames.count] + " " + VisibleText.visible(message, oneLine: true)
            + String(format: " %.1f s", max(0, elapsed)) + "\u{1B}[K"
    }

    /// Shows another message (the provider's progress), keeping the clock.
    func update(_ message: String) {
        lock.lock()
        self.message = message
        lock.unlock()
    }

    /// Stops and wipes the line.
    func stop() {
        lock.lock()
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        guard let timer else { return }
        timer.cancel()
        lock.lock()
        context.standardError.write("\r\u{1B}[K")
        lock.unlock()
    }

    private func draw() {
        lock.lock()
        defer { lock.unlock() }
        guard timer != nil else { return }
        context.standardError.write(Self.line(tick: tick, message: message, elapsed: Date().timeIntervalSince(started)))
        tick += 1
    }

    /// Runs `body` with a spinner showing `message` and whatever progress `body` reports.
    static func around<T>(_ message: String, _ body: (FetchProgressSink) async throws -> T) async throws -> T {
        let spinner = start(message)
        defer { spinner?.stop() }
        return try await body(FetchProgressSink(spinner: spinner))
    }
}

/// Where a provider's progress goes: the spinner's message, when there is a spinner.
struct FetchProgressSink: Sendable {
    let spinner: Spinner?
    var callback: (@Sendable (String) -> Void)? {
        guard let spinner else { return nil }
        return { @Sendable message in spinner.update(message) }
    }
}
