import BundleCore
import Foundation
import SuiteEnvironment

extension PeopleTime {
    /// A deadline: its day (`Thu 2026-12-03`), or its moment as ``PeopleTime/stamp(_:in:)`` writes it.
    static func deadline(_ deadline: Deadline, in timeZone: TimeZone = .current) -> String {
        switch deadline {
        case .time(let date):
            return stamp(date, in: timeZone)
        case .day(let year, let month, let day):
            return Self.day(year: year, month: month, day: day, in: timeZone)
        }
    }
}
