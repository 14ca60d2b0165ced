import Testing
@testable import MotivationCore

/// The "continue to" table of ../shared/reference/ebmm.md, by short id.
let referenceContinueLinks: [String: Set<String>] = [
    "vp": ["rc", "cn"],
    "rc": ["vp", "ra", "pt", "ps"],
    "cn": ["ct", "ps", "vp"],
    "ps": ["cn", "ch", "ct", "rc"],
    "ch": ["cr", "ps", "ct", "gl", "pt"],
    "ra": ["rc", "cr"],
    "pt": ["cr", "gl", "ch", "rc"],
    "gl": ["pt", "ch"],
    "ct": ["ch", "ps", "cn"],
    "cr": ["ra", "ch", "pt"],
]

@Suite struct SectionCatalogueTests {
    @Test func hasTenSectionsWithUniqueIdsAndShortIds() {
        #expect(SectionCatalogue.sections.count == 10)
        #expect(Set(SectionCatalogue.sections.map(\.id)).count == 10)
        #expect(Set(SectionCatalogue.sections.map(\.shortID)).count == 10)
        #expect(SectionCatalogue.sections.map(\.shortID) == ["vp", "cn", "ct", "ps", "ch", "gl", "pt", "rc", "ra", "cr"])
        for section in SectionCatalogue.sections {
            #expect(!section.summary.isEmpty)
            #expect((2...3).contains(section.prompts.count))
        }
    }

    @Test func levelsFollowTheReferencePolicy() {
        let levels = Dictionary(uniqueKeysWithValues: SectionCatalogue.sections.map { ($0.shortID, $0.level) })
        #expect(levels == [
            "vp": .required, "cn": .core, "ct": .core, "ps": .core, "cr": .core,
            "ch": .recommended, "rc": .recommended, "gl": .recommended, "pt": .optional, "ra": .optional,
        ])
    }

    @Test func continueLinksEqualTheReferenceTable() {
        for section in SectionCatalogue.sections {
            let links = SectionCatalogue.continueLinks(from: section.id)
            #expect(Set(links.map(\.shortID)) == referenceContinueLinks[section.shortID], "\(section.title)")
            #expect(links.count == Set(links).count, "no duplicate links from \(section.title)")
        }
    }

    @Test func everyLinkIsSymmetric() {
        for section in SectionCatalogue.sections {
            for target in SectionCatalogue.continueLinks(from: section.id) {
                #expect(SectionCatalogue.continueLinks(from: target).contains(section.id), "\(target.title) → \(section.title)")
            }
        }
    }

    @Test func theGuidedOrderVisitsEverySectionOnceAlongEdges() {
        let order = SectionCatalogue.guidedOrder
        #expect(order.map(\.shortID) == ["vp", "cn", "ct", "ps", "ch", "gl", "pt", "rc", "ra", "cr"])
        #expect(Set(order).count == 10)
        for (from, to) in zip(order, order.dropFirst()) {
            let joined = SectionCatalogue.relationships.contains {
                ($0.from == from && $0.to == to) || ($0.from == to && $0.to == from)
            }
            #expect(joined, "\(from.title) → \(to.title) is not a relationship")
        }
    }

    @Test func relationshipsUseTheModelsVerbs() {
        let sentences = SectionCatalogue.relationships.map(\.sentence)
        #expect(sentences.contains("Value Proposition drives Required Competency"))
        #expect(sentences.contains("Channels affect and demand Geographies & Locales"))
        #expect(sentences.contains("Customer Type may include Customer Type"))
        #expect(SectionCatalogue.relationships.count == 17)
        #expect(SectionCatalogue.leadingRelationship(to: .customerNeeds)?.sentence == "Value Proposition addresses Customer Needs")
        #expect(SectionCatalogue.leadingRelationship(to: .valueProposition)?.sentence == "Value Proposition drives Required Competency")
    }

    @Test(arguments: [
        ("vp", SectionID.valueProposition), ("VP", .valueProposition), ("value proposition", .valueProposition),
        ("Value-Proposition", .valueProposition), ("  products & services ", .productsAndServices),
        ("products and services", .productsAndServices), ("resource / asset", .resourceAsset),
        ("RESOURCE-ASSET", .resourceAsset), ("cost & revenue models", .costAndRevenueModels), ("gl", .geographiesAndLocales),
    ])
    func lookupAcceptsIdShortIdOrTitle(name: String, expected: SectionID) {
        #expect(SectionCatalogue.lookup(name) == expected)
    }

    @Test(arguments: ["", "  ", "value", "xx", "Value Propositions", "1"])
    func lookupRejectsUnknownNames(name: String) {
        #expect(SectionCatalogue.lookup(name) == nil)
    }
}
