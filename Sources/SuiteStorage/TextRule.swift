import Foundation
import SuiteMarkup

/// The kinds of text field the cores store. Every way text comes in (an app, the command line, an
/// import file, a provider's answer) is checked by ``TextRule`` against one of these, so the same
/// value gets the same answer whatever brought it.
package enum TextField: Sendable, Equatable {
    /// One line: a name, title, category, source, citation, event phrase, icon, provider id or
    /// user name. At most `limit` characters (grapheme clusters); no line break, no tab, no other
    /// control character.
    case line(limit: Int)
    /// Text that may span lines: a quote, a note, a section, a todo. At most `limit` UTF-8 bytes;
    /// line breaks are LF (CRLF, a lone CR, U+2028 and U+2029 are turned into LF, so every output
    /// format and reader sees one kind of line break); tab is allowed; no other control character.
    case text(limit: Int)

    var isMultiline: Bool {
        if case .text = self { return true }
        return false
    }
}

/// Why a text was refused.
public enum TextProblem: Error, Sendable, Hashable {
    case empty
    /// Over the limit: `length` and `limit` are characters for a line, UTF-8 bytes for text.
    case tooLong(length: Int, limit: Int, bytes: Bool)
    /// A line break (LF, CR, VT, FF, NEL, U+2028, U+2029) in a one-line field.
    case lineBreak
    /// A control character (general category Cc) other than those the field allows.
    case controlCharacter(UInt32)
    /// A Unicode noncharacter (U+FFFE, U+FFFF, U+FDD0–U+FDEF, …): not for interchange, and not
    /// allowed in XML.
    case noncharacter(UInt32)
    /// A bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069) in a one-line
    /// field, where it could make a name read as another.
    case directionalControl(UInt32)

    /// One English sentence naming the field: "the quote holds the control character U+001B".
    package func describe(_ field: String) -> String {
        switch self {
        case .empty: return "the \(field) is empty"
        case .tooLong(let length, let limit, let bytes):
            let unit = bytes ? "bytes" : "characters"
            return "the \(field) is \(length) \(unit) long; at most \(limit) are allowed"
        case .lineBreak: return "the \(field) holds a line break; it must be one line"
        case .controlCharacter(let value): return "the \(field) holds the control character \(TextRule.codePoint(value))"
        case .noncharacter(let value): return "the \(field) holds the noncharacter \(TextRule.codePoint(value))"
        case .directionalControl(let value): return "the \(field) holds the directional formatting character \(TextRule.codePoint(value))"
        }
    }
}

/// The one rule for text fields.
package enum TextRule {
    /// Checks `value` as a `field` and returns it normalised: line endings as LF (text), white
    /// space trimmed at both ends.
    ///
    /// - Parameters:
    ///   - allowEmpty: whether an empty (or all white space) value is accepted, as "".
    package static func check(_ value: String, _ field: TextField, allowEmpty: Bool = false) -> Result<String, TextProblem> {
        var text = value
        // A byte-order mark that opened a file is not part of its first field.
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        if field.isMultiline { text = Markup.normalisingLineEndings(text) }
        text = trimmed(text)
        if text.isEmpty { return allowEmpty ? .success("") : .failure(.empty) }
        switch field {
        case .line(let limit):
            // Characters are never more than UTF-8 bytes: count them only when the bytes exceed.
            if text.utf8.count > limit, text.count > limit { return .failure(.tooLong(length: text.count, limit: limit, bytes: false)) }
        case .text(let limit):
            if text.utf8.count > limit { return .failure(.tooLong(length: text.utf8.count, limit: limit, bytes: true)) }
        }
        if let problem = firstProblem(in: text, multiline: field.isMultiline) { return .failure(problem) }
        return .success(text)
    }

    /// The first character that no field of this kind may hold.
    static func firstProblem(in text: String, multiline: Bool) -> TextProblem? {
        // Printable ASCII (and tab/LF in text) is by far the usual case: one pass over the bytes.
        if text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || (multiline && ($0 == 0x0A || $0 == 0x09)) }) { return nil }
        for scalar in text.unicodeScalars {
            let value = scalar.value
            switch value {
            case 0x09 where multiline, 0x0A where multiline:
                continue
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029:
                return multiline ? .controlCharacter(value) : .lineBreak
            case 0..<0x20, 0x7F...0x9F:
                return .controlCharacter(value)
            case 0x202A...0x202E where !multiline, 0x2066...0x2069 where !multiline:
                return .directionalControl(value)
            default:
                if isNoncharacter(value) { return .noncharacter(value) }
            }
        }
        return nil
    }

    /// U+FDD0–U+FDEF and the last two code points of every plane.
    package static func isNoncharacter(_ value: UInt32) -> Bool {
        (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE
    }

    /// The string without white space and line breaks at either end, as
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, without bridging when there is nothing
    /// to trim.
    package static func trimmed(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return text }
        if !mayBeTrimmed(first) && !mayBeTrimmed(last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether Foundation's white space sets may hold this scalar: Unicode's White_Space property,
    /// plus U+200B ZERO WIDTH SPACE, which Foundation on Linux also counts.
    static func mayBeTrimmed(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace || scalar.value == 0x200B }

    /// `U+001B`.
    package static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// The name of a text field, as errors report it: each core declares its fields as constants
/// (`FieldName.todoText`, `FieldName.quoteText` …) that an app can compare against. The raw value
/// is an English noun phrase, for logs and the CLI.
public struct FieldName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// Text refused by the text rule: which field, and what is wrong with it.
public struct InvalidText: Error, Sendable, Hashable, CustomStringConvertible {
    public let field: FieldName
    public let problem: TextProblem

    public init(field: FieldName, problem: TextProblem) {
        self.field = field
        self.problem = problem
    }

    public var description: String { problem.describe(field.rawValue) }
}

extension Result where Failure == TextProblem {
    /// The checked value, or the problem for `field` mapped to a core's error.
    package func get<E: Error>(_ field: FieldName, as error: (InvalidText) -> E) throws(E) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let problem): throw error(InvalidText(field: field, problem: problem))
        }
    }

    /// The checked value, or the problem described for `field` and mapped to a core's error.
    package func get<E: Error>(_ field: String, as error: (String) -> E) throws(E) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let problem): throw error(problem.describe(field))
        }
    }
}
