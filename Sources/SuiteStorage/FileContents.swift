import Foundation

/// Reading a whole input file by path, whatever kind it is.
package enum FileContents {
    /// All the bytes of `path`, read to its end: a regular file, a FIFO or a pipe (`/dev/stdin`,
    /// `/dev/fd/N`, a shell's `<(…)`), which `FileManager.contents(atPath:)` does not read.
    /// Nil when it cannot be opened or read.
    package static func read(path: String) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            return nil
        }
    }
}
