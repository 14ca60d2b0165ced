import Foundation

/// Text shown to a person: control characters made visible, so that no stored or echoed text can
/// move the cursor, retitle the terminal, ring the bell, hide what follows or forge a line.
enum VisibleText {
    /// `text` with every control character (general category Cc) but line feed and tab written
    /// as `\u{1B}`; with `oneLine`, line feeds and tabs too (`\n`, `\t`), so the result is one line.
    static func visible(_ text: String, oneLine: Bool = false) -> String {
        guard needsEscaping(text, oneLine: oneLine) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where !oneLine, 0x09 where !oneLine:
                result.unicodeScalars.append(scalar)
            case 0x0A:
                result += "\\n"
            case 0x09:
                result += "\\t"
            case 0x0D:
                result += "\\r"
            case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Markers for emphasis inside text to print: noncharacters, which the text rule keeps out of
    /// every store, so no stored text can hold them (U+FDD0 and U+FDD1).
    static let emphasisOpen = String(decoding: [0xEF, 0xB7, 0x90], as: UTF8.self)
    static let emphasisClose = String(decoding: [0xEF, 0xB7, 0x91], as: UTF8.self)

    /// Prints `text` made visible, with the emphasis markers turned into bold on and off: the only
    /// escape sequences `suite` writes are its own.
    static func printEmphasised(_ text: String) {
        let shown = visible(text).replacingOccurrences(of: emphasisOpen, with: "\u{1B}[1m").replacingOccurrences(of: emphasisClose, with: "\u{1B}[0m")
        CLIContext.current.standardOutput.write(shown + "\n")
    }

    /// Whether `text` holds anything ``visible(_:oneLine:)`` changes: C0 controls and DEL as
    /// bytes, C1 controls as their two-byte UTF-8 form (C2 80–C2 9F), bidirectional embeddings,
    /// overrides and isolates (E2 80 AA–AE, E2 81 A6–A9), which could make a line read as another.
    static func needsEscaping(_ text: String, oneLine: Bool) -> Bool {
        var text = text
        return text.withUTF8 { needsEscaping($0, oneLine: oneLine) }
    }

    /// ``needsEscaping(_:oneLine:)`` for UTF-8 bytes.
    static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>, oneLine: Bool) -> Bool {
        var previous: UInt8 = 0, beforePrevious: UInt8 = 0
        for byte in bytes {
            defer { beforePrevious = previous; previous = byte }
            if byte < 0x20 {
                if !oneLine && (byte == 0x0A || byte == 0x09) { continue }
                return true
            }
            if byte == 0x7F || (previous == 0xC2 && byte <= 0x9F) { return true }
            if beforePrevious == 0xE2, previous == 0x80, (0xAA...0xAE).contains(byte) { return true }
            if beforePrevious == 0xE2, previous == 0x81, (0xA6...0xA9).contains(byte) { return true }
        }
        return false
    }
}

/// Every line `suite` prints for people goes through here, to the run's stdout (``CLIContext``),
/// as the standard library's `print` would write it, with control characters made visible (see
/// ``VisibleText``), then colour markers turned into colour or removed (see ``Colour``).
/// Documents (exports, JSON) are written as bytes elsewhere and keep their own escaping.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.count == 1 && items[0] is String ? items[0] as! String : items.map { "\($0)" }.joined(separator: separator)
    CLIContext.current.standardOutput.write(Colour.render(VisibleText.visible(text)) + terminator)
}

/// Lines printed as ``print(_:separator:terminator:)`` prints them, collected and written in
/// pieces of 64 KiB: for long listings, where a write per line took longer than the lines.
/// Call ``flush()`` before anything else is printed.
struct LinePrinter {
    private var buffer = ""

    init() { buffer.reserveCapacity(1 << 16 + 4096) }

    mutating func print(_ line: String) {
        print { $0 += line }
    }

    /// Prints the line `write` appends to the string it is given (without a line break): built in
    /// place, with no string of its own.
    mutating func print(_ write: (inout String) -> Void) {
        let start = buffer.utf8.count
        write(&buffer)
        // Most lines need neither escaping nor colour (whose markers all start with an EF byte).
        let plain = buffer.withUTF8 { bytes in
            let line = UnsafeBufferPointer(rebasing: bytes[start...])
            return !VisibleText.needsEscaping(line, oneLine: false) && !line.contains(0xEF)
        }
        if !plain {
            let lineStart = buffer.utf8.index(buffer.startIndex, offsetBy: start)
            let line = String(buffer[lineStart...])
            buffer.removeSubrange(lineStart...)
            buffer += Colour.render(VisibleText.visible(line))
        }
        buffer += "\n"
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        CLIContext.current.standardOutput.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
