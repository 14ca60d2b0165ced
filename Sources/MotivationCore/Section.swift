import Foundation

/// The stable identifier of one of the ten sections of the EBMM Business Model area.
///
/// The raw value is the stable id used in files and on the command line; ``shortID`` is the
/// two-letter abbreviation.
public enum SectionID: String, CaseIterable, Codable, Sendable, Hashable, Comparable {
    case valueProposition = "value-proposition"
    case customerNeeds = "customer-needs"
    case customerType = "customer-type"
    case productsAndServices = "products-and-services"
    case channels = "channels"
    case geographiesAndLocales = "geographies-and-locales"
    case partnerType = "partner-type"
    case requiredCompetency = "required-competency"
    case resourceAsset = "resource-asset"
    case costAndRevenueModels = "cost-and-revenue-models"

    /// The section's number in the catalogue (1…10).
    public var number: Int { (Self.allCases.firstIndex(of: self) ?? 0) + 1 }

    /// The two-letter short id (`vp`, `cn`, …).
    public var shortID: String { SectionCatalogue.section(self).shortID }

    /// The section's title.
    public var title: String { SectionCatalogue.section(self).title }

    public static func < (lhs: SectionID, rhs: SectionID) -> Bool { lhs.number < rhs.number }
}

/// How much a section matters when a model is shared or printed.
public enum RequirementLevel: String, CaseIterable, Codable, Sendable, Hashable, Comparable {
    /// Sharing is refused without it unless forced.
    case required
    /// Sharing warns about it, listed first.
    case core
    /// Sharing warns about it.
    case recommended
    /// Shown in the completeness report only.
    case optional

    public static func < (lhs: RequirementLevel, rhs: RequirementLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)! // programmer error: allCases holds every case
    }
}

/// One section of the Business Model area: what to write there and how much it matters.
public struct Section: Sendable, Hashable, Identifiable {
    /// The stable id.
    public let id: SectionID
    /// The two-letter short id.
    public let shortID: String
    /// The title, as EBMM names the element.
    public let title: String
    /// What the section holds, in a sentence or two.
    public let summary: String
    /// Questions that help a person write the section.
    public let prompts: [String]
    /// The requirement level.
    public let level: RequirementLevel

    /// The summary followed by the prompting questions, one per line.
    public var description: String {
        ([summary] + prompts.map { "- \($0)" }).joined(separator: "\n")
    }
}

/// A directed relationship between two sections, with EBMM's verb ("drives", "addresses", …).
public struct Relationship: Sendable, Hashable {
    /// The section the relationship starts from.
    public let from: SectionID
    /// The verb, as EBMM states it.
    public let verb: String
    /// The section the relationship points to.
    public let to: SectionID

    /// The sentence a page shows as its subtitle, e.g. "Value Proposition drives Required Competency".
    public var sentence: String { "\(from.title) \(verb) \(to.title)" }
}
extension SectionID: CodingKeyRepresentable {}
