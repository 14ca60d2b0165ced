import Foundation

/// Counts failed sign-ins per account name, in this process's memory.
///
/// After ``limit`` failures within ``window`` the name is refused until the oldest failure in
/// the window is old enough; a successful sign-in clears its failures.
package actor SignInRateLimiter {
    /// Failures tolerated within the window.
    package let limit: Int
    /// The window, in seconds.
    package let window: TimeInterval
    private var failures: [String: [Date]] = [:]

    /// Creates a limiter.
    /// - Parameters:
    ///   - limit: Failures tolerated within the window (5 by default).
    ///   - window: The window in seconds (60 by default).
    package init(limit: Int = 5, window: TimeInterval = 60) {
        self.limit = limit
        self.window = window
    }

    /// Whether the account may try to sign in now.
    ///
    /// - Parameters:
    ///   - account: The account name.
    ///   - now: The time of the attempt.
    /// - Returns: `false` when it has failed ``limit`` times within the window.
    package func allows(_ account: String, now: Date) -> Bool {
        let recent = recentFailures(of: account, now: now)
        return recent.count < limit
    }

    /// Records a failed sign-in.
    package func recordFailure(_ account: String, now: Date) {
        var recent = recentFailures(of: account, now: now)
        recent.append(now)
        failures[account] = recent
        if failures.count > 10_000 {
            failures = failures.filter { _, dates in dates.contains { now.timeIntervalSince($0) < window } }
        }
    }

    /// Forgets an account's failures after it signed in.
    package func recordSuccess(_ account: String) {
        failures[account] = nil
    }

    private func recentFailures(of account: String, now: Date) -> [Date] {
        (failures[account] ?? []).filter { now.timeIntervalSince($0) < window }
    }
}
