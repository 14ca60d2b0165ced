import ArgumentParser
import Foundation
import MotivationCore

/// `suite bmm`: the Business Model area of the Enterprise Business Motivation Model.
struct BMMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bmm",
        abstract: "Write your business model, section by section, after Nick Malik's EBMM.",
        discussion: """
            A business model has ten sections joined by relationships. Start with 'add', answer \
            the sections with 'walk' (or 'set'/'edit' one at a time), see what is done with \
            'sections', and share with 'export' or 'print'.

            Example:
              suite bmm add "Acme Bakery"
              suite bmm walk
              suite bmm export --format markdown -o acme.md
            """,
        subcommands: [
            Add.self, New.self, List.self, Use.self, Rename.self, Copy.self, Delete.self,
            Sections.self, Show.self, Edit.self, SetSection.self, Clear.self,
            History.self, Restore.self, Walk.self, Export.self, Import.self,
            Print.self, About.self,
        ]
    )
}

/// Selects the model a command acts on.
struct ModelOption: ParsableArguments {
    @Option(name: .customLong("model"), help: ArgumentHelp("Act on this model instead of the current one.", valueName: "name"))
    var name: String?

    func model(in store: BusinessModelStore) throws -> BusinessModel {
        if let name { return try store.model(named: name) }
        return try store.current()
    }
}

/// Parses a section name for ArgumentParser: id, short id or title.
struct SectionArgument: ExpressibleByArgument {
    let id: SectionID

    init?(argument: String) {
        guard let id = SectionCatalogue.lookup(argument) else { return nil }
        self.id = id
    }

    static var allValueStrings: [String] { SectionCatalogue.sections.map(\.shortID) }

    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

extension Confidence: ExpressibleByArgument {}

enum BMM {
    /// Opens the store; `readOnly` for commands that only read (nothing is written to disk).
    static func open(_ options: some StoreOptions, readOnly: Bool = false) throws -> BusinessModelStore {
        try BusinessModelStore(url: options.storeFile(BusinessModelStore.fileName), readOnly: readOnly)
    }

    /// ✓ (green) and ! (red) on a terminal or with colour, `[x]` and `[!]` otherwise or with --ascii.
    static func mark(_ done: Bool, ascii: Bool) -> String {
        let plain = ascii || !(Terminal.stdoutIsTerminal || Colour.enabled)
        if done { return Colour.paint(plain ? "[x]" : "✓", .green) }
        return Colour.paint(plain ? "[!]" : "!", .red)
    }

    /// A completeness percentage: green when every section is written, red otherwise.
    static func percent(_ percent: Int) -> String {
        Colour.paint("\(percent)%", percent >= 100 ? .green : .red)
    }

    static func completenessLine(_ model: BusinessModel) -> String {
        let completeness = model.completeness
        return "\(Colour.accent(model.name)): \(completeness.done.count) of \(SectionCatalogue.sections.count) sections written (\(percent(completeness.percent)))"
    }

    static func sectionLabel(_ id: SectionID) -> String {
        "\(id.title) (\(id.shortID))"
    }
}
