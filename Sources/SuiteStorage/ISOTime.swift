import Foundation

/// ISO 8601 timestamps with milliseconds in UTC (`2026-11-21T05:46:38.007Z`), formatted from whole
/// milliseconds so that formatting and parsing back never drift (a floating-point date formatted
/// with fractions can turn .621 into .620).
package enum ISOTime {
    package static func string(_ date: Date) -> String {
        let millis = Millis(date).value
        // Floor division that cannot overflow (Millis keeps far inside Int64 anyway).
        let seconds = millis / 1000 - (millis % 1000 < 0 ? 1 : 0)
        let fraction = String(millis - seconds * 1000)
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle())
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    /// Reads an RFC 3339 time (`2026-11-21T05:46:38Z`, fractions and `+01:00` offsets too) of
    /// the years 0001–9999, strictly: an impossible date (February 30, hour 24) is nil, never
    /// rolled over into another day.
    package static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, bytes[range].allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
              let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
              (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else {
            return nil
        }
        // The zone: Z or ±hh:mm at the end, after optional fractions.
        var index = 19
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
        }
        var offset = 0
        let rest = bytes[index...]
        if rest.elementsEqual([UInt8(ascii: "Z")]) || rest.elementsEqual([UInt8(ascii: "z")]) {
            offset = 0
        } else if rest.count == 6, rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-"), bytes[index + 3] == UInt8(ascii: ":"),
                  let hours = digits((index + 1)..<(index + 3)), let minutes = digits((index + 4)..<(index + 6)), hours < 24, minutes < 60 {
            offset = (hours * 3600 + minutes * 60) * (rest.first == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard let parsed = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text)) else {
            return nil
        }
        // Foundation rolls February 30 over into March: the fields must read back as typed.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset) ?? TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: parsed)
        guard c.year == year, c.month == month, c.day == day, c.hour == hour, c.minute == minute else { return nil }
        return parsed
    }
}
