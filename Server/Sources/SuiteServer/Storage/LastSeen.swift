import Foundation

/// How precisely a device's last request time is kept.
package enum LastSeen {
    /// A device's last-seen time is written again only when it is older than this (seconds), so
    /// that reading is not a write on every request.
    package static let resolution: TimeInterval = 60
}
