import Foundation
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one routine by which every opening of a store file is checked before a connection is
/// opened: ``Store/open(at:migrator:configuration:readOnly:)`` (GRDB's connections) and
/// ``DirectConnection/openCurrent(path:configuration:schemaVersion:keptUntilExit:)`` (the quick
/// path of short commands) both call it, so a check added here applies to both. In order: the
/// SQLite features the store needs, the store lock (held until this value is released), a path
/// that is a folder or not a regular file, the header (damaged, truncated and foreign files), and
/// whether the file can be written. Then whether the file is already current: this store's kind,
/// in WAL mode, at `schemaVersion` as of its last checkpoint.
package struct StoreFileCheck {
    package enum State: Equatable {
        /// No file yet: a full open creates it.
        case missing
        /// This store's kind, in WAL mode and at the schema version (as of the last checkpoint:
        /// a connection reads `user_version` again through the log).
        case current
        /// A file that needs the full open's inspection (another kind, not WAL, another version).
        case needsInspection(isWAL: Bool)
    }

    package let state: State
    /// The store lock, held while the opening runs.
    private let lock: FileLock

    /// The connection settings every store connection gets, whoever opens it: foreign keys,
    /// durable commits for a connection that writes, and statement journals in memory.
    package static func connectionPragmas(readOnly: Bool) -> String {
        "PRAGMA foreign_keys = ON; " + (readOnly ? "" : "PRAGMA synchronous = FULL; ") + "PRAGMA temp_store = MEMORY"
    }

    /// Checks the file at `path`.
    ///
    /// - Parameter creatingFolder: make the store folder when it is missing (mode 0700), for an
    ///   opening that creates the store; without it nothing is written but the lock file.
    /// - Throws: ``StoreFailure`` for what no opening could use: a missing SQLite feature, a busy
    ///   lock, a folder or special file at the path, a damaged or read-only file.
    package init(path: String, configuration: StoreConfiguration, schemaVersion: Int32, creatingFolder: Bool) throws(StoreFailure) {
        if creatingFolder { try FileSystem.ensureFolder((path as NSString).deletingLastPathComponent) }
        if let missing = configuration.requiredFeatures.first(where: { sqlite3_compileoption_used($0.compileOption) == 0 }) {
            throw .missingFeature(path: path, feature: missing.rawValue)
        }
        lock = try FileLock(path: path + ".lock", timeout: configuration.busyTimeout)
        if StoreFile.isDirectory(path) {
            throw .unavailable(path: path, reason: "it is a folder, not a store file")
        }
        // A FIFO, device or socket there would block or mislead SQLite: only a regular file is a store.
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            throw .unavailable(path: path, reason: "it is not a regular file")
        }
        guard StoreFile.size(of: path) != nil else {
            state = .missing
            return
        }
        let header = try StoreFile.checkHeader(path: path)
        try StoreFile.checkWritable(path: path)
        state = header.applicationID == configuration.applicationID && header.isWAL && header.userVersion == schemaVersion
            ? .current : .needsInspection(isWAL: header.isWAL)
    }

    /// Keeps the lock until the caller's opening is done.
    package func holdLock() { withExtendedLifetime(lock) {} }
}
