import Foundation

/// Numbers given on the command line, checked against their range where they are parsed.
///
/// Every numeric option goes through here (ArgumentParser's `transform:` and the fast path
/// alike), so no command ever computes with a value it did not expect: `--page
/// 9223372036854775807` or `--timeout nan` is a usage error (exit 64), never an overflow trap
/// further on.
enum NumberOption {
    /// A whole number within `range`.
    ///
    /// - Throws: ``CLIError/usage(_:)`` naming `option` and the range.
    static func int(_ text: String, in range: ClosedRange<Int>, option: String) throws -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw CLIError.usage("\(option) must be \(describe(range))")
        }
        return value
    }

    /// A finite number of seconds within `range` (`nan`, `inf` and `1e300` are refused).
    ///
    /// - Throws: ``CLIError/usage(_:)`` naming `option` and the range.
    static func seconds(_ text: String, in range: ClosedRange<Double>, option: String) throws -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, range.contains(value) else {
            throw CLIError.usage("\(option) must be a number of seconds from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
        return value
    }

    /// ArgumentParser's `transform:` for a whole-number option.
    static func int(_ range: ClosedRange<Int>, _ option: String) -> @Sendable (String) throws -> Int {
        { text in try int(text, in: range, option: option) }
    }

    /// ArgumentParser's `transform:` for a seconds option.
    static func seconds(_ range: ClosedRange<Double>, _ option: String) -> @Sendable (String) throws -> Double {
        { text in try seconds(text, in: range, option: option) }
    }

    static func describe(_ range: ClosedRange<Int>) -> String {
        range.upperBound == Int.max ? "\(range.lowerBound) or more" : "\(range.lowerBound) to \(range.upperBound)"
    }

    private static func format(_ value: Double) -> String { String(format: "%g", value) }
}
