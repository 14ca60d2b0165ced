import Foundation

extension String {
    /// The string without leading and trailing white space and line breaks, as
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`; the usual string, with nothing to trim,
    /// is returned without bridging.
    var trimmedOfWhitespace: String {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last else { return self }
        if !first.mayBeTrimmed && !last.mayBeTrimmed { return self }
        return trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// True when the string is empty or holds only spaces and tabs, as
    /// `trimmingCharacters(in: .whitespaces).isEmpty`.
    var isBlank: Bool {
        guard let first = unicodeScalars.first else { return true }
        if !first.mayBeTrimmed { return false }
        return trimmingCharacters(in: .whitespaces).isEmpty
    }
}

extension Unicode.Scalar {
    /// Whether Foundation's white space sets may hold this scalar: Unicode's White_Space property,
    /// plus U+200B ZERO WIDTH SPACE, which Foundation on Linux also counts (checked over every
    /// scalar when this was written; the tests compare both on samples).
    fileprivate var mayBeTrimmed: Bool { properties.isWhitespace || value == 0x200B }
}
