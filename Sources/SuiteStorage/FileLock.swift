import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a lock file that is never renamed or deleted, so that a process that
/// dies releases it and no stale lock can remain.
package final class FileLock {
    private let descriptor: Int32

    /// Takes the lock, waiting up to `timeout` seconds for another process to release it.
    ///
    /// - Throws: ``StoreFailure/unavailable(path:reason:)`` when the lock file cannot be opened
    ///   or is not a regular file (a symbolic link is never followed),
    ///   ``StoreFailure/busy(path:)`` when the wait times out.
    package init(path: String, timeout: TimeInterval) throws(StoreFailure) {
        // O_NOFOLLOW: a symbolic link planted at the lock path is refused, not followed (O_CREAT
        // would create or open its target). O_NONBLOCK: a FIFO there does not hang the open.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP {
                throw .unavailable(path: path, reason: "the lock file is a symbolic link; suite does not follow it (remove the link)")
            }
            throw .unavailable(path: path, reason: "cannot create the lock file: \(String(cString: strerror(code)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .unavailable(path: path, reason: "the lock file is not a regular file (remove it)")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(fd)
                throw .unavailable(path: path, reason: "cannot lock: \(String(cString: strerror(code)))")
            }
            if Date() >= deadline {
                close(fd)
                throw .busy(path: path)
            }
            usleep(5_000)
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
