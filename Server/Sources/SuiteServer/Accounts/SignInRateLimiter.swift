import Foundation
import SuiteHTTPLimits

/// Limits guesses at secrets (sign-in, recovery, password change, account deletion), in this
/// process's memory.
///
/// An attempt counts when it **starts** (as a failure until it ends well), so concurrent guesses
/// are bounded exactly like sequential ones. Two limits apply:
///
/// - **Per client address** (an IPv6 address by its /64): ``Rules/addressFailures`` failures
///   within ``Rules/addressWindow``, and ``Rules/addressHourlyFailures`` within an hour, over
///   every account. A success does not clear them (a guesser who owns an account could
///   otherwise reset its count).
/// - **Per account**, slower: once it had ``Rules/accountFailures`` failures within an hour
///   from any address, an address that never proved a secret of this account in this process
///   gets one attempt per ``Rules/accountBackoff`` (all such addresses share it). An address
///   that did is not slowed.
///
/// One address alone cannot reach the account limit (its own limits stop it first), so a
/// stranger cannot lock the owner out; many addresses together only slow new addresses down.
package actor SignInRateLimiter {
    /// The limits.
    package struct Rules: Sendable {
        /// Failures (attempts in flight included) an address may have within ``addressWindow``.
        package var addressFailures = 10
        /// The short window of an address.
        package var addressWindow: TimeInterval = 60
        /// Failures an address may have within an hour.
        package var addressHourlyFailures = 50
        /// Failures of an account within an hour, from any address, after which new addresses
        /// are slowed down.
        package var accountFailures = 60
        /// The interval between attempts of new addresses on an account past its limit.
        package var accountBackoff: TimeInterval = 10
        /// How long an address that proved an account's secret stays known to it.
        package var knownAddressLifetime: TimeInterval = 30 * 24 * 3600

        package init() {}
    }

    /// One admitted attempt, to hand back to ``finish(_:succeeded:now:)``.
    package struct Attempt: Sendable {
        let account: String
        let address: String
        let startedAt: Date
    }

    /// A refusal: why, and when to try again.
    package struct Refusal: Error, Sendable, Equatable {
        /// Seconds until an attempt may be admitted.
        package var retryAfter: Int
        /// Whether the account's limit (rather than the address's) refused it.
        package var byAccount: Bool
    }

    package let rules: Rules
    private var addressFailures: [String: [Date]] = [:]
    private var accountFailures: [String: [Date]] = [:]
    private var inFlight: [String: Int] = [:]
    private var accountInFlight: [String: Int] = [:]
    private var lastNewAddressAttempt: [String: Date] = [:]
    private var knownAddresses: [String: [String: Date]] = [:]
    private var recordsSincePrune = 0

    /// Creates a limiter.
    package init(rules: Rules = Rules()) {
        self.rules = rules
    }

    /// Creates a limiter whose address allows `limit` failures within `window` seconds.
    package init(limit: Int, window: TimeInterval = 60) {
        var rules = Rules()
        rules.addressFailures = limit
        rules.addressWindow = window
        self.init(rules: rules)
    }

    /// Admits an attempt, counting it now.
    ///
    /// - Parameters:
    ///   - account: The account name the secret is for.
    ///   - address: The client's address (``ClientAddress/key``).
    ///   - now: The time of the attempt.
    /// - Returns: The attempt, to finish once the secret is checked.
    /// - Throws: ``Refusal`` past a limit.
    package func begin(account: String, address: String, now: Date) throws(Refusal) -> Attempt {
        let shortWindow = recent(addressFailures[address], within: rules.addressWindow, now: now)
        let hour = recent(addressFailures[address], within: 3600, now: now)
        let flying = inFlight[address] ?? 0
        if shortWindow.count + flying >= rules.addressFailures {
            throw Refusal(retryAfter: Self.wait(until: shortWindow.first.map { $0 + rules.addressWindow }, now: now), byAccount: false)
        }
        if hour.count + flying >= rules.addressHourlyFailures {
            throw Refusal(retryAfter: Self.wait(until: hour.first.map { $0 + 3600 }, now: now), byAccount: false)
        }
        let known = knownAddresses[account]?[address].map { now.timeIntervalSince($0) < rules.knownAddressLifetime } ?? false
        if !known {
            let accountHour = recent(accountFailures[account], within: 3600, now: now)
            if accountHour.count + (accountInFlight[account] ?? 0) >= rules.accountFailures {
                if let last = lastNewAddressAttempt[account], now.timeIntervalSince(last) < rules.accountBackoff {
                    throw Refusal(retryAfter: Self.wait(until: last + rules.accountBackoff, now: now), byAccount: true)
                }
                lastNewAddressAttempt[account] = now
            }
        }
        inFlight[address, default: 0] += 1
        accountInFlight[account, default: 0] += 1
        return Attempt(account: account, address: address, startedAt: now)
    }

    /// Ends an attempt: a failure stays counted (at the time it started), a success makes the
    /// address known to the account.
    package func finish(_ attempt: Attempt, succeeded: Bool, now: Date) {
        inFlight[attempt.address, default: 1] -= 1
        if inFlight[attempt.address] == 0 { inFlight[attempt.address] = nil }
        accountInFlight[attempt.account, default: 1] -= 1
        if accountInFlight[attempt.account] == 0 { accountInFlight[attempt.account] = nil }
        if succeeded {
            knownAddresses[attempt.account, default: [:]][attempt.address] = now
        } else {
            addressFailures[attempt.address, default: []].append(attempt.startedAt)
            accountFailures[attempt.account, default: []].append(attempt.startedAt)
        }
        recordsSincePrune += 1
        if recordsSincePrune >= 10_000 {
            prune(now: now)
        }
    }

    /// Drops what no longer limits anything, so memory follows the last hour's activity.
    package func prune(now: Date) {
        recordsSincePrune = 0
        addressFailures = addressFailures.compactMapValues { dates in
            let kept = dates.filter { now.timeIntervalSince($0) < 3600 }
            return kept.isEmpty ? nil : kept
        }
        accountFailures = accountFailures.compactMapValues { dates in
            let kept = dates.filter { now.timeIntervalSince($0) < 3600 }
            return kept.isEmpty ? nil : kept
        }
        lastNewAddressAttempt = lastNewAddressAttempt.filter { now.timeIntervalSince($0.value) < rules.accountBackoff }
        knownAddresses = knownAddresses.compactMapValues { addresses in
            let kept = addresses.filter { now.timeIntervalSince($0.value) < rules.knownAddressLifetime }
            return kept.isEmpty ? nil : kept
        }
    }

    private func recent(_ dates: [Date]?, within window: TimeInterval, now: Date) -> [Date] {
        (dates ?? []).filter { now.timeIntervalSince($0) < window }
    }

    private static func wait(until date: Date?, now: Date) -> Int {
        guard let date else { return 1 }
        return max(1, Int(date.timeIntervalSince(now).rounded(.up)))
    }
}
