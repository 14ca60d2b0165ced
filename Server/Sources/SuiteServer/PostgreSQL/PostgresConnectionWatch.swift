import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Keeps requests from waiting on a PostgreSQL connection that is gone.
///
/// When the database cuts a connection (a restart or shutdown: `pg_ctl restart -m fast`), a query
/// that postgres-nio sends at that moment can wait forever, with the connection already closed
/// (`isClosed`): the request that runs it never ends, and the client waits for its own timeout.
/// Seen in `Scripts/check-sync`'s restart step, about one run in two, until this watch.
package enum PostgresConnectionWatch {
    /// Runs `operation`, which uses `connection`, and stops waiting for it once `connection` is
    /// closed: then it throws ``ServerStorageError/unavailable(_:)``, and `operation` is cancelled
    /// and left to end by itself (its queries cannot reach the database any more). Cancelling the
    /// caller cancels `operation`, which keeps its own error and cancellation handling.
    ///
    /// An operation that the driver never ends stays in memory (its task, its captures) for the
    /// life of the process: one per request caught by a cut, logged when `logger` is given. That
    /// is accepted; the request, the client and the server's shutdown no longer wait for it.
    package static func abandoningIfClosed<Value: Sendable>(
        _ connection: PostgresConnection, every interval: Duration = .milliseconds(100), logger: Logger? = nil,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let watch = Watch<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                watch.start(continuation)
                watch.setWork(Task {
                    let result: Result<Value, any Error>
                    do {
                        result = .success(try await operation())
                    } catch {
                        result = .failure(error)
                    }
                    watch.finish(result)
                })
                watch.setWatcher(Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        if connection.isClosed {
                            if watch.finish(.failure(ServerStorageError.unavailable("the database closed the connection during a request"))) {
                                logger?.warning("a request's database connection closed under it: the request fails (503), its work is left behind")
                            }
                            return
                        }
                    }
                })
            }
        } onCancel: {
            watch.cancelWork()
        }
    }

    /// Whether `error` says the connection itself was lost or could not be made: closed by the
    /// server or the network, cut uncleanly, failed to connect, or ended by a shutdown or restart
    /// of the database (SQLSTATE 57P01–57P03).
    package static func isConnectionLoss(_ error: PSQLError) -> Bool {
        if [.serverClosedConnection, .connectionError, .uncleanShutdown].contains(error.code) { return true }
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return ["57P01", "57P02", "57P03"].contains(state)
    }

    /// The state of one watched operation: resumed once, by the operation or by the watcher.
    private final class Watch<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var work: Task<Void, Never>?
            var watcher: Task<Void, Never>?
            var finished = false
            var cancelled = false
        }

        private let state = NIOLockedValueBox(State())

        func start(_ continuation: CheckedContinuation<Value, any Error>) {
            state.withLockedValue { $0.continuation = continuation }
        }

        func setWork(_ task: Task<Void, Never>) {
            let cancel = state.withLockedValue { state -> Bool in
                state.work = task
                return state.cancelled || state.finished
            }
            if cancel { task.cancel() }
        }

        func setWatcher(_ task: Task<Void, Never>) {
            let cancel = state.withLockedValue { state -> Bool in
                state.watcher = task
                return state.finished
            }
            if cancel { task.cancel() }
        }

        /// Resumes the caller with `result` unless it was resumed already (then false); the other
        /// side is cancelled.
        @discardableResult
        func finish(_ result: Result<Value, any Error>) -> Bool {
            let (continuation, work, watcher) = state.withLockedValue { state in
                guard !state.finished else { return (nil, nil, nil) as (CheckedContinuation<Value, any Error>?, Task<Void, Never>?, Task<Void, Never>?) }
                state.finished = true
                defer { state.continuation = nil }
                return (state.continuation, state.work, state.watcher)
            }
            guard let continuation else { return false }
            watcher?.cancel()
            if case .failure = result { work?.cancel() }
            continuation.resume(with: result)
            return true
        }

        func cancelWork() {
            let work = state.withLockedValue { state -> Task<Void, Never>? in
                state.cancelled = true
                return state.work
            }
            work?.cancel()
        }
    }
}
