import Foundation

/// Why a store could not be opened or used, as an app can branch on it: the ``kind`` of failure,
/// the file or folder it is about, and the system's own words for logs (``detail``).
///
/// The four cores share this type: each core's error has a `store(StoreError)` case.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Another process held the store (or its lock) past the busy timeout; trying again may work.
        case busy
        /// The disk, or a file-size limit, has no room for the write.
        case diskFull
        /// The file or its folder may not be written, or the store was opened read-only.
        case readOnly
        /// The file is not a readable database: empty, random bytes, truncated or damaged.
        case damaged
        /// The file is a database of another application.
        case foreign
        /// The file was written by a newer version whose migrations this one does not know.
        case newerSchema
        /// The SQLite library lacks a feature the store needs (full-text search, R*Tree).
        case missingFeature
        /// The store or its folder cannot be created, read or written for another reason
        /// (permissions, a file where a folder should be, an I/O error, a lock file that is a link).
        case unavailable
    }

    /// What went wrong.
    public let kind: Kind
    /// The file or folder the failure is about.
    public let path: String
    /// The system's or SQLite's description of the failure, in English, for logs; empty when the
    /// kind says it all. Not meant for branching.
    public let detail: String

    public init(kind: Kind, path: String, detail: String = "") {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    package init(_ failure: StoreFailure) {
        switch failure {
        case .unavailable(let path, let reason): self.init(kind: .unavailable, path: path, detail: reason)
        case .corrupt(let path, let reason): self.init(kind: .damaged, path: path, detail: reason)
        case .foreign(let path, let reason): self.init(kind: .foreign, path: path, detail: reason)
        case .newerSchema(let path): self.init(kind: .newerSchema, path: path)
        case .busy(let path): self.init(kind: .busy, path: path)
        case .missingFeature(let path, let feature): self.init(kind: .missingFeature, path: path, detail: feature)
        case .diskFull(let path): self.init(kind: .diskFull, path: path)
        case .readOnly(let path, let reason): self.init(kind: .readOnly, path: path, detail: reason)
        }
    }

    /// An English sentence naming the path; apps show their own text for ``kind``.
    public var description: String {
        switch kind {
        case .busy: return StoreMessage.busy(path: path)
        case .diskFull: return StoreMessage.unavailable(path: path, reason: "the disk is full")
        case .readOnly: return StoreMessage.unavailable(path: path, reason: detail.isEmpty ? "it is read-only" : detail)
        case .damaged: return "the store at \(path) is damaged or not a database (\(detail)); it was left untouched"
        case .foreign: return "the file at \(path) is not this store (\(detail)); it was left untouched"
        case .newerSchema: return StoreMessage.newer(path: path)
        case .missingFeature: return "the SQLite library lacks \(detail), which the store at \(path) needs"
        case .unavailable: return StoreMessage.unavailable(path: path, reason: detail)
        }
    }
}
