import Foundation
import Logging
import ServiceLifecycle

/// Forgets, every hour, the ids of operations that compactions removed longer ago than the
/// grace period (``ServerStorage/forgetRemovedOperations(removedBefore:)``), until graceful
/// shutdown. Part of `suite-server serve`.
package struct CompactionService: Service {
    /// The default grace period, in days.
    package static let defaultGraceDays: Double = 30

    let storage: any ServerStorage
    let grace: TimeInterval
    let interval: Duration
    let logger: Logger

    /// - Parameters:
    ///   - storage: The storage.
    ///   - grace: How long removed operations' ids are kept.
    ///   - interval: How often it runs.
    ///   - logger: Where it logs what it forgot, and failures.
    package init(storage: any ServerStorage, grace: TimeInterval, interval: Duration = .seconds(3600), logger: Logger) {
        self.storage = storage
        self.grace = grace
        self.interval = interval
        self.logger = logger
    }

    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await storage.waitUntilReady()
                let forgotten = try await storage.forgetRemovedOperations(removedBefore: Date().addingTimeInterval(-grace))
                let count = forgotten.reduce(0) { $0 + $1.count }
                if count > 0 { logger.info("forgot \(count) removed operations in \(forgotten.count) logs") }
            } catch {
                logger.warning("cannot forget removed operations: \(error)")
            }
            try? await cancelWhenGracefulShutdown { [interval] in try await Task.sleep(for: interval) }
        }
    }
}
