import Foundation

/// UUIDs as stores keep them (36 characters, hex digits and four dashes), read without
/// `UUID(uuidString:)`, which on Linux goes through `sscanf` and was a tenth of a long
/// listing's time.
package enum UUIDText {
    /// The UUID `text` spells in the 8-4-4-4-12 form (either case); nil for anything else.
    package static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8(parse)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36 else { return nil }
        var value = [UInt8](repeating: 0, count: 16)
        var out = 0
        var index = 0
        while index < 36 {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard bytes[index] == UInt8(ascii: "-") else { return nil }
                index += 1
                continue
            }
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            value[out] = high << 4 | low
            out += 1
            index += 2
        }
        return UUID(uuid: (value[0], value[1], value[2], value[3], value[4], value[5], value[6], value[7],
                           value[8], value[9], value[10], value[11], value[12], value[13], value[14], value[15]))
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
