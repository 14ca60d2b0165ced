import Foundation

/// A device's wall clock in a simulated sync run: set to a start and moved forward by hand, so
/// that devices can be hours apart.
public final class DeviceClock: @unchecked Sendable {
    private let lock = NSLock()
    private var millis: Int64

    public init(millis: Int64) { self.millis = millis }

    public func advance(_ delta: Int64) { lock.withLock { millis += delta } }

    public var date: Date { lock.withLock { Date(timeIntervalSince1970: Double(millis) / 1000) } }
}
