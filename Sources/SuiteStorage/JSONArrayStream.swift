import Foundation

/// Reads the elements of a JSON document's array one at a time, so that a file of any size is
/// read in little memory: the document is a top-level array, or an object whose member named one
/// of `arrayKeys` is the array (its other members, when small, are kept in ``members``).
///
/// Each element comes as its own bytes, for a JSON parser to decode; the structure around them
/// (brackets, commas, strings, nesting, what follows the document) is checked here. A problem is a
/// ``Problem`` saying where.
package struct JSONArrayStream {
    /// Why the document cannot be read.
    package enum Problem: Error, Equatable {
        /// Not JSON (the text says what was found where).
        case invalidJSON(String)
        /// An object without any of the array members looked for.
        case noArray
        /// Bytes that are not UTF-8.
        case notUTF8
        /// The file cannot be read.
        case unreadable(String)
    }

    /// The document's other top-level members (an object's), as JSON bytes: only those up to
    /// `memberLimit` bytes (64 KiB unless given) are kept.
    package private(set) var members: [String: Data] = [:]
    /// The member that held the array (nil for a top-level array).
    package private(set) var arrayKey: String?

    private let read: (Int) throws -> Data
    private var buffer = Data()
    private var position = 0
    private var finished = false
    private var consumed = 0
    private let arrayKeys: Set<String>
    private let memberLimit: Int
    private var state = State.start

    private enum State { case start, inArray, afterArray, done }

    /// The most a stream reads (an endless input is refused past it); memory does not grow with it.
    package static let limit = 1 << 36

    /// A stream over a file (or a FIFO, or a pipe), read in chunks of 1 MiB.
    package init(path: String, arrayKeys: Set<String>, memberLimit: Int = 64 * 1024) throws(Problem) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable("") }
        self.init(arrayKeys: arrayKeys, memberLimit: memberLimit) { count in
            do {
                return try handle.read(upToCount: count) ?? Data()
            } catch {
                throw Problem.unreadable("\(error.localizedDescription)")
            }
        }
    }

    /// A stream over bytes already in memory (handed out `chunkSize` at a time, as a file's are).
    package init(data: Data, arrayKeys: Set<String>, memberLimit: Int = 64 * 1024, chunkSize: Int = 1 << 20) {
        var offset = data.startIndex
        self.init(arrayKeys: arrayKeys, memberLimit: memberLimit) { count in
            let end = data.index(offset, offsetBy: min(count, chunkSize, data.endIndex - offset))
            defer { offset = end }
            return data[offset..<end]
        }
    }

    private init(arrayKeys: Set<String>, memberLimit: Int, read: @escaping (Int) throws -> Data) {
        self.arrayKeys = arrayKeys
        self.memberLimit = memberLimit
        self.read = read
    }

    /// The next element's bytes, or nil after the last (once the whole document was checked).
    package mutating func next() throws(Problem) -> Data? {
        switch state {
        case .done:
            return nil
        case .start:
            try skipByteOrderMark()
            try skipWhitespace()
            guard let first = try peek() else { throw .invalidJSON("the document is empty") }
            if first == UInt8(ascii: "[") {
                position += 1
                state = .inArray
                return try element(first: true)
            }
            guard first == UInt8(ascii: "{") else {
                throw Self.isUTF8Prefix(buffer[(buffer.startIndex + position)...]) ? .invalidJSON("expected an array or an object at the start") : .notUTF8
            }
            position += 1
            try readMembersUntilArray()
            return try element(first: true)
        case .inArray:
            return try element(first: false)
        case .afterArray:
            try finishObject()
            return nil
        }
    }

    // MARK: - Structure

    private mutating func element(first: Bool) throws(Problem) -> Data? {
        guard state == .inArray else { return try next() }
        try skipWhitespace()
        guard let byte = try peek() else { throw .invalidJSON("the document ends inside the array") }
        if byte == UInt8(ascii: "]") {
            position += 1
            state = arrayKey == nil ? .done : .afterArray
            if arrayKey == nil { try expectEnd() } else { try finishObject() }
            return nil
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw .invalidJSON("expected ',' or ']' after array element") }
            position += 1
            try skipWhitespace()
        }
        let value = try readValue(keepUpTo: .max)
        guard let value else { throw .invalidJSON("an element is too large") }
        guard String(validating: value, as: UTF8.self) != nil else { throw .notUTF8 }
        return value
    }

    private mutating func readMembersUntilArray() throws(Problem) {
        var first = true
        while true {
            try skipWhitespace()
            guard let byte = try peek() else { throw .invalidJSON("the document ends inside the object") }
            if byte == UInt8(ascii: "}") {
                position += 1
                try expectEnd()
                throw .noArray
            }
            if !first {
                guard byte == UInt8(ascii: ",") else { throw .invalidJSON("expected ',' or '}' after object member") }
                position += 1
                try skipWhitespace()
            }
            first = false
            let key = try readKey()
            try skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw .invalidJSON("expected ':' after the key '\(key.prefix(40))'") }
            position += 1
            try skipWhitespace()
            if arrayKeys.contains(key), arrayKey == nil, try peek() == UInt8(ascii: "[") {
                position += 1
                arrayKey = key
                state = .inArray
                return
            }
            if let value = try readValue(keepUpTo: memberLimit) { members[key] = value }
        }
    }

    private mutating func finishObject() throws(Problem) {
        state = .done
        while true {
            try skipWhitespace()
            guard let byte = try peek() else { throw .invalidJSON("the document ends inside the object") }
            if byte == UInt8(ascii: "}") {
                position += 1
                try expectEnd()
                return
            }
            guard byte == UInt8(ascii: ",") else { throw .invalidJSON("expected ',' or '}' after object member") }
            position += 1
            try skipWhitespace()
            let key = try readKey()
            try skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw .invalidJSON("expected ':' after the key '\(key.prefix(40))'") }
            position += 1
            try skipWhitespace()
            if let value = try readValue(keepUpTo: memberLimit), members[key] == nil { members[key] = value }
        }
    }

    private mutating func expectEnd() throws(Problem) {
        try skipWhitespace()
        guard try peek() == nil else { throw .invalidJSON("more after the end of the document") }
    }

    private mutating func readKey() throws(Problem) -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw .invalidJSON("expected a key in quotes") }
        guard let raw = try readValue(keepUpTo: 64 * 1024) else { throw .invalidJSON("a key is too long") }
        guard let key = (try? JSONSerialization.jsonObject(with: raw, options: .fragmentsAllowed)) as? String else {
            throw String(validating: raw, as: UTF8.self) == nil ? .notUTF8 : .invalidJSON("a key is not a valid string")
        }
        return key
    }

    /// Reads one value (string, number, literal, object or array) and returns its bytes, or nil
    /// when it is longer than `keepUpTo` (it is read past all the same). Nesting and strings are
    /// followed; the value's own syntax is left to the parser that decodes it.
    private mutating func readValue(keepUpTo limit: Int) throws(Problem) -> Data? {
        var kept = Data()
        var tooLarge = false
        var depth = 0
        var inString = false
        var escaped = false
        var started = false
        while true {
            if position >= buffer.count {
                if !tooLarge { kept.append(buffer[buffer.startIndex + startOfPending..<buffer.endIndex]) }
                startOfPending = 0
                guard try refill(keeping: 0) else {
                    // The end of the input: only a bare literal or number may end here.
                    if started && depth == 0 && !inString { return tooLarge ? nil : kept }
                    throw .invalidJSON("the document ends inside a value")
                }
                continue
            }
            let byte = buffer[buffer.startIndex + position]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 {
                        position += 1
                        return finish(&kept, tooLarge: &tooLarge, limit: limit)
                    }
                } else if byte < 0x20 {
                    throw .invalidJSON("a control character inside a string")
                }
                position += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                started = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                started = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 {
                    guard started else { throw .invalidJSON("expected a value") }
                    return finish(&kept, tooLarge: &tooLarge, limit: limit)
                }
                depth -= 1
                if depth == 0 {
                    position += 1
                    return finish(&kept, tooLarge: &tooLarge, limit: limit)
                }
            case UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: ":"):
                if depth == 0 {
                    guard started else { throw .invalidJSON("expected a value") }
                    return finish(&kept, tooLarge: &tooLarge, limit: limit)
                }
            default:
                started = true
            }
            position += 1
            if !tooLarge && position - startOfPending + kept.count > limit { tooLarge = true }
        }
    }

    /// Where the value being read starts in the buffer (0 after a refill).
    private var startOfPending = 0

    private mutating func finish(_ kept: inout Data, tooLarge: inout Bool, limit: Int) -> Data? {
        defer { startOfPending = position }
        guard !tooLarge else { return nil }
        kept.append(buffer[(buffer.startIndex + startOfPending)..<(buffer.startIndex + position)])
        return kept.count > limit ? nil : kept
    }

    /// Whether bytes are UTF-8, allowing a character cut at their end.
    static func isUTF8Prefix(_ bytes: Data) -> Bool {
        if String(validating: bytes, as: UTF8.self) != nil { return true }
        // Only a multi-byte character begun in the last three bytes and not finished may be cut.
        let tail = Array(bytes.suffix(3))
        guard let lead = tail.lastIndex(where: { $0 & 0xC0 != 0x80 }) else { return false }
        let byte = tail[lead]
        let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 ? 2 : 1
        let present = tail.count - lead
        guard needed > 1, present < needed else { return false }
        return String(validating: bytes.dropLast(present), as: UTF8.self) != nil
    }

    private mutating func skipWhitespace() throws(Problem) {
        while true {
            if position >= buffer.count {
                guard try refill(keeping: 0) else { return }
                continue
            }
            let byte = buffer[buffer.startIndex + position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else {
                startOfPending = position
                return
            }
            position += 1
        }
    }

    private mutating func skipByteOrderMark() throws(Problem) {
        guard try peek() == 0xEF else { return }
        for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
            guard try peek() == expected else { throw .notUTF8 }
            position += 1
        }
        startOfPending = position
    }

    private mutating func peek() throws(Problem) -> UInt8? {
        while position >= buffer.count {
            guard try refill(keeping: 0) else { return nil }
        }
        return buffer[buffer.startIndex + position]
    }

    /// Reads the next chunk; false at the end of the input.
    private mutating func refill(keeping: Int) throws(Problem) -> Bool {
        guard !finished else { return false }
        let chunk: Data
        do {
            chunk = try read(1 << 20)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw .unreadable("\(error)")
        }
        consumed += buffer.count
        guard consumed <= Self.limit else { throw .unreadable("larger than \(Self.limit >> 30) GiB") }
        buffer = Data(chunk)
        position = 0
        startOfPending = 0
        if chunk.isEmpty {
            finished = true
            return false
        }
        return true
    }
}
