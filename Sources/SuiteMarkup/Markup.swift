import Foundation

/// Escaping user text into the markup formats Suite writes: one definition each, used by every
/// renderer (business-model HTML and Markdown, quote sharing, the SVG map) and by the sync
/// server's shared-list pages.
public enum Markup {
    /// Text for HTML or XML element content and attribute values: `& < > " '` as references, line
    /// breaks as LF, and the control characters other than tab and LF (which XML forbids or
    /// discourages) and U+FFFE, U+FFFF replaced by U+FFFD, so the document is always well-formed.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in normalisingLineEndings(text).unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result += "\u{FFFD}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// Text for a plain-text document (fortune-style text, printable text, CSV, todo.txt): line
    /// breaks as LF (``normalisingLineEndings(_:)``), every other control character but
    /// tab replaced by U+FFFD, so text that reached a store before the text rule (or from another
    /// program) cannot drive a terminal that shows the document.
    public static func plain(_ text: String) -> String {
        let text = normalisingLineEndings(text)
        guard text.unicodeScalars.contains(where: isForbiddenInPlainText) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isForbiddenInPlainText($0) ? "\u{FFFD}" : $0 }))
    }

    static func isForbiddenInPlainText(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: return false
        case 0..<0x20, 0x7F...0x9F: return true
        default: return false
        }
    }

    /// Characters escaped with a backslash wherever they stand in Markdown: they could start
    /// emphasis, code, links, images, raw HTML, entities, tables, strikethrough or headings.
    static let markdownEverywhere: Set<Unicode.Scalar> = ["\\", "`", "*", "_", "[", "]", "<", ">", "&", "~", "|", "#", "!"]

    /// One line of user text as literal Markdown inline text: CommonMark (and GitHub) readers show
    /// exactly these characters, and nothing in it can open a heading, a list, a fence, a block
    /// quote, a table, a link or HTML. Leading white space is written as character references (it
    /// would otherwise start an indented code block); line breaks become spaces.
    public static func markdownLine(_ line: String) -> String {
        var result = ""
        result.reserveCapacity(line.utf8.count + 8)
        var atStart = true
        var digitsAtStart = 0
        for scalar in line.unicodeScalars {
            if atStart && digitsAtStart == 0 {
                switch scalar {
                case " ": result += "&#32;"; continue
                case "\t": result += "&#9;"; continue
                case "=", "-", "+":
                    // Setext underlines, list bullets and thematic breaks.
                    result += "\\"
                    result.unicodeScalars.append(scalar)
                    atStart = false
                    continue
                default:
                    break
                }
            }
            if atStart, scalar.properties.numericType == .decimal, scalar.isASCII {
                digitsAtStart += 1
                result.unicodeScalars.append(scalar)
                continue
            }
            if atStart, digitsAtStart > 0, scalar == "." || scalar == ")" {
                // "1." and "1)" start ordered lists.
                result += "\\"
                result.unicodeScalars.append(scalar)
                atStart = false
                continue
            }
            atStart = false
            switch scalar {
            case "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}":
                result += " "
            case _ where markdownEverywhere.contains(scalar):
                result += "\\"
                result.unicodeScalars.append(scalar)
            case "\t":
                result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                result += "\u{FFFD}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Multi-line user text as literal Markdown: each line through ``markdownLine(_:)``, lines
    /// kept apart by hard line breaks (a trailing backslash), blank lines as paragraph breaks.
    ///
    /// - Parameter prefix: written before every line (`"> "` inside a block quote).
    public static func markdownText(_ text: String, prefix: String = "") -> [String] {
        let lines = normalisingLineEndings(text).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var output: [String] = []
        for (index, line) in lines.enumerated() {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                output.append(prefix.trimmingCharacters(in: .whitespaces))
                continue
            }
            let next = index + 1 < lines.count ? lines[index + 1] : ""
            let continues = !next.allSatisfy { $0 == " " || $0 == "\t" }
            output.append(prefix + markdownLine(line) + (continues ? "\\" : ""))
        }
        return output
    }

    /// CRLF, a lone CR, U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR become LF.
    public static func normalisingLineEndings(_ text: String) -> String {
        // CR is the byte 0D; U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0xE2 }) else { return text }
        var scalars = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0D:
                scalars.append("\n")
                afterCR = true
                continue
            case 0x0A where afterCR:
                break
            case 0x2028, 0x2029:
                scalars.append("\n")
            default:
                scalars.append(scalar)
            }
            afterCR = false
        }
        return String(scalars)
    }
}
