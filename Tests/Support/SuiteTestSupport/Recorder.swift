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

    /// Waits until `condition` holds for the values (true), or false when it did not in the
    /// checks ``eventually(checks:isolation:_:)`` makes (counted in this task's turns, so minutes of the
    /// cooperative threads being busy elsewhere use none of them). How fast changes arrive is
    /// checked apart from that (`Scripts/check-watch-todos`).
    public func wait(until condition: ([Value]) -> Bool) async -> Bool {
        await eventually { condition(values) }
    }

    /// Waits until the sequence ended (true), or false as ``wait(until:)``.
    public func waitUntilFinished() async -> Bool {
        await eventually { finished }
    }
}
