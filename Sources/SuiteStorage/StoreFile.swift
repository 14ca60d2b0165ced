import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks of a store file made with plain file reads, before SQLite ever opens it, so that a file
/// that is not a healthy database is refused without SQLite writing to it.
enum StoreFile {
    /// The first 16 bytes of every SQLite 3 database.
    static let magic: [UInt8] = Array("SQLite format 3\u{0}".utf8)

    /// Size of a file, or nil when it does not exist.
    static func size(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// What the first 100 bytes of a database file say, as of its last checkpoint (a write-ahead
    /// log may hold newer values).
    struct Header {
        /// `PRAGMA application_id`.
        var applicationID: Int32
        /// `PRAGMA user_version`.
        var userVersion: Int32
        /// Whether the file is in WAL mode (read and write versions 2).
        var isWAL: Bool
    }

    /// Verifies the SQLite header of an existing file: the magic string, a valid page size, and
    /// (when no write-ahead log holds newer pages) that the file is as long as its header says.
    @discardableResult
    static func checkHeader(path: String) throws(StoreFailure) -> Header {
        // A checkpoint running in another process can make the header and size disagree for a
        // moment; look again before calling a file truncated.
        var attempt = 0
        while true {
            do {
                return try checkHeaderOnce(path: path)
            } catch {
                attempt += 1
                if attempt >= 3 || !error.isTruncation { throw error }
                usleep(50_000)
            }
        }
    }

    private static func checkHeaderOnce(path: String) throws(StoreFailure) -> Header {
        let walBefore = size(of: path + "-wal") ?? 0
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .unavailable(path: path, reason: "cannot read the file: \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let header: Data
        do {
            header = try handle.read(upToCount: 100) ?? Data()
        } catch {
            throw .unavailable(path: path, reason: "cannot read the file: \(error.localizedDescription)")
        }
        let fileSize = size(of: path) ?? 0
        if fileSize == 0 {
            throw .corrupt(path: path, reason: "the file is empty (0 bytes)")
        }
        let bytes = [UInt8](header)
        guard bytes.count == 100, Array(bytes[0..<16]) == magic else {
            throw .corrupt(path: path, reason: "not an SQLite database")
        }
        let rawPageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else {
            throw .corrupt(path: path, reason: "invalid page size \(rawPageSize) in the header")
        }
        func be32(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        guard fileSize >= pageSize else {
            throw .corrupt(path: path, reason: "truncated: \(fileSize) bytes, shorter than one page")
        }
        let walAfter = size(of: path + "-wal") ?? 0
        let headerPages = Int(be32(28))
        let headerSizeIsValid = headerPages > 0 && be32(24) == be32(92)
        if walBefore == 0, walAfter == 0, headerSizeIsValid, headerPages * pageSize > fileSize {
            throw .corrupt(path: path, reason: "truncated: \(fileSize) bytes where the header says \(headerPages * pageSize)")
        }
        return Header(applicationID: Int32(bitPattern: be32(68)), userVersion: Int32(bitPattern: be32(60)),
                      isWAL: bytes[18] == 2 && bytes[19] == 2)
    }

    /// Refuses a file whose owner may not write it (even when running as root), or that this
    /// process cannot read and write.
    static func checkWritable(path: String) throws(StoreFailure) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .unavailable(path: path, reason: String(cString: strerror(errno)))
        }
        if info.st_mode & S_IWUSR == 0 || access(path, R_OK | W_OK) != 0 {
            throw .readOnly(path: path, reason: "the file is read-only")
        }
    }
}

extension StoreFailure {
    var isTruncation: Bool {
        if case .corrupt(_, let reason) = self { return reason.hasPrefix("truncated") }
        return false
    }
}

/// Small POSIX helpers used when creating a store.
enum FileSystem {
    /// Creates `path` (and missing parents) with mode 0700 when it does not exist; refuses a path
    /// that exists but is not a folder.
    static func ensureFolder(_ path: String) throws(StoreFailure) {
        if StoreFile.isDirectory(path) { return }
        if StoreFile.size(of: path) != nil {
            throw .unavailable(path: path, reason: "the store folder is a file, not a folder")
        }
        // mkdir for each missing folder on the way, so a failure says why in the system's words
        // (Foundation's error here is a bare "NSCocoaErrorDomain error 512").
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .unavailable(path: path, reason: "cannot create the store folder: \(String(cString: strerror(errno)))")
            }
        }
        if !StoreFile.isDirectory(path) {
            throw .unavailable(path: path, reason: "cannot create the store folder: a file is in the way")
        }
    }

    /// Creates an empty file with `mode`, failing if it exists. Returns the reason on failure.
    static func createEmpty(_ path: String, mode: mode_t) -> String? {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        fchmod(fd, mode)
        close(fd)
        return nil
    }

    /// fsyncs a file or folder so that a rename or a creation inside it survives a power cut.
    static func sync(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
           underlying.domain == NSPOSIXErrorDomain,
           let code = Int32(exactly: underlying.code) {
            return String(cString: strerror(code))
        }
        if nsError.domain == NSPOSIXErrorDomain, let code = Int32(exactly: nsError.code) {
            return String(cString: strerror(code))
        }
        return nsError.localizedDescription
    }
}
