import Foundation
import SuiteStorage

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
    /// The store file is damaged or not a bundle store.
    case corruptStore(path: String, reason: String)
    /// The store was written by a newer version.
    case newerStore(path: String)
    /// The store cannot be read or written.
    case storeUnavailable(path: String, reason: String)
    /// Another process held the store past the timeout.
    case storeBusy(path: String)

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
        case .corruptStore(let path, let reason):
            return StoreMessage.corrupt(path: path, reason: reason, kind: "bundle")
        case .newerStore(let path):
            return StoreMessage.newer(path: path)
        case .storeUnavailable(let path, let reason): return StoreMessage.unavailable(path: path, reason: reason)
        case .storeBusy(let path): return StoreMessage.busy(path: path)
        }
    }
}

extension BundleError: StoreErrorCases {}
