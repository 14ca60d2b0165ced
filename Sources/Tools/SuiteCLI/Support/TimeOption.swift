import BundleCore
import Foundation

/// The one reading of a time a person types, for every time option (`quotes tick --at`,
/// `quotes history --since`, `bundle review --since/--until`; `--deadline` reads the same forms
/// through `Deadline.parse`): a day `YYYY-MM-DD` (its start), a local time `YYYY-MM-DDTHH:MM[:SS]`
/// or `YYYY-MM-DD HH:MM[:SS]` in the local time zone, or an RFC 3339 time with `Z` or an offset
/// (`2026-11-23T09:00:00Z`, `2026-11-23T10:00+01:00`). Impossible dates are refused, never rolled
/// over. The rule is ``Deadline/parse(_:timeZone:)``'s.
enum TimeOption {
    /// The forms, as help and errors name them.
    static let forms = "YYYY-MM-DD, YYYY-MM-DDTHH:MM (local time) or 2026-11-23T09:00:00Z"

    /// `text` as a moment: a day is its start in `timeZone`.
    ///
    /// - Throws: ``CLIError/usage(_:)`` naming `option` and the forms.
    static func moment(_ text: String, option: String, timeZone: TimeZone = .current) throws -> Date {
        switch try? Deadline.parse(text, timeZone: timeZone) {
        case .time(let date)?:
            return date
        case .day(let year, let month, let day)?:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            if let start = calendar.date(from: DateComponents(year: year, month: month, day: day)) { return start }
        case nil:
            break
        }
        throw CLIError.usage("invalid \(option) '\(VisibleText.visible(String(text.prefix(100)), oneLine: true))': use \(forms)")
    }
}
