import Foundation
import SuiteStorage
#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
#endif

/// Reads an input file named on the command line as a stream: a regular file, a FIFO, a pipe
/// (`/dev/stdin`, `/dev/fd/N`, a shell's `<(…)`) or a terminal are all read to their end.
enum InputFile {
    /// Whether `path` is a regular file that can be opened (then it can be read more than once,
    /// in pieces); a FIFO or a pipe is not.
    ///
    /// - Throws: as ``read(_:limit:)`` for a path that does not exist, cannot be opened or is a folder.
    static func isRegularFile(_ path: String) throws -> Bool {
        func missing(_ code: Int32) -> CLIError {
            if code == ENOENT || code == ENOTDIR { return CLIError.missingFile(path) }
            return CLIError.missingFile(path + " (cannot be read: \(String(cString: strerror(code))))")
        }
        // Looked at without opening it: opening a FIFO, even for a moment, lets its writer write
        // and go, and what it wrote is lost when that moment's reader closes.
        var info = stat()
        guard stat(path, &info) == 0 else { throw missing(errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw CLIError.badInput("\(path) is a folder, not a file") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return false }
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw missing(errno) }
        close(fd)
        return true
    }

    /// The first `count` bytes of `path` (fewer when it is shorter), to tell its format.
    ///
    /// - Throws: as ``read(_:limit:)``.
    static func head(_ path: String, count: Int) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError.missingFile(path + " (cannot be read)") }
        defer { try? handle.close() }
        do {
            return try handle.read(upToCount: count) ?? Data()
        } catch {
            throw CLIError.io("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// All the bytes of `path`.
    ///
    /// - Throws: ``CLIError/missingFile(_:)`` when it does not exist or cannot be opened,
    ///   ``CLIError/badInput(_:)`` for a folder, ``CLIError/io(_:)`` when reading fails.
    static func read(_ path: String, limit: Int = FileContents.importLimit) throws -> Data {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw CLIError.missingFile(path) }
            throw CLIError.missingFile(path + " (cannot be read: \(String(cString: strerror(code))))")
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CLIError.badInput("\(path) is a folder, not a file")
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = systemRead(fd, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError.io("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            // An endless input (/dev/zero, a pipe that never ends) is refused, not read until
            // memory runs out.
            if data.count > limit { throw CLIError.badInput("\(path) is larger than \(limit >> 20) MiB; nothing was read in") }
        }
    }
}

/// Writes a command's output file (`-o FILE`) without ever replacing something that is not a
/// regular file:
///
/// - a regular file, or a path where nothing is: replaced atomically (``AtomicFile``), keeping
///   an existing file's mode;
/// - a symbolic link: followed; the content goes to what it finally points to, by these same
///   rules, so the link stays a link (a link to nothing is refused);
/// - a character device (`/dev/null`, a terminal) or a FIFO: written into directly, as a shell
///   redirection would, without creating, truncating or replacing it;
/// - an open descriptor's path (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`, or a link to
///   one): written into (appended to a regular file), since the file behind it is what the
///   caller opened;
/// - anything else (a folder, a socket, a block device): refused.
///
/// `-` means standard output.
enum OutputFile {
    /// Where the bytes went.
    enum Destination: Equatable {
        case standardOutput
        case regularFile
        case stream
    }

    /// Paths that name an open descriptor rather than a file.
    static func namesADescriptor(_ path: String) -> Bool {
        ["/dev/stdout", "/dev/stderr", "/dev/stdin"].contains(path) || path.hasPrefix("/dev/fd/")
            || (path.hasPrefix("/proc/") && path.contains("/fd/"))
    }

    /// Whether `path`, or a link on the way from it to its file, names an open descriptor (a
    /// link to `/proc/self/fd/1`, say).
    static func goesThroughADescriptor(_ path: String) -> Bool {
        var current = path
        for _ in 0..<40 {
            if namesADescriptor(current) { return true }
            var buffer = [CChar](repeating: 0, count: 4_097)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return false }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : (current as NSString).deletingLastPathComponent + "/" + target
        }
        return false
    }

    /// Whether a regular file is a store or part of one, which `-o` must never replace: an SQLite
    /// database or write-ahead log (by its first bytes), or a store's lock or shared-memory file
    /// (by its name).
    static func isStoreFile(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        if name.hasSuffix(".sqlite.lock") || name.hasSuffix(".sqlite-shm") || name.hasSuffix(".sqlite-wal") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        let walMagic: [[UInt8]] = [[0x37, 0x7F, 0x06, 0x82], [0x37, 0x7F, 0x06, 0x83]]
        return head.starts(with: Data("SQLite format 3\u{0}".utf8)) || walMagic.contains { head.starts(with: $0) }
    }

    @discardableResult
    static func write(_ data: Data, to path: String) throws -> Destination {
        try stream(to: path) { emit in try emit(data) }
    }

    /// As ``write(_:to:)``, with the bytes made piece by piece by `produce` (which may emit small
    /// pieces: they are gathered into large writes), so that a large document is never whole in
    /// memory. A regular file is still replaced only once it is complete; a producer that throws
    /// leaves it untouched.
    @discardableResult
    static func stream(to path: String, _ produce: Producer) throws -> Destination {
        if path == "-" {
            try Chunks.gather(produce) { Terminal.write($0) }
            return .standardOutput
        }
        var info = stat()
        var link = stat()
        let isLink = lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
        if isLink && stat(path, &info) != 0 {
            throw CLIError.io("cannot write \(path): it is a symbolic link to nothing (\(String(cString: strerror(errno))))")
        }
        guard isLink || stat(path, &info) == 0 else {
            try AtomicFile.stream(to: path, produce)
            return .regularFile
        }
        switch info.st_mode & S_IFMT {
        case S_IFCHR, S_IFIFO:
            try writeInto(path: path, append: false, produce)
            return .stream
        case S_IFREG where isLink && goesThroughADescriptor(path):
            try writeInto(path: path, append: true, produce)
            return .stream
        case S_IFREG:
            var target = path
            if isLink {
                guard let resolved = realpath(path, nil) else {
                    throw CLIError.io("cannot write \(path): cannot follow the link (\(String(cString: strerror(errno))))")
                }
                target = String(cString: resolved)
                free(resolved)
            }
            if isStoreFile(target) {
                throw CLIError.io("refusing to write \(path): it is a store (or part of one); nothing was changed")
            }
            try AtomicFile.stream(to: target, produce)
            return .regularFile
        case S_IFDIR:
            throw CLIError.io("cannot write \(path): it is a folder")
        default:
            throw CLIError.io("cannot write \(path): it is not a regular file, a character device or a FIFO")
        }
    }

    /// Writes into an existing device, FIFO or descriptor's file: no O_CREAT, no O_TRUNC,
    /// nothing renamed.
    private static func writeInto(path: String, append: Bool, _ produce: Producer) throws {
        let shown = path
        var fd: Int32
        repeat { fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (append ? O_APPEND : 0)) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw CLIError.io("cannot write \(shown): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try Chunks.gather(produce) { chunk in
            if let failure = writeAll(chunk, to: fd) { throw CLIError.io("cannot write \(shown): \(failure)") }
        }
    }
}

/// Bytes made piece by piece: the producer calls `emit` with each piece, in order.
typealias Producer = (_ emit: (Data) throws -> Void) throws -> Void

/// Gathers a producer's small pieces into writes of about 256 KiB.
enum Chunks {
    static let size = 1 << 18

    static func gather(_ produce: Producer, into write: (Data) throws -> Void) throws {
        try withoutActuallyEscaping(write) { write in
            var buffer = Data()
            buffer.reserveCapacity(size + 4096)
            try produce { piece in
                buffer.append(piece)
                if buffer.count >= size {
                    try write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            if !buffer.isEmpty { try write(buffer) }
        }
    }
}
