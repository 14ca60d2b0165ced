import Foundation

/// A reader of the JSON that sync writes (compact, as `JSONEncoder` makes it), for what is read
/// once per operation: a change's payload, a field's value, a pull's answer. Foundation's
/// `JSONDecoder` costs tens of microseconds per operation, more than applying it; this reads the
/// common forms directly and gives up (nil) on anything else — whitespace, numbers with a
/// fraction or an exponent or more than 18 digits, `-0`, escaped surrogates, invalid UTF-8 —
/// so that its caller decodes that input with `JSONDecoder`, which then decides. Whatever it
/// reads, it reads as `JSONDecoder` would.
package struct PlainJSON {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// What `body` reads from the whole of `data`; nil when it gives up or leaves anything unread.
    package static func read<T>(_ data: Data, _ body: (inout PlainJSON) -> T?) -> T? {
        data.withUnsafeBytes { raw in
            var reader = PlainJSON(raw.bindMemory(to: UInt8.self))
            guard let value = body(&reader), reader.index == reader.bytes.count else { return nil }
            return value
        }
    }

    /// ``read(_:_:)`` of a text's UTF-8.
    package static func read<T>(_ text: String, _ body: (inout PlainJSON) -> T?) -> T? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = PlainJSON(bytes)
            guard let value = body(&reader), reader.index == reader.bytes.count else { return nil }
            return value
        }
    }

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Keeps `read` in `member` when it was read and `member` had nothing yet (a member named
    /// twice gives up): for the readers of an object's members.
    package static func once<T>(_ member: inout T?, _ read: T?) -> Bool {
        guard member == nil, let read else { return false }
        member = read
        return true
    }

    /// A member that may be null: `read` unless null comes (then .some(nil)).
    package mutating func nullable<T>(_ read: (inout PlainJSON) -> T?) -> T?? {
        null() ? .some(nil) : read(&self).map { .some($0) }
    }

    /// A field's value: null, an integer, a text or a list of those.
    package mutating func value() -> SyncValue? {
        switch next {
        case UInt8(ascii: "n"): return null() ? .null : nil
        case UInt8(ascii: "\""): return text().map(SyncValue.text)
        case UInt8(ascii: "["):
            var values: [SyncValue] = []
            guard array({ reader in
                guard let value = reader.value() else { return false }
                values.append(value)
                return true
            }) else { return nil }
            return .list(values)
        case .some: return integer().map(SyncValue.integer)
        case nil: return nil
        }
    }

    /// Reads `null`; false (reading nothing) when something else comes.
    package mutating func null() -> Bool {
        guard bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
              bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l") else { return false }
        index += 4
        return true
    }

    /// `true` or `false`.
    package mutating func boolean() -> Bool? {
        for (word, value) in [("true", true), ("false", false)] where bytes.count - index >= word.utf8.count {
            if zip(word.utf8, bytes[index...]).allSatisfy({ $0 == $1 }) {
                index += word.utf8.count
                return value
            }
        }
        return nil
    }

    /// A JSON string.
    package mutating func text() -> String? {
        guard next == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        var escaped = false
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            if bytes[end] < 0x20 { return nil }
            if bytes[end] == UInt8(ascii: "\\") {
                escaped = true
                end += 1   // the escaped character, a quote maybe
            }
            end += 1
        }
        guard end < bytes.count else { return nil }
        let content = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard let text = escaped ? Self.unescaped(content) : Self.string(content) else { return nil }
        index = end + 1
        return text
    }

    /// An integer of at most 18 digits (any `Int64` `JSONDecoder` reads from such digits).
    package mutating func integer() -> Int64? {
        let negative = next == UInt8(ascii: "-")
        var end = negative ? index + 1 : index
        let first = end
        var magnitude: Int64 = 0
        while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) {
            guard end - first < 18 else { return nil }   // 18 digits cannot overflow
            magnitude = magnitude * 10 + Int64(bytes[end] - UInt8(ascii: "0"))
            end += 1
        }
        let digits = end - first
        guard digits >= 1, bytes[first] != UInt8(ascii: "0") || (digits == 1 && !negative) else { return nil }
        if end < bytes.count, bytes[end] == UInt8(ascii: ".") || bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E") { return nil }
        index = end
        return negative ? -magnitude : magnitude
    }

    /// Reads an array, `element` reading each element; false when it gives up.
    package mutating func array(_ element: (inout PlainJSON) -> Bool) -> Bool {
        sequence(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), element)
    }

    /// Reads an object, `member` reading the value of each member named; false when it gives up.
    package mutating func object(_ member: (String, inout PlainJSON) -> Bool) -> Bool {
        sequence(open: UInt8(ascii: "{"), close: UInt8(ascii: "}")) { json in
            guard let name = json.text(), json.next == UInt8(ascii: ":") else { return false }
            json.index += 1
            return member(name, &json)
        }
    }

    /// `open`, items separated by commas, `close`: an array's or an object's frame.
    private mutating func sequence(open: UInt8, close: UInt8, _ item: (inout PlainJSON) -> Bool) -> Bool {
        guard next == open else { return false }
        index += 1
        if next == close {
            index += 1
            return true
        }
        while true {
            guard item(&self) else { return false }
            switch next {
            case close:
                index += 1
                return true
            case UInt8(ascii: ","):
                index += 1
            default:
                return false
            }
        }
    }

    /// The text of UTF-8 `bytes`; nil when they are not UTF-8.
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // ASCII, nearly always, is UTF-8 as it is: no need to validate it.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The text of a JSON string's content with escapes; nil for an escape that is not one of
    /// JSON's, or a `\u` escape of a surrogate.
    private static func unescaped(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var plain: [UInt8] = []
        plain.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            // The bytes up to the next escape as they are.
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\\") { index += 1 }
            plain.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            guard index < bytes.count else { break }
            index += 1
            guard index < bytes.count else { return nil }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): plain.append(escape)
            case UInt8(ascii: "b"): plain.append(0x08)
            case UInt8(ascii: "f"): plain.append(0x0C)
            case UInt8(ascii: "n"): plain.append(0x0A)
            case UInt8(ascii: "r"): plain.append(0x0D)
            case UInt8(ascii: "t"): plain.append(0x09)
            case UInt8(ascii: "u"):
                guard bytes.count - index >= 4 else { return nil }
                var code: UInt32 = 0
                for digit in bytes[index..<index + 4] {
                    guard let value = hexDigit(digit) else { return nil }
                    code = code << 4 | value
                }
                index += 4
                guard let scalar = Unicode.Scalar(code) else { return nil }   // a surrogate
                plain.append(contentsOf: String(scalar).utf8)
            default:
                return nil
            }
        }
        return plain.withUnsafeBufferPointer(string)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
