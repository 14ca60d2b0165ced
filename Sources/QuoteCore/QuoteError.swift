import Foundation
@_exported import SuiteStorage

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
    /// The store could not be opened or used; ``StoreError/kind`` says why.
    case store(StoreError)

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
        case .store(let error): return error.description
        }
    }
}

extension QuoteError: StoreFailureRepresentable {
    package init(storeFailure: StoreFailure) { self = .store(StoreError(storeFailure)) }
}
