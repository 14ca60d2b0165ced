import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// Copies of store files made with SQLite's online backup API: consistent while other processes
/// keep writing, and written into a live store so that its open connections see the new content.
package enum StoreBackup {
    /// Writes a consistent copy of the database at `source` to `destination`, which must not
    /// exist: a new file (mode 0600) filled in one backup step (one read transaction, so the copy
    /// is the database as of one moment while writers go on), checked with `integrity_check`,
    /// flushed to disk.
    ///
    /// - Throws: ``StoreFailure`` naming the file at fault.
    package static func copy(from source: String, to destination: String, busyTimeout: TimeInterval = 10) throws(StoreFailure) {
        guard StoreFile.size(of: source) != nil else { throw .unavailable(path: source, reason: "there is no such file") }
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .unavailable(path: destination, reason: "cannot create it: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        do {
            var readConfiguration = Configuration()
            readConfiguration.readonly = true
            readConfiguration.busyMode = .timeout(busyTimeout)
            let reader = try DatabaseQueue(path: source, configuration: readConfiguration)
            var writeConfiguration = Configuration()
            writeConfiguration.busyMode = .timeout(busyTimeout)
            let writer = try DatabaseQueue(path: destination, configuration: writeConfiguration)
            do {
                try reader.backup(to: writer)
            } catch let error as DatabaseError {
                throw StoreFailure.classify(error, path: source)
            }
            try check(writer, path: destination)
            try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try reader.close()
            try writer.close()
            try sync(destination)
        } catch {
            remove(destination)
            if let failure = error as? StoreFailure { throw failure }
            if let error = error as? DatabaseError { throw StoreFailure.classify(error, path: destination) }
            throw StoreFailure.unavailable(path: destination, reason: "\(error)")
        }
    }

    /// Replaces the whole content of the database at `store` by that of `source`, through
    /// SQLite's backup API into the live file (in one transaction of the store: other
    /// connections see the old content or the new, and keep working), under the store's lock.
    ///
    /// - Throws: ``StoreFailure`` naming the file at fault; the store is unchanged then.
    package static func replace(_ store: String, with source: String, busyTimeout: TimeInterval = 10) throws(StoreFailure) {
        let lock = try FileLock(path: store + ".lock", timeout: busyTimeout)
        defer { withExtendedLifetime(lock) {} }
        do {
            var readConfiguration = Configuration()
            readConfiguration.readonly = true
            let reader = try DatabaseQueue(path: source, configuration: readConfiguration)
            var writeConfiguration = Configuration()
            writeConfiguration.busyMode = .timeout(busyTimeout)
            writeConfiguration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            let writer = try DatabaseQueue(path: store, configuration: writeConfiguration)
            try reader.backup(to: writer)
            try check(writer, path: store)
            try reader.close()
            try writer.close()
        } catch let failure as StoreFailure {
            throw failure
        } catch let error as DatabaseError {
            throw StoreFailure.classify(error, path: store)
        } catch {
            throw StoreFailure.unavailable(path: store, reason: "\(error)")
        }
    }

    /// The first column of every row `sql` returns from the database at `path`, read through a
    /// read-only connection (opened `immutable` when the file has no log: nothing is created
    /// beside it), such as a backup's copy.
    package static func strings(path: String, sql: String, busyTimeout: TimeInterval = 10) throws(StoreFailure) -> [String] {
        let hasLog = (StoreFile.size(of: path + "-wal") ?? 0) > 0
        let connection = try ReadOnlyConnection(path: path, immutable: !hasLog, busyTimeout: busyTimeout)
        return try connection.strings(sql)
    }

    /// Whether two database files hold the same pages (their 100-byte headers aside, which count
    /// changes and journal modes).
    package static func samePages(_ first: String, _ second: String) -> Bool {
        guard let a = FileHandle(forReadingAtPath: first), let b = FileHandle(forReadingAtPath: second) else { return false }
        defer { try? a.close(); try? b.close() }
        guard StoreFile.size(of: first) == StoreFile.size(of: second) else { return false }
        try? a.seek(toOffset: 100)
        try? b.seek(toOffset: 100)
        while true {
            let left = (try? a.read(upToCount: 1 << 20)) ?? Data()
            let right = (try? b.read(upToCount: 1 << 20)) ?? Data()
            guard left == right else { return false }
            if left.isEmpty { return true }
        }
    }

    /// When the database at `path` last changed on disk (its file or its write-ahead log), or nil
    /// when there is no such file.
    package static func lastModified(_ path: String) -> Date? {
        [path, path + "-wal"].compactMap { file -> Date? in
            var info = stat()
            guard stat(file, &info) == 0 else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        }.max()
    }

    /// Removes a database file and its companions (log, shared memory, lock).
    package static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal", ".lock"] { unlink(path + suffix) }
    }

    /// Flushes a file and its folder to disk.
    package static func sync(_ path: String) throws(StoreFailure) {
        for target in [path, (path as NSString).deletingLastPathComponent] {
            let descriptor = open(target, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .unavailable(path: target, reason: "cannot open it: \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 || errno == EINVAL else { throw .unavailable(path: target, reason: "cannot flush it: \(String(cString: strerror(errno)))") }
        }
    }

    private static func check(_ writer: DatabaseQueue, path: String) throws {
        let result = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        guard result == ["ok"] else { throw StoreFailure.corrupt(path: path, reason: "integrity check: \(result.prefix(3).joined(separator: "; "))") }
    }
}
