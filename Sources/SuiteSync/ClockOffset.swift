import Foundation
import SuiteStorage

/// How far this device's clock is from the sync server's, in words.
package enum ClockOffset {
    /// A distance in milliseconds as people say it: "0.2 s", "5 min", "3 h 10 min", "2 days 3 h".
    package static func distance(_ millis: Int64) -> String {
        let millis = millis.magnitude
        if millis < 60_000 { return String(format: "%.1f s", Double(millis) / 1000) }
        let minutes = millis / 60_000
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 24 { return minutes % 60 == 0 ? "\(hours) h" : "\(hours) h \(minutes % 60) min" }
        let days = hours / 24
        return "\(days) day\(days == 1 ? "" : "s")" + (hours % 24 == 0 ? "" : " \(hours % 24) h")
    }

    /// "0.2 s ahead of the server", "3 min behind the server", "the same as the server's".
    package static func phrase(_ millis: Int64) -> String {
        if millis.magnitude < 50 { return "the same as the server's" }
        return "\(distance(millis)) \(millis > 0 ? "ahead of" : "behind") the server"
    }

    /// The one line a sync refused for a clock too far ahead says.
    package static func refusal(by millis: Int64, pending: Int) -> String {
        let waiting = pending == 0 ? "nothing waits to be sent"
            : "nothing was lost: \(pending) change\(pending == 1 ? "" : "s") wait\(pending == 1 ? "s" : "") to be sent"
        return "this device's clock is \(distance(millis)) ahead of the server's (more than \(SyncClock.maximumLead / 3_600_000) h is refused); "
            + "set the clock right and sync again (\(waiting))"
    }
}
