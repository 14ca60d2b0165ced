import Foundation

/// Reads a text file (or bytes in memory) line by line in chunks, so a line-based format of any
/// size is read in little memory. Lines end at `\n`; a `\r` before it is removed. Each line is
/// checked as UTF-8 on its own.
package struct LineStream {
    /// Why a line cannot be read.
    package enum Problem: Error, Equatable {
        /// The line's bytes are not UTF-8.
        case notUTF8(line: Int)
        /// A line longer than ``maximumLineBytes``.
        case lineTooLong(line: Int)
        /// The file cannot be read.
        case unreadable(String)

        /// The line it is about (nil when the file cannot be read) and what to say of it, for a
        /// format's own error.
        package var described: (line: Int?, reason: String) {
            switch self {
            case .notUTF8(let line): (line, "not valid UTF-8")
            case .lineTooLong(let line): (line, "a line longer than \(LineStream.maximumLineBytes >> 20) MiB")
            case .unreadable(let reason): (nil, "cannot be read: \(reason)")
            }
        }
    }

    /// The longest line read (64 MiB): past it the input is refused rather than held in memory.
    package static let maximumLineBytes = 64 << 20

    private let read: (Int) throws(Problem) -> Data
    private var buffer = Data()
    private var position = 0
    private var finished = false
    private var number = 0
    /// Where the search for the next line break goes on (the bytes before it were searched).
    private var scanned = 0
    private let chunkSize: Int

    /// A stream over a file (or a FIFO, or a pipe), read in chunks of 1 MiB.
    package init(path: String) throws(Problem) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable("cannot be opened") }
        self.init(chunkSize: 1 << 20) { count throws(Problem) in
            do {
                return try handle.read(upToCount: count) ?? Data()
            } catch {
                throw Problem.unreadable("\(error.localizedDescription)")
            }
        }
    }

    /// A stream over bytes already in memory, handed out `chunkSize` at a time as a file's are.
    package init(data: Data, chunkSize: Int = 1 << 20) {
        var offset = data.startIndex
        self.init(chunkSize: chunkSize) { count throws(Problem) in
            let end = data.index(offset, offsetBy: min(count, data.endIndex - offset))
            defer { offset = end }
            return data[offset..<end]
        }
    }

    private init(chunkSize: Int, read: @escaping (Int) throws(Problem) -> Data) {
        self.chunkSize = max(1, chunkSize)
        self.read = read
    }

    /// The next line and its number (from 1), or nil at the end. A last line without `\n` is a
    /// line; the empty text after a final `\n` is not.
    package mutating func next() throws(Problem) -> (text: String, number: Int)? {
        while true {
            // `buffer` always starts at index 0 (it is only appended to, or replaced by a copy).
            let start = position
            let from = max(start, scanned)
            let newline: Int? = buffer.withUnsafeBytes { raw -> Int? in
                guard from < raw.count, let base = raw.baseAddress,
                      let found = memchr(base + from, 0x0A, raw.count - from) else { return nil }
                return base.distance(to: UnsafeRawPointer(found))
            }
            if let newline {
                position = newline + 1
                scanned = position
                return try line(buffer[start..<newline])
            }
            // No line break up to the end: a long line is not searched again from its start.
            scanned = buffer.count
            if finished {
                guard start < buffer.count else { return nil }
                position = buffer.count
                return try line(buffer[start...])
            }
            if buffer.count - start > Self.maximumLineBytes { throw .lineTooLong(line: number + 1) }
            // Keep the unread part only, then read on.
            if start > 0 {
                buffer = Data(buffer[start...])
                position = 0
                scanned -= start
            }
            let chunk = try read(chunkSize)
            if chunk.isEmpty { finished = true } else { buffer.append(chunk) }
        }
    }

    private mutating func line(_ bytes: Data) throws(Problem) -> (text: String, number: Int) {
        number += 1
        var bytes = bytes
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8(line: number) }
        return (text, number)
    }
}
