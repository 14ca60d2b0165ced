import NIOConcurrencyHelpers

/// Fans out "this account's log changed" to the event streams open in this process.
///
/// The storage publishes here: SQLite right after a push stored something, PostgreSQL for every
/// notification on its channel (so pushes served by other processes arrive too). Each
/// subscriber gets the names of the logs that changed, in order; a slow subscriber keeps only the
/// newest few, which is enough for a hint that says "pull now".
package final class SyncEventHub: Sendable {
    private struct Subscriber {
        let accountID: String
        let deviceID: String?
        let continuation: AsyncStream<String>.Continuation
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var isClosed = false
    }

    private let state = NIOLockedValueBox(State())

    /// Creates a hub with no subscribers.
    package init() {}

    /// The changes to one account's logs from now on, as log names.
    ///
    /// The stream ends when the hub closes or the caller stops iterating.
    /// - Parameters:
    ///   - accountID: The account whose changes the caller wants.
    ///   - deviceID: The device asking, if any: ``end(deviceID:)`` ends its streams.
    /// - Returns: A stream of log names.
    package func subscribe(accountID: String, deviceID: String? = nil) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        let id: Int? = state.withLockedValue { state in
            guard !state.isClosed else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(accountID: accountID, deviceID: deviceID, continuation: continuation)
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { state in _ = state.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every subscriber of an account that one of its logs changed.
    /// - Parameters:
    ///   - accountID: The account that changed.
    ///   - log: The log that received new operations.
    package func publish(accountID: String, log: String) {
        let continuations = state.withLockedValue { state in
            state.subscribers.values.filter { $0.accountID == accountID }.map(\.continuation)
        }
        for continuation in continuations {
            continuation.yield(log)
        }
    }

    /// Ends the subscriptions of one account (deleted: it will never change again).
    /// - Parameter accountID: The account.
    package func end(accountID: String) {
        end { $0.accountID == accountID }
    }

    /// Ends the subscriptions of one device (revoked or logged out: its token no longer works).
    /// - Parameter deviceID: The device.
    package func end(deviceID: String) {
        end { $0.deviceID == deviceID }
    }

    private func end(where matches: (Subscriber) -> Bool) {
        let continuations = state.withLockedValue { state in
            let ending = state.subscribers.filter { matches($0.value) }
            for id in ending.keys { state.subscribers.removeValue(forKey: id) }
            return ending.values.map(\.continuation)
        }
        for continuation in continuations {
            continuation.finish()
        }
    }

    /// The number of open subscriptions (for tests and diagnostics).
    package var subscriberCount: Int {
        state.withLockedValue { $0.subscribers.count }
    }

    /// Ends every subscription and refuses new ones (at shutdown).
    package func close() {
        let continuations = state.withLockedValue { state in
            state.isClosed = true
            let continuations = state.subscribers.values.map(\.continuation)
            state.subscribers.removeAll()
            return continuations
        }
        for continuation in continuations {
            continuation.finish()
        }
    }
}
