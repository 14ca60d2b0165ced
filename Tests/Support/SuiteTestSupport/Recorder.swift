import Foundation
import SuiteStorage

/// The values an observation gave, collected by the task that iterates it (as a screen would
/// show each as it comes).
public actor Recorder<Value: Sendable & Equatable, Failure: Error & Sendable> {
    public private(set) var values: [Value] = []
    public private(set) var failure: Failure?
    public private(set) var finished = false

    public init() {}

    func append(_ value: Value) { values.append(value) }
    func end(_ error: Failure?) { failure = error; finished = true }

    /// Iterates `observation` in a new task until it ends or the task is cancelled.
    public nonisolated func follow(_ observation: StoreObservation<Value, Failure>) -> Task<Void, Never> {
        Task {
            do throws(Failure) {
                for try await value in observation { await append(value) }
                await end(nil)
            } catch {
                await end(error)
            }
        }
    }

    /// Waits until `condition` holds for the values (true) or `seconds` pass (false). The bound is
    /// generous: tests run in parallel, and the synchronous ones (the CLI tests) can hold every
    /// thread of the cooperative pool for minutes on a machine with few cores, so no task of this
    /// test runs meanwhile. How fast changes arrive is checked apart from that
    /// (`Scripts/check-watch-todos`).
    public func wait(seconds: Double = 300, until condition: ([Value]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition(values) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(values)
    }

    /// Waits until the sequence ended (true) or `seconds` pass (false).
    public func waitUntilFinished(seconds: Double = 300) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !finished && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return finished
    }
}
