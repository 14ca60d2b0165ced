import Foundation
import SuiteStorage

/// Everything that can go wrong in `MotivationCore`.
public enum MotivationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No model with that name or id.
    case modelNotFound(String)
    /// A model with that name exists already.
    case duplicateName(String)
    /// No model is current (none created yet, or the current one was deleted).
    case noCurrentModel
    /// The business name is empty, too long or holds control characters.
    case invalidName(String)
    /// A section text is over the limit.
    case textTooLong(length: Int, limit: Int)
    /// A section text holds a NUL or another control character.
    case invalidText(String)
    /// No version with that number in a section's history.
    case versionNotFound(section: SectionID, version: Int)
    /// Export or print refused: required parts are missing (force to share anyway).
    case notShareable(missing: [String])
    /// An import document could not be read; `reason` says where and why.
    case malformedDocument(reason: String)
    /// The store file is damaged or not a business-model store.
    case corruptStore(path: String, reason: String)
    /// The store was written by a newer version.
    case newerStore(path: String)
    /// The store cannot be read or written.
    case storeUnavailable(path: String, reason: String)
    /// Another process held the store past the timeout.
    case storeBusy(path: String)

    public var description: String {
        switch self {
        case .modelNotFound(let name): return "no business model named '\(name)' (see 'suite bmm list')"
        case .duplicateName(let name): return "a business model named '\(name)' exists already"
        case .noCurrentModel: return "no business model yet: create one with 'suite bmm new NAME'"
        case .invalidName(let reason): return "invalid business name: \(reason)"
        case .textTooLong(let length, let limit):
            return "the text is \(length) bytes; a section holds at most \(limit) bytes"
        case .invalidText(let reason): return "invalid section text: \(reason)"
        case .versionNotFound(let section, let version):
            return "\(section.title) has no version \(version) (see 'suite bmm history \(section.shortID)')"
        case .notShareable(let missing):
            return "refused: the model lacks \(missing.joined(separator: " and ")); fill it in or use --force"
        case .malformedDocument(let reason): return "malformed business model document: \(reason)"
        case .corruptStore(let path, let reason):
            return StoreMessage.corrupt(path: path, reason: reason, kind: "business-model")
        case .newerStore(let path):
            return StoreMessage.newer(path: path)
        case .storeUnavailable(let path, let reason): return StoreMessage.unavailable(path: path, reason: reason)
        case .storeBusy(let path): return StoreMessage.busy(path: path)
        }
    }
}

extension MotivationError: StoreErrorCases {}
