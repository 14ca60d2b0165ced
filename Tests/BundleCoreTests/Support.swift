import Foundation
@testable import BundleCore

/// A clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_795_000_000)) { current = start }  // 2026-11-18

    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

let utc = TimeZone(identifier: "UTC")!

/// A fresh store in memory: the same schema as a file, nothing left behind in the temp folder.
func freshStore(clock: TestClock = TestClock()) throws -> BundleStore {
    try BundleStore.inMemory(now: { clock.now })
}
