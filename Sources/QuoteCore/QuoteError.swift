import Foundation
import SuiteStorage

/// Everything that can go wrong in `QuoteCore`.
public enum QuoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No quote with that number.
    case quoteNotFound(Int64)
    /// No note with that number (for this user).
    case noteNotFound(Int64)
    /// Empty or over-long text, or control characters.
    case invalidText(String)
    /// A search query with nothing to search for, or one that cannot be read.
    case invalidQuery(String)
    /// A schedule that cannot work (bad time, window, time zone, count …).
    case invalidSchedule(String)
    /// Nothing matches the filter.
    case noQuotes(String)
    /// A file to import is malformed; nothing was imported.
    case malformedImport(file: String, line: Int?, reason: String)
    /// The store file is damaged or not a quote store.
    case corruptStore(path: String, reason: String)
    /// The store was written by a newer version.
    case newerStore(path: String)
    /// The store cannot be read or written.
    case storeUnavailable(path: String, reason: String)
    /// Another process held the store past the timeout.
    case storeBusy(path: String)

    public var description: String {
        switch self {
        case .quoteNotFound(let id): return "no quote \(id)"
        case .noteNotFound(let id): return "no note \(id)"
        case .invalidText(let reason): return reason
        case .invalidQuery(let reason): return "invalid search: \(reason)"
        case .invalidSchedule(let reason): return "invalid schedule: \(reason)"
        case .noQuotes(let what): return "no quotes \(what)"
        case .malformedImport(let file, let line, let reason):
            return "\(file)\(line.map { ":\($0)" } ?? ""): \(reason); nothing was imported"
        case .corruptStore(let path, let reason):
            return StoreMessage.corrupt(path: path, reason: reason, kind: "quote")
        case .newerStore(let path):
            return StoreMessage.newer(path: path)
        case .storeUnavailable(let path, let reason): return StoreMessage.unavailable(path: path, reason: reason)
        case .storeBusy(let path): return StoreMessage.busy(path: path)
        }
    }
}

extension QuoteError: StoreErrorCases {}
