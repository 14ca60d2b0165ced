import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// The connection pool that serves requests, kept answering while the database is away.
///
/// postgres-nio's pool lets a request wait for a connection as long as it keeps failing to make
/// one (a minute before its circuit breaker opens), and after a long outage retries only every
/// minute. Here:
///
/// - a request that has no connection after ``probeAfter`` starts a probe, which connects on
///   its own to tell an outage from a busy pool; if the probe cannot connect, the waiting
///   requests fail with ``ServerStorageError/unavailable(_:)`` (503, try again later), else they
///   wait on, up to ``leaseTimeout``;
/// - while the probe cannot connect, requests fail at once, and it tries again every
///   ``probeInterval``;
/// - once it connects again, a fresh pool replaces the failing one, so requests are served
///   within about a second of the database's return.
final class PostgresPool: Sendable {
    /// How long a request waits for a pooled connection before it has a probe check the
    /// database is there.
    static let probeAfter: Duration = .milliseconds(250)
    /// The longest a request waits for a pooled connection (a busy pool).
    static let leaseTimeout: Duration = .seconds(30)
    /// The interval between probes while the database is away.
    static let probeInterval: Duration = .milliseconds(500)

    private struct State {
        var client: PostgresClient
        var generation = 0
        var isDown = false
        var probing = false
        /// When the last probe that found the database ended (a busy pool probes at most once
        /// a second).
        var lastUp: ContinuousClock.Instant?
    }

    private let configuration: PostgresClient.Configuration
    private let probeConfiguration: PostgresConnection.Configuration
    private let logger: Logger
    private let state: NIOLockedValueBox<State>
    /// Wakes ``run()`` when a new client must run (or a probe must start).
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(configuration: PostgresClient.Configuration, probe: PostgresConnection.Configuration, logger: Logger) {
        var configuration = configuration
        configuration.options.connectTimeout = .seconds(3)
        self.configuration = configuration
        var probe = probe
        probe.options.connectTimeout = .seconds(1)
        self.probeConfiguration = probe
        self.logger = logger
        self.state = NIOLockedValueBox(State(client: PostgresClient(configuration: configuration, backgroundLogger: logger)))
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether requests are being refused because the database is away.
    var isDown: Bool {
        state.withLockedValue { $0.isDown }
    }

    /// Runs the current pool (and each one that replaces it) and the probes, until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            var running: (generation: Int, task: Task<Void, Never>)?
            defer { running?.task.cancel() }
            let first = state.withLockedValue { ($0.generation, $0.client) }
            running = (first.0, Task { await first.1.run() })
            for await _ in wakeups {
                if Task.isCancelled { break }
                let (generation, client, probe) = state.withLockedValue { state -> (Int, PostgresClient, Bool) in
                    let probe = state.probing
                    return (state.generation, state.client, probe)
                }
                if let current = running, current.generation != generation {
                    current.task.cancel()
                    running = (generation, Task { await client.run() })
                }
                if probe {
                    group.addTask { await self.probeUntilUp() }
                }
            }
        }
    }

    /// Runs a body on a pooled connection, waiting at most ``leaseTimeout`` for one.
    func withConnection<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        let client: PostgresClient? = state.withLockedValue { $0.isDown ? nil : $0.client }
        guard let client else { throw ServerStorageError.unavailable("the database is unreachable") }
        let leased = NIOLockedValueBox(false)
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        leased.withLockedValue { $0 = true }
                        return try await body(connection)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: Self.probeAfter)
                    if leased.withLockedValue({ $0 }) { return nil }
                    self.startProbe()
                    let clock = ContinuousClock()
                    let deadline = clock.now.advanced(by: Self.leaseTimeout)
                    while clock.now < deadline {
                        if leased.withLockedValue({ $0 }) { return nil }
                        if self.isDown { throw ServerStorageError.unavailable("the database is unreachable") }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    if leased.withLockedValue({ $0 }) { return nil }
                    throw ServerStorageError.unavailable("no database connection within \(Self.leaseTimeout)")
                }
                while let next = try await group.next() {
                    if let value = next {
                        group.cancelAll()
                        return value
                    }
                }
                throw CancellationError()
            }
        } catch let error where !leased.withLockedValue({ $0 }) && !(error is CancellationError) {
            // Nothing reached the database: an outage or a full pool; the probe tells which.
            startProbe()
            if let error = error as? ServerStorageError { throw error }
            throw ServerStorageError.unavailable("no database connection: \(error)")
        }
    }

    /// Starts a probe unless one runs.
    private func startProbe() {
        let now = ContinuousClock.now
        let start = state.withLockedValue { state -> Bool in
            guard !state.probing else { return false }
            if !state.isDown, let last = state.lastUp, now - last < .seconds(1) { return false }
            state.probing = true
            return true
        }
        if start { wake.yield() }
    }

    /// Connects on its own until it can: while it cannot, requests are refused at once; once it
    /// can after an outage, a fresh pool replaces the old one.
    private func probeUntilUp() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: probeConfiguration, id: 2, logger: logger)
                try? await connection.close()
                break
            } catch {
                failures += 1
                if failures == 1 {
                    state.withLockedValue { $0.isDown = true }
                    logger.warning("the database is unreachable; requests get 503 until it is back: \(error)")
                }
                try? await Task.sleep(for: Self.probeInterval)
            }
        }
        let replaced = state.withLockedValue { state -> Bool in
            state.probing = false
            state.lastUp = .now
            guard state.isDown else { return false }
            state.isDown = false
            state.generation += 1
            state.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            return true
        }
        if replaced {
            logger.notice("the database is back; serving again")
            wake.yield()
        }
    }
}
