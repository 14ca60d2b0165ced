/// Waits until `condition` holds (true), checking it every 5 ms; false when it has been checked
/// `checks` times without holding (60,000 checks: at least five minutes).
///
/// The patience is counted in the waiting task's own turns, not in wall time. In a full run on
/// two cores the test processes' synchronous tests (and the machine's other work) can keep every
/// thread that runs tasks busy for minutes; meanwhile neither this task nor the one it waits for
/// runs, and a wall-clock deadline would pass with the awaited work never having had a turn. A
/// real hang still ends in false: the checks go on as soon as tasks run again.
public func eventually(
    checks: Int = 60_000, isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    for _ in 0..<checks {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
