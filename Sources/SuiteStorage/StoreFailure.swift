import Foundation
import GRDB

/// Why a store could not be opened or used. Every case names the file or folder it is about.
///
/// Each core maps this to its own public error type (see ``StoreFailureRepresentable``).
package enum StoreFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store or its folder cannot be created, read or written (permissions, a file where a
    /// folder should be, a full disk, an I/O error).
    case unavailable(path: String, reason: String)
    /// The file is not a readable SQLite database: empty, random bytes, truncated or damaged.
    case corrupt(path: String, reason: String)
    /// The file is a database, but not one of this store's kind.
    case foreign(path: String, reason: String)
    /// The file was written by a newer version of Suite whose migrations this one does not know.
    case newerSchema(path: String)
    /// Another process held the store (or its lock) past the busy timeout.
    case busy(path: String)
    /// The SQLite library lacks a feature this store needs.
    case missingFeature(path: String, feature: String)
    /// The disk (or the file-size limit) has no room for the write.
    case diskFull(path: String)
    /// The file or its folder may not be written (a store opened read-only included).
    case readOnly(path: String, reason: String)

    package var path: String {
        switch self {
        case .unavailable(let path, _), .corrupt(let path, _), .foreign(let path, _),
             .newerSchema(let path), .busy(let path), .missingFeature(let path, _), .diskFull(let path),
             .readOnly(let path, _):
            return path
        }
    }

    package var description: String {
        switch self {
        case .unavailable(let path, let reason):
            return StoreMessage.unavailable(path: path, reason: reason)
        case .corrupt(let path, let reason):
            return "the store at \(path) is damaged or not a database (\(reason)); it was left untouched"
        case .foreign(let path, let reason):
            return "the file at \(path) is not this store (\(reason)); it was left untouched"
        case .newerSchema(let path):
            return StoreMessage.newer(path: path)
        case .busy(let path):
            return StoreMessage.busy(path: path)
        case .missingFeature(let path, let feature):
            return "the SQLite library lacks \(feature), which the store at \(path) needs"
        case .diskFull(let path):
            return StoreMessage.unavailable(path: path, reason: "the disk is full")
        case .readOnly(let path, let reason):
            return StoreMessage.unavailable(path: path, reason: reason)
        }
    }

    /// Classifies an SQLite error raised while using the store at `path`.
    package static func classify(_ error: DatabaseError, path: String) -> StoreFailure {
        let message = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .busy(path: path)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return .corrupt(path: path, reason: message)
        case .SQLITE_FULL:
            return .diskFull(path: path)
        case .SQLITE_READONLY:
            return .readOnly(path: path, reason: "the file or its folder is read-only")
        case .SQLITE_PERM, .SQLITE_AUTH:
            return .unavailable(path: path, reason: "permission denied")
        case .SQLITE_CANTOPEN:
            return .unavailable(path: path, reason: "cannot open the file")
        case .SQLITE_IOERR:
            return .unavailable(path: path, reason: "I/O error: \(message)")
        default:
            return .unavailable(path: path, reason: message)
        }
    }
}

/// A core's public error type conforms to this so that ``Store`` can throw it directly: each
/// core's error has one case holding the shared ``StoreError``.
package protocol StoreFailureRepresentable: Error {
    init(storeFailure: StoreFailure)
}

/// The wording of the store errors every core shares, so that all four say it the same way.
package enum StoreMessage {
    package static func corrupt(path: String, reason: String, kind: String) -> String {
        "the store at \(path) is damaged or not a \(kind) store (\(reason)); it was left untouched"
    }

    package static func newer(path: String) -> String {
        "the store at \(path) was written by a newer version of suite; upgrade suite (the file was left untouched)"
    }

    package static func unavailable(path: String, reason: String) -> String {
        "cannot use the store at \(path): \(reason)"
    }

    package static func busy(path: String) -> String {
        "the store at \(path) is busy (another process holds it); try again"
    }
}
