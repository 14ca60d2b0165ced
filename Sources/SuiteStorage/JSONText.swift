import Foundation

/// JSON pieces written by hand, for documents written record by record (an export of a million
/// places is never one value in memory). RFC 8259: strings escaped, numbers that round-trip.
package enum JSONText {
    /// A JSON string: quotes, backslashes and control characters escaped (and U+2028/U+2029, so
    /// the text is also safe inside JavaScript).
    package static func string(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{2028}": result += "\\u2028"
            case "\u{2029}": result += "\\u2029"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// A JSON number that reads back as the same `Double` (`null` for a non-finite one).
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// An object from key and already-written value pairs, keys sorted, nil values left out.
    package static func object(_ members: [(String, String?)]) -> String {
        let kept = members.compactMap { key, value in value.map { (key, $0) } }.sorted { $0.0 < $1.0 }
        return "{" + kept.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// An array of strings.
    package static func array(_ values: [String]) -> String {
        "[" + values.map(string).joined(separator: ",") + "]"
    }
}
