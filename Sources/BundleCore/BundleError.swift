import Foundation
@_exported import SuiteStorage

/// Everything that can go wrong in `BundleCore`.
public enum BundleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No todo with that number or id.
    case todoNotFound(String)
    /// No bundle with that number or id.
    case bundleNotFound(String)
    /// No open bundle to act on.
    case noOpenBundle
    /// No event matches the phrase; `suggestions` are the nearest existing ones.
    case unknownEvent(String, suggestions: [String])
    /// The phrase is close to an existing event, which is probably what was meant.
    case similarEvent(String, existing: String)
    /// An event with that name or alias exists already.
    case duplicateEvent(String)
    /// Empty or over-long text, or control characters.
    case invalidText(String)
    /// An unreadable deadline, or a day that does not exist.
    case invalidDeadline(String)
    /// The operation does not fit the todo's or bundle's state.
    case invalidState(String)
    /// A file to import is malformed; nothing was imported.
    case malformedImport(format: String, line: Int?, reason: String)
    /// The store could not be opened or used; ``StoreError/kind`` says why.
    case store(StoreError)

    public var description: String {
        switch self {
        case .todoNotFound(let id): return "no todo \(id) (see 'suite bundle list --all')"
        case .bundleNotFound(let id): return "no bundle \(id) (see 'suite bundle review')"
        case .noOpenBundle: return "no open bundle: check in first with 'suite bundle checkin EVENT --about-to'"
        case .unknownEvent(let phrase, let suggestions):
            return suggestions.isEmpty
                ? "no trigger event '\(phrase)' (see 'suite bundle events')"
                : "no trigger event '\(phrase)'; did you mean \(suggestions.map { "'\($0)'" }.joined(separator: " or "))?"
        case .similarEvent(let phrase, let existing):
            return "'\(phrase)' looks like the existing event '\(existing)'; use that name, or --new-event to create '\(phrase)'"
        case .duplicateEvent(let name): return "a trigger event '\(name)' exists already"
        case .invalidText(let reason): return reason
        case .invalidDeadline(let text):
            return "invalid deadline '\(text)': use YYYY-MM-DD or YYYY-MM-DDTHH:MM with a real date"
        case .invalidState(let reason): return reason
        case .malformedImport(let format, let line, let reason):
            return "malformed \(format) file\(line.map { " at line \($0)" } ?? ""): \(reason); nothing was imported"
        case .store(let error): return error.description
        }
    }
}

extension BundleError: StoreFailureRepresentable {
    package init(storeFailure: StoreFailure) { self = .store(StoreError(storeFailure)) }
}
