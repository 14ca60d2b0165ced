import Foundation
import SuiteStorage

/// How sure the author is of what a section says.
public enum Confidence: String, CaseIterable, Codable, Sendable, Hashable {
    /// A guess not yet checked.
    case assumption
    /// Some evidence supports it.
    case someEvidence = "some-evidence"
    /// Checked against reality.
    case validated
}

/// The current text of one section of a model.
public struct SectionEntry: Codable, Sendable, Hashable {
    /// The text as the author wrote it.
    public var text: String
    /// How sure the author is, when they said.
    public var confidence: Confidence?
    /// When the text or confidence last changed.
    public var updatedAt: Date

    /// Creates an entry.
    public init(text: String, confidence: Confidence? = nil, updatedAt: Date) {
        self.text = text
        self.confidence = confidence
        self.updatedAt = updatedAt
    }

    /// True when the text holds more than white space (see ``isAnswered(_:)``).
    public var isAnswered: Bool { Self.isAnswered(text) }

    /// Whether a section holding `text` counts as answered: the one definition, used for a
    /// model's ``Completeness``, the percentage of `BusinessModelStore.models()` and everything
    /// built on them. A text is answered when something is left once white space and line breaks
    /// are trimmed from both ends as the text rule trims them (all of Unicode's white space: a
    /// text of no-break or ideographic spaces is not an answer).
    public static func isAnswered(_ text: String) -> Bool {
        !TextRule.trimmed(text).isEmpty
    }
}

/// One business model: its name and the text of each section.
public struct BusinessModel: Codable, Sendable, Hashable, Identifiable {
    /// A model's identifier: a UUID, kept across export and import.
    public typealias ID = UUID

    /// A stable identifier, kept across export and import.
    public var id: ID
    /// The business name.
    public var name: String
    /// The entries of the sections written so far.
    public var entries: [SectionID: SectionEntry]
    /// When the model was created.
    public var createdAt: Date
    /// When anything in it last changed.
    public var updatedAt: Date

    /// Creates a model.
    public init(id: ID = UUID(), name: String, entries: [SectionID: SectionEntry] = [:], createdAt: Date, updatedAt: Date) {
        self.id = id
        self.name = name
        self.entries = entries
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The text of a section, empty when not written.
    public func text(of section: SectionID) -> String {
        entries[section]?.text ?? ""
    }

    /// True when the section holds more than white space.
    public func isAnswered(_ section: SectionID) -> Bool {
        entries[section]?.isAnswered ?? false
    }

    /// Which sections are done and which are missing.
    public var completeness: Completeness {
        Completeness(model: self)
    }
}

/// A model's completeness as a value: what is done, what is missing by level, and a percentage.
public struct Completeness: Sendable, Hashable, Codable {
    /// True when the model has a business name.
    public let hasName: Bool
    /// Answered sections, in guided order.
    public let done: [SectionID]
    /// Unanswered sections, in guided order.
    public let missing: [SectionID]
    /// Whole percent of the ten sections answered.
    public let percent: Int

    /// Computes the completeness of `model`.
    public init(model: BusinessModel) {
        hasName = !TextRule.trimmed(model.name).isEmpty
        done = SectionCatalogue.guidedOrder.filter { model.isAnswered($0) }
        missing = SectionCatalogue.guidedOrder.filter { !model.isAnswered($0) }
        percent = done.count * 100 / SectionCatalogue.sections.count
    }

    /// Unanswered sections of the given level, in guided order.
    public func missing(at level: RequirementLevel) -> [SectionID] {
        missing.filter { SectionCatalogue.section($0).level == level }
    }

    /// True when every section is answered and the model has a name.
    public var isComplete: Bool { hasName && missing.isEmpty }

    /// The sharing decision for this model (see ``ShareCheck``).
    public var shareCheck: ShareCheck { ShareCheck(completeness: self) }
}

/// Whether a model may be shared, exported or printed, and what to warn about.
///
/// A model without a business name or without the Value Proposition is refused unless forced;
/// other unfinished core and recommended sections are listed as warnings, core first. Optional
/// sections appear only in the completeness report.
public struct ShareCheck: Sendable, Hashable {
    /// True when the missing business name blocks sharing.
    public let missingName: Bool
    /// The required sections that are not answered, in guided order.
    public let missingSections: [SectionID]
    /// What blocks sharing: "business name" and/or the required sections' titles.
    public var blocking: [String] { (missingName ? ["business name"] : []) + missingSections.map(\.title) }
    /// Unfinished sections worth a warning, grouped by level (core first, then recommended).
    public let warnings: [(level: RequirementLevel, sections: [SectionID])]

    init(completeness: Completeness) {
        missingName = !completeness.hasName
        missingSections = completeness.missing(at: .required)
        warnings = [RequirementLevel.required, .core, .recommended].compactMap { level in
            let sections = completeness.missing(at: level)
            return sections.isEmpty ? nil : (level, sections)
        }
    }

    /// True when nothing blocks sharing.
    public var isAllowed: Bool { !missingName && missingSections.isEmpty }

    /// One line listing the unfinished sections by level, or nil when there are none.
    public var warningText: String? {
        guard !warnings.isEmpty else { return nil }
        let parts = warnings.map { "\($0.level.rawValue): \($0.sections.map(\.title).joined(separator: ", "))" }
        return "unfinished sections — " + parts.joined(separator: "; ")
    }

    /// Throws unless sharing is allowed or `force` is set.
    ///
    /// - Parameter force: share even though required parts are missing.
    /// - Throws: ``MotivationError/notShareable(missingName:missingSections:)``.
    public func enforce(force: Bool) throws(MotivationError) {
        if !isAllowed && !force { throw .notShareable(missingName: missingName, missingSections: missingSections) }
    }

    public static func == (lhs: ShareCheck, rhs: ShareCheck) -> Bool {
        lhs.missingName == rhs.missingName && lhs.missingSections == rhs.missingSections
            && lhs.warnings.map(\.level) == rhs.warnings.map(\.level) && lhs.warnings.map(\.sections) == rhs.warnings.map(\.sections)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(missingName)
        hasher.combine(missingSections)
        for warning in warnings { hasher.combine(warning.level); hasher.combine(warning.sections) }
    }
}

/// One saved version of a section's text.
public struct SectionVersion: Codable, Sendable, Hashable {
    /// 1 for the first save, counting up.
    public var version: Int
    /// The text saved.
    public var text: String
    /// The confidence saved with it.
    public var confidence: Confidence?
    /// When it was saved.
    public var savedAt: Date

    /// Creates a version.
    public init(version: Int, text: String, confidence: Confidence?, savedAt: Date) {
        self.version = version
        self.text = text
        self.confidence = confidence
        self.savedAt = savedAt
    }
}

/// A line of a model listing.
public struct BusinessModelSummary: Sendable, Hashable, Identifiable {
    /// The model's id.
    public let id: BusinessModel.ID
    /// The business name.
    public let name: String
    /// Whole percent of sections answered.
    public let percent: Int
    /// When anything last changed.
    public let updatedAt: Date
    /// True for the current model.
    public let isCurrent: Bool
}
