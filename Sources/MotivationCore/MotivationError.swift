import Foundation
@_exported import SuiteStorage

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
    /// The store could not be opened or used; ``StoreError/kind`` says why.
    case store(StoreError)

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
        case .store(let error): return error.description
        }
    }
}

extension MotivationError: StoreFailureRepresentable {
    package init(storeFailure: StoreFailure) { self = .store(StoreError(storeFailure)) }
}
