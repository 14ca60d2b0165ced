import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prose for people (the walk, `bmm about`, section pages) wrapped to the terminal's width,
/// between words only.
///
/// The width is `$COLUMNS` when it is a number, also when stdout is not a terminal (so that
/// `COLUMNS=60 suite bmm about | less` wraps); else the terminal's width when stdout is one (80
/// when it cannot be read); else nothing is wrapped.
enum TextWrap {
    /// The narrowest width wrapped to: a smaller `$COLUMNS` counts as this.
    static let minimumWidth = 20

    /// The width to wrap to for this run, nil when nothing is wrapped.
    static var width: Int? {
        let context = CLIContext.current
        if let columns = context.environment["COLUMNS"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), columns > 0 {
            return max(columns, minimumWidth)
        }
        guard context.stdoutIsTerminal else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return max(Int(size.ws_col), minimumWidth)
        }
        return 80
    }

    /// `text` with every line longer than `width` broken at spaces. A continued line keeps the
    /// line's indent, and after a list mark ("- ", "1. ") lines up with the text after it; a word
    /// longer than the width stays whole on a line of its own.
    static func wrap(_ text: String, width: Int? = TextWrap.width) -> String {
        guard let width else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { wrap(line: $0, width: width) }
            .joined(separator: "\n")
    }

    private static func wrap(line: Substring, width: Int) -> String {
        guard visibleCount(line) > width else { return String(line) }
        let indent = line.prefix { $0 == " " }
        let body = line.dropFirst(indent.count)
        let hanging = String(repeating: " ", count: indent.count + listMark(body).count)
        var lines: [String] = []
        var current = String(indent)
        var currentCount = indent.count
        var lineHasWord = false
        for word in body.split(separator: " ") {
            let count = visibleCount(word)
            if lineHasWord && currentCount + 1 + count > width {
                lines.append(current)
                current = hanging
                currentCount = hanging.count
                lineHasWord = false
            }
            if lineHasWord {
                current += " "
                currentCount += 1
            }
            current += word
            currentCount += count
            lineHasWord = true
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }

    /// The list mark `text` starts with ("- ", "12. "), or empty.
    private static func listMark(_ text: Substring) -> Substring {
        if text.hasPrefix("- ") { return text.prefix(2) }
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty, digits.count <= 3, text.dropFirst(digits.count).hasPrefix(". ") { return text.prefix(digits.count + 2) }
        return ""
    }

    /// The characters of `text` a terminal shows: colour markers (noncharacters) take no room.
    private static func visibleCount(_ text: Substring) -> Int {
        text.unicodeScalars.count { !(0xFDD0...0xFDEF).contains($0.value) && !(0x300...0x36F).contains($0.value) }
    }
}
