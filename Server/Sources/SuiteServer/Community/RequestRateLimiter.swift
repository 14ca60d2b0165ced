import Foundation

/// Token buckets per account and kind of request, in this process's memory: a burst of
/// ``capacity`` requests, then ``perMinute`` a minute.
package actor RequestRateLimiter {
    /// What a request does.
    package enum Kind: Sendable, Hashable {
        /// Publishing, settings and shared lists.
        case write
        /// Counts, top lists and the feed.
        case read
    }

    /// A bucket's size and refill rate.
    package struct Limit: Sendable {
        package var capacity: Double
        package var perMinute: Double

        package init(capacity: Double, perMinute: Double) {
            self.capacity = capacity
            self.perMinute = perMinute
        }
    }

    private let limits: [Kind: Limit]
    private var buckets: [String: (tokens: Double, at: Date)] = [:]

    /// Creates a limiter (by default 30 writes at once then 60 a minute, and 300 reads at once
    /// then 1,200 a minute).
    package init(write: Limit = Limit(capacity: 30, perMinute: 60), read: Limit = Limit(capacity: 300, perMinute: 1_200)) {
        limits = [.write: write, .read: read]
    }

    /// Takes a token for the account, or says it has none left.
    package func allows(_ kind: Kind, account: String, now: Date) -> Bool {
        guard let limit = limits[kind] else { return true }
        let key = "\(kind)\u{0}\(account)"
        var bucket = buckets[key] ?? (limit.capacity, now)
        let elapsed = max(0, now.timeIntervalSince(bucket.at))
        bucket.tokens = min(limit.capacity, bucket.tokens + elapsed * limit.perMinute / 60)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[key] = bucket
            return false
        }
        bucket.tokens -= 1
        buckets[key] = bucket
        if buckets.count > 100_000 {
            // A bucket untouched for ten minutes is full again: nothing worth keeping.
            buckets = buckets.filter { _, value in now.timeIntervalSince(value.at) < 600 }
        }
        return true
    }
}
