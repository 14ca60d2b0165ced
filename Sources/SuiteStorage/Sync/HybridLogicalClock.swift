/// A hybrid logical clock reading: 48 bits of milliseconds since 1970 and a 16-bit counter in one
/// `Int64`, so that readings compare as plain integers.
///
/// Every change a device makes is stamped with a reading that is later than every reading the
/// device has made or seen (``SyncClock``), so an edit made after seeing another one always
/// orders after it, whatever the wall clocks of the two devices say. Equal readings of two
/// devices are ordered by device id (``SyncStamp``).
package struct HybridTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    package let rawValue: Int64

    package init(rawValue: Int64) { self.rawValue = rawValue }

    /// The reading for wall-clock `millis` with counter 0; times before 1970 or past the 48-bit
    /// range (the year 10889) are clamped into it.
    package init(millis: Int64, counter: UInt16 = 0) {
        let clamped = min(max(millis, 0), Self.maximumMillis)
        rawValue = clamped << 16 | Int64(counter)
    }

    package static let maximumMillis: Int64 = (1 << 47) - 1
    package static let zero = HybridTime(rawValue: 0)

    package var millis: Int64 { rawValue >> 16 }
    package var counter: UInt16 { UInt16(truncatingIfNeeded: rawValue & 0xFFFF) }

    package static func < (lhs: HybridTime, rhs: HybridTime) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String { "\(millis).\(counter)" }

    package init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(Int64.self)
        guard value >= 0 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a negative clock reading"))
        }
        rawValue = value
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The order of changes to one field: clock reading first, device id as the tie-break.
package struct SyncStamp: Sendable, Hashable, Comparable {
    package var time: HybridTime
    package var device: String

    package init(time: HybridTime, device: String) {
        self.time = time
        self.device = device
    }

    package static func < (lhs: SyncStamp, rhs: SyncStamp) -> Bool {
        (lhs.time, lhs.device) < (rhs.time, rhs.device)
    }
}

/// The send and receive rules of a hybrid logical clock (Kulkarni et al.; as in
/// jlongster/crdt-example-app's `timestamp.js`), over the last reading a device made or saw.
package enum SyncClock {
    /// The reading for a change made now: later than `last` and no earlier than the wall clock.
    package static func send(last: HybridTime, now millis: Int64) -> HybridTime {
        let wall = HybridTime(millis: millis)
        if wall > last { return wall }
        // The wall clock is behind what was seen: count on from the last reading. The counter
        // carries into the milliseconds when it overflows, which keeps readings increasing.
        return HybridTime(rawValue: last.rawValue == Int64.max ? last.rawValue : last.rawValue + 1)
    }

    /// The last reading after seeing `remote`: every later ``send(last:now:)`` is after it.
    /// With a `limit` (see ``limit(serverTime:)``), a reading past it is not taken, as the
    /// paper's ε bound refuses it: a device whose clock ran fast (an older client, which does
    /// not check) cannot drag this one forward.
    package static func receive(last: HybridTime, remote: HybridTime, limit: HybridTime? = nil) -> HybridTime {
        if let limit, remote > limit { return last }
        return max(last, remote)
    }

    /// How far ahead of the server's clock a device's clock may run: 25 hours (in milliseconds).
    ///
    /// A clock a day off (a mistyped date, a time zone taken for UTC) still syncs; one further
    /// ahead is refused before it sends anything (``SyncClockError/aheadOfServer(by:pending:)``),
    /// so that its edits cannot beat real ones for days. Like the ε of the hybrid-clock paper,
    /// readings past it are never taken as the time: the server's clock is the reference,
    /// because the server sees real time and every device talks to it.
    package static let maximumLead: Int64 = 25 * 3_600_000

    /// The latest reading a device may make or take from others when the server's clock says
    /// `serverTime` (milliseconds since 1970).
    package static func limit(serverTime: Int64) -> HybridTime {
        HybridTime(millis: min(max(serverTime, 0), HybridTime.maximumMillis - maximumLead) + maximumLead, counter: .max)
    }

    /// A server's clock as an answer says it, or nil when it cannot be the time: before
    /// 2024-01-01 (older than this code; a server whose clock was reset) or past what a clock
    /// reading holds. A server that says nothing useful about the time turns the bound off
    /// rather than locking devices out or moving their changes to long ago.
    package static func plausible(serverTime: Int64?) -> Int64? {
        guard let serverTime, serverTime >= 1_704_067_200_000, serverTime <= HybridTime.maximumMillis - maximumLead else { return nil }
        return serverTime
    }
}

/// A device's clock is too far ahead of the server's to sync.
package enum SyncClockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// This device's clock is `by` milliseconds ahead of the server's, more than
    /// ``SyncClock/maximumLead``; `pending` changes wait (nothing was sent, nothing is lost).
    case aheadOfServer(by: Int64, pending: Int)

    package var description: String {
        switch self {
        case .aheadOfServer(let by, let pending):
            return "this device's clock is \(by / 1000) s ahead of the server's; \(pending) changes wait until it is set right"
        }
    }
}
