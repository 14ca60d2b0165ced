import Logging
import PostgresNIO

/// Transactions that never hand a connection back to the pool while it is inside one.
///
/// `BEGIN`, the body, then `COMMIT`; if the body throws, or the task was cancelled by the time
/// it returns, `ROLLBACK`. If the rollback itself fails the connection is closed, so the pool
/// drops it instead of lending it, mid-transaction, to the next request.
enum PostgresTransaction {
    /// Runs a body in a transaction on a connection.
    ///
    /// - Parameters:
    ///   - connection: A connection outside any transaction.
    ///   - logger: Where queries log.
    ///   - body: The work; it must not commit or roll back itself.
    /// - Returns: The body's result, once committed.
    /// - Throws: The body's error (or `CancellationError`) after a rollback, or the database's.
    static func run<Result: Sendable>(
        on connection: PostgresConnection,
        logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await connection.query("BEGIN", logger: logger)
        do {
            let value = try await body(connection)
            try Task.checkCancellation()
            try await connection.query("COMMIT", logger: logger)
            return value
        } catch {
            do {
                try await connection.query("ROLLBACK", logger: logger)
            } catch {
                logger.warning("closing a connection whose rollback failed: \(String(reflecting: error))")
                try? await connection.close()
            }
            throw error
        }
    }
}
