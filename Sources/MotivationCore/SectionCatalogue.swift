import Foundation

/// The ten sections of the Business Model area of Nick Malik's Enterprise Business Motivation
/// Model, and the relationships between them.
///
/// The "continue to" links and the guided order are derived from ``relationships``.
public enum SectionCatalogue {
    /// The sections in catalogue order.
    /// What the model is, who made it, and what a walk through it does: for an app's ABOUT
    /// screen and the intro of a first walk.
    public static let about = """
        The Enterprise Business Motivation Model (EBMM) is Nick Malik's model of what moves an \
        enterprise: its business models, its goals and the influences on them. Its Business \
        Model area describes one business in ten related sections, from the Value Proposition \
        to Cost & Revenue Models. EBMM is published openly (CC0): http://motivationmodel.com/ebmm/

        This app walks you through those ten sections for your own business: it explains \
        each one, follows the model's relationships from section to section, marks what is \
        done, keeps every version you save, and shares or prints the result. The descriptions \
        are written for this tool; the sections and relationships are EBMM's.
        """

    /// The intro a new model starts with: what the model is for and what the walk through it
    /// will ask, section by section in guided order (the seed's INTRO page).
    public static var introduction: String {
        var lines = [
            "A business model says, in plain words, what your business offers, to whom, how it reaches them, "
                + "with whom and with what it works, and how money comes in and goes out. Writing it down shows "
                + "what is clear and what is still a guess, and gives you one page to share with a partner, a "
                + "bank or a new colleague.",
            "",
            "The walk asks for ten sections, one at a time, in this order:",
        ]
        for (number, id) in guidedOrder.enumerated() {
            let section = section(id)
            lines.append("\(number + 1 < 10 ? " " : "")\(number + 1). \(section.title) (\(section.level.rawValue)): \(section.summary)")
        }
        lines += ["", "Every answer is saved as you give it; you can stop at any point, come back later, and go back to the section before."]
        return lines.joined(separator: "\n")
    }

    public static let sections: [Section] = [
        Section(
            id: .valueProposition, shortID: "vp", title: "Value Proposition",
            summary: "Why your offer is worth having, seen through the eyes of the customer you are aiming at.",
            prompts: [
                "What does the customer get from you that they cannot easily get elsewhere?",
                "Which problem disappears, or which wish comes true, when they buy?",
                "How would a customer say it in one sentence?",
            ],
            level: .required),
        Section(
            id: .customerNeeds, shortID: "cn", title: "Customer Needs",
            summary: "What moves your customers to buy: the outcomes they want, what they value, the limits they work within, the experience they expect.",
            prompts: [
                "What are customers trying to get done when they come to you?",
                "What do they care about most: price, time, trust, status, convenience?",
                "What stops them from buying today?",
            ],
            level: .core),
        Section(
            id: .customerType, shortID: "ct", title: "Customer Type",
            summary: "The groups of customers you serve, each sharing attributes that matter to your offer.",
            prompts: [
                "Who buys, and who uses? Are they the same people?",
                "Which groups share needs, budgets or habits?",
                "Which group matters most to the business now?",
            ],
            level: .core),
        Section(
            id: .productsAndServices, shortID: "ps", title: "Products & Services",
            summary: "The specific things you offer, shaped by what customers ask for.",
            prompts: [
                "What exactly do you sell or provide?",
                "Which offer answers which customer need?",
                "What is new, and what will you stop offering?",
            ],
            level: .core),
        Section(
            id: .channels, shortID: "ch", title: "Channels",
            summary: "How you reach customers: where you sell, how you deliver, and how you talk with them.",
            prompts: [
                "Where do customers find you and buy from you?",
                "How does the product or service reach them?",
                "Which channel costs the most, and which brings the most?",
            ],
            level: .recommended),
        Section(
            id: .geographiesAndLocales, shortID: "gl", title: "Geographies & Locales",
            summary: "Where your offer is sold, physically and in which settings or contexts.",
            prompts: [
                "In which towns, regions or countries do you sell?",
                "In which settings is the offer bought or used (at home, at work, on the move)?",
                "Where would you go next?",
            ],
            level: .recommended),
        Section(
            id: .partnerType, shortID: "pt", title: "Partner Type",
            summary: "The kinds of outside partners the model depends on: suppliers, resellers, agents and the like.",
            prompts: [
                "Whom do you buy from, and who sells for you?",
                "Which partner could you not do without?",
                "What does each partner get out of working with you?",
            ],
            level: .optional),
        Section(
            id: .requiredCompetency, shortID: "rc", title: "Required Competency",
            summary: "What the business must be excellent at for the model to work.",
            prompts: [
                "Which abilities make the value proposition real?",
                "Where must you be better than competitors, not just as good?",
                "Which competency is weakest today?",
            ],
            level: .recommended),
        Section(
            id: .resourceAsset, shortID: "ra", title: "Resource / Asset",
            summary: "What the business must employ, own or control to deliver its competencies: people, equipment, premises, knowledge, money.",
            prompts: [
                "Which people, skills and equipment does each competency need?",
                "What must you own, and what can you rent or borrow?",
                "Which resource is scarce?",
            ],
            level: .optional),
        Section(
            id: .costAndRevenueModels, shortID: "cr", title: "Cost & Revenue Models",
            summary: "The costs the model incurs and how it earns its money.",
            prompts: [
                "What are the largest costs, and which grow with sales?",
                "How and when do customers pay?",
                "At what volume does the business break even?",
            ],
            level: .core),
    ]

    /// The relationships between sections, in EBMM's own words.
    public static let relationships: [Relationship] = [
        Relationship(from: .valueProposition, verb: "drives", to: .requiredCompetency),
        Relationship(from: .valueProposition, verb: "addresses", to: .customerNeeds),
        Relationship(from: .requiredCompetency, verb: "demands", to: .resourceAsset),
        Relationship(from: .requiredCompetency, verb: "delivers", to: .productsAndServices),
        Relationship(from: .partnerType, verb: "provides", to: .requiredCompetency),
        Relationship(from: .productsAndServices, verb: "satisfy", to: .customerNeeds),
        Relationship(from: .productsAndServices, verb: "are targeted to", to: .customerType),
        Relationship(from: .productsAndServices, verb: "are delivered through", to: .channels),
        Relationship(from: .customerType, verb: "has", to: .customerNeeds),
        Relationship(from: .customerType, verb: "may include", to: .customerType),
        Relationship(from: .channels, verb: "serve", to: .customerType),
        Relationship(from: .channels, verb: "affect and demand", to: .geographiesAndLocales),
        Relationship(from: .channels, verb: "drive", to: .costAndRevenueModels),
        Relationship(from: .partnerType, verb: "affects", to: .channels),
        Relationship(from: .partnerType, verb: "affects", to: .geographiesAndLocales),
        Relationship(from: .partnerType, verb: "impacts", to: .costAndRevenueModels),
        Relationship(from: .resourceAsset, verb: "impacts", to: .costAndRevenueModels),
    ]

    /// The section with the given id.
    public static func section(_ id: SectionID) -> Section {
        sections[id.number - 1]
    }

    /// The sections a page offers to continue to: every section joined to `id` by a relationship
    /// in either direction (self-relationships excluded), the next one in ``guidedOrder`` first,
    /// then the rest in guided order.
    public static func continueLinks(from id: SectionID) -> [SectionID] {
        let neighbours = Set(neighbourTable[id] ?? [])
        let order = guidedOrder
        let position = order.firstIndex(of: id) ?? 0
        let rotated = Array(order[(position + 1)...]) + Array(order[..<position])
        return rotated.filter { neighbours.contains($0) }
    }

    /// A path through all ten sections that follows only relationships, starting at the Value
    /// Proposition: a depth-first walk that prefers the lowest-numbered unvisited neighbour.
    public static let guidedOrder: [SectionID] = {
        func extend(_ path: [SectionID]) -> [SectionID]? {
            if path.count == SectionID.allCases.count { return path }
            guard let last = path.last else { return nil }
            for next in (neighbourTable[last] ?? []).sorted() where !path.contains(next) {
                if let found = extend(path + [next]) { return found }
            }
            return nil
        }
        return extend([.valueProposition]) ?? SectionID.allCases
    }()

    /// The relationship whose sentence leads to `id` on the guided path: the one joining the
    /// previous section of ``guidedOrder`` to it, or, for the first section, its first own
    /// relationship.
    public static func leadingRelationship(to id: SectionID) -> Relationship? {
        let order = guidedOrder
        if let index = order.firstIndex(of: id), index > 0 {
            let previous = order[index - 1]
            if let edge = relationships.first(where: {
                ($0.from == previous && $0.to == id) || ($0.from == id && $0.to == previous)
            }) {
                return edge
            }
        }
        return relationships.first { $0.from == id && $0.to != id }
    }

    /// The relationships that involve `id`, in either direction.
    public static func relationships(involving id: SectionID) -> [Relationship] {
        relationships.filter { $0.from == id || $0.to == id }
    }

    /// Finds a section by its id, short id or title, ignoring case and surrounding spaces; `&`
    /// and "and", `/` and spaces are interchangeable in titles.
    public static func lookup(_ name: String) -> SectionID? {
        let key = normalise(name)
        guard !key.isEmpty else { return nil }
        return sections.first {
            normalise($0.id.rawValue) == key || $0.shortID == key || normalise($0.title) == key
        }?.id
    }

    private static func normalise(_ text: String) -> String {
        text.lowercased()
            .replacingOccurrences(of: "&", with: " and ")
            .replacingOccurrences(of: "/", with: " ")
            .replacingOccurrences(of: "-", with: " ")
            .split(whereSeparator: { $0.isWhitespace })
            .joined(separator: " ")
    }

    private static let neighbourTable: [SectionID: [SectionID]] = {
        var table: [SectionID: Set<SectionID>] = [:]
        for edge in relationships where edge.from != edge.to {
            table[edge.from, default: []].insert(edge.to)
            table[edge.to, default: []].insert(edge.from)
        }
        return table.mapValues { $0.sorted() }
    }()
}
