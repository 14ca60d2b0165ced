import Foundation

/// Reading a whole input file by path, whatever kind it is.
package enum FileContents {
    /// The most an import reads from one file or stream: past it, the input is refused rather
    /// than read until memory runs out (`/dev/zero`, an endless pipe).
    package static let importLimit = 1 << 30

    /// What reading a whole input gave.
    package enum Outcome {
        case data(Data)
        /// More than the limit: nothing more was read.
        case tooLarge(limit: Int)
        case unreadable
    }

    /// All the bytes of `path`, read to its end, at most `limit`: a regular file, a FIFO or a
    /// pipe (`/dev/stdin`, `/dev/fd/N`, a shell's `<(…)`), which `FileManager.contents(atPath:)`
    /// does not read.
    package static func read(path: String, limit: Int = importLimit) -> Outcome {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .unreadable }
        defer { try? handle.close() }
        return read(handle, limit: limit)
    }

    /// All the bytes from `handle` (standard input, say), at most `limit`.
    package static func read(_ handle: FileHandle, limit: Int = importLimit) -> Outcome {
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                data.append(chunk)
                if data.count > limit { return .tooLarge(limit: limit) }
            }
        } catch {
            return .unreadable
        }
        return .data(data)
    }
}
