import Foundation
@_exported import SuiteStorage

extension FieldName {
    /// A model's business name (one line, at most ``BusinessModelStore/maximumNameLength``
    /// characters).
    public static let businessName = FieldName(rawValue: "business name")
    /// The text of a section (at most ``BusinessModelStore/maximumTextLength`` UTF-8 bytes; an
    /// over-long text is ``MotivationError/textTooLong(length:limit:)``).
    public static let sectionText = FieldName(rawValue: "section text")
}

/// Everything that can go wrong in `MotivationCore`, as values an app can branch on.
///
/// ``description`` is one short English sentence for logs; an app shows its own words for each
/// case.
public enum MotivationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No model with that id (it was deleted, or never was in this store).
    case modelNotFound(BusinessModel.ID)
    /// No model with that name (names are compared case-insensitively, trimmed).
    case noModelNamed(String)
    /// A model with that name exists already.
    case duplicateName(String)
    /// No model is current (none created yet, or the last one was deleted).
    case noCurrentModel
    /// A section text is over the limit, in UTF-8 bytes.
    case textTooLong(length: Int, limit: Int)
    /// A business name or section text refused by the text rule: which field, and why
    /// (``FieldName/businessName`` or ``FieldName/sectionText``).
    case invalidText(InvalidText)
    /// No version with that number in a section's history.
    case versionNotFound(section: SectionID, version: Int)
    /// Sharing refused: the model has no business name (`missingName`) and/or lacks required
    /// sections (`missingSections`, in guided order). Sharing anyway is the caller's choice
    /// (``ShareCheck/enforce(force:)``).
    case notShareable(missingName: Bool, missingSections: [SectionID])
    /// An import document could not be read; `reason` says where and why.
    case malformedDocument(reason: String)
    /// The store could not be opened or used; ``StoreError/kind`` says why.
    case store(StoreError)

    public var description: String {
        switch self {
        case .modelNotFound(let id): return "no business model with the id \(id.uuidString)"
        case .noModelNamed(let name): return "no business model named '\(name)'"
        case .duplicateName(let name): return "a business model named '\(name)' exists already"
        case .noCurrentModel: return "no business model yet"
        case .textTooLong(let length, let limit):
            return "the text is \(length) bytes; a section holds at most \(limit) bytes"
        case .invalidText(let invalid): return invalid.description
        case .versionNotFound(let section, let version): return "\(section.title) has no version \(version)"
        case .notShareable(let missingName, let sections):
            let parts = (missingName ? ["business name"] : []) + sections.map(\.title)
            return "refused: the model lacks \(parts.joined(separator: " and "))"
        case .malformedDocument(let reason): return "malformed business model document: \(reason)"
        case .store(let error): return error.description
        }
    }
}

extension MotivationError: StoreFailureRepresentable {
    package init(storeFailure: StoreFailure) { self = .store(StoreError(storeFailure)) }
}
