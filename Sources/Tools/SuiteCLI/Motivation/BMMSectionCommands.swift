import ArgumentParser
import Foundation
import SuiteEnvironment
import MotivationCore

extension BMMCommand {
    struct Sections: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sections",
            abstract: "Every section with ✓ (written) or ! (not yet), its level, and the completeness.",
            discussion: "Marks are [x] and [!] when stdout is not a terminal or with --ascii.\n\nExample:\n  suite bmm sections")

        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: ModelOption
        @Flag(help: "Use [x] and [!] instead of ✓ and !.") var ascii = false

        struct Output: Encodable {
            struct Line: Encodable {
                let id: String, shortID: String, title: String, level: String, done: Bool
            }
            let model: String
            let percent: Int
            let done: Int
            let total: Int
            let sections: [Line]
        }

        func run() throws {
            let model = try selection.model(in: BMM.open(options, readOnly: true))
            if options.json {
                let completeness = model.completeness
                try Terminal.printJSON(Output(
                    model: model.name, percent: completeness.percent, done: completeness.done.count,
                    total: SectionCatalogue.sections.count,
                    sections: SectionCatalogue.guidedOrder.map {
                        .init(id: $0.rawValue, shortID: $0.shortID, title: $0.title,
                              level: SectionCatalogue.section($0).level.rawValue, done: model.isAnswered($0))
                    }))
                return
            }
            print(BMM.completenessLine(model))
            for (index, id) in SectionCatalogue.guidedOrder.enumerated() {
                let title = id.title.padding(toLength: 24, withPad: " ", startingAt: 0)
                let number = String(index + 1).leftPadded(2)
                print("\(BMM.mark(model.isAnswered(id), ascii: ascii)) \(number). \(id.shortID)  \(title) \(SectionCatalogue.section(id).level.rawValue)")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "One section: what leads here, what to write, your text, and where to continue.",
            discussion: "SECTION is the id, short id or title, in any case.\n\nExample:\n  suite bmm show vp\n  suite bmm show \"customer needs\"")

        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: ModelOption
        @Argument(help: ArgumentHelp("The section (id, short id or title).", valueName: "section")) var section: SectionArgument
        @Flag(help: "Use [x] and [!] instead of ✓ and !.") var ascii = false

        struct Output: Encodable {
            struct Link: Encodable { let id: String, shortID: String, title: String, done: Bool }
            let id: String, shortID: String, title: String, level: String
            let leadsHere: String?
            let summary: String
            let prompts: [String]
            let text: String
            let confidence: String?
            let updatedAt: Date?
            let continueTo: [Link]
            /// Versions saved at once on two devices that could not be merged (see `history`).
            let disagreeing: [Int]
        }

        func run() throws {
            let store = try BMM.open(options, readOnly: true)
            let model = try selection.model(in: store)
            let id = section.id
            let heads = try store.heads(of: id, in: model.id)
            let disagreeing = heads.count > 1 ? heads.map(\.version) : []
            let info = SectionCatalogue.section(id)
            let entry = model.entries[id]
            let links = SectionCatalogue.continueLinks(from: id)
            if options.json {
                try Terminal.printJSON(Output(
                    id: id.rawValue, shortID: id.shortID, title: id.title, level: info.level.rawValue,
                    leadsHere: SectionCatalogue.leadingRelationship(to: id)?.sentence,
                    summary: info.summary, prompts: info.prompts, text: entry?.text ?? "",
                    confidence: entry?.confidence?.rawValue, updatedAt: entry?.updatedAt,
                    continueTo: links.map { .init(id: $0.rawValue, shortID: $0.shortID, title: $0.title, done: model.isAnswered($0)) },
                    disagreeing: disagreeing))
                return
            }
            print(Show.page(model: model, id: id, ascii: ascii))
            if !disagreeing.isEmpty {
                print("")
                print("Versions \(disagreeing.map(String.init).joined(separator: ", ")) of this section were saved on two devices at once; it shows the latest.")
                print("See them with 'suite bmm history \(id.shortID)'; restore one or save a new text to settle it.")
            }
        }

        /// The text of a section page, shared with `walk`, wrapped to the terminal (``TextWrap``).
        static func page(model: BusinessModel, id: SectionID, ascii: Bool) -> String {
            let info = SectionCatalogue.section(id)
            var lines = ["\(BMM.mark(model.isAnswered(id), ascii: ascii)) \(id.title)  (\(id.shortID) · \(info.level.rawValue))"]
            if let sentence = SectionCatalogue.leadingRelationship(to: id)?.sentence { lines.append(sentence) }
            lines += ["", info.summary] + info.prompts.map { "  - \($0)" }
            lines += ["", "Your text:"]
            if let entry = model.entries[id], entry.isAnswered {
                lines += entry.text.split(separator: "\n", omittingEmptySubsequences: false).map { "  \($0)" }
                if let confidence = entry.confidence { lines.append("  (confidence: \(confidence.rawValue))") }
            } else {
                lines.append("  (not written yet)")
            }
            lines += ["", "Continue to:"]
            lines += SectionCatalogue.continueLinks(from: id).map {
                "  \(BMM.mark(model.isAnswered($0), ascii: ascii)) \(BMM.sectionLabel($0))"
            }
            return TextWrap.wrap(lines.joined(separator: "\n"))
        }
    }

    struct SetSection: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Save a section's text from --text, --file, or standard input ('-').",
            discussion: """
                The previous text is kept in the section's history. The text the section already \
                has (and the confidence it has) changes nothing: no version is added.

                Examples:
                  suite bmm set vp --text "Fresh bread before 7 am, two streets from you."
                  suite bmm set cn --file needs.md
                  pbpaste | suite bmm set ct -
                  suite bmm set vp --confidence validated
                """)

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Argument(help: ArgumentHelp("The section (id, short id or title).", valueName: "section")) var section: SectionArgument
        @Argument(help: ArgumentHelp("'-' to read the text from standard input.", valueName: "-")) var stdin: String?
        @Option(help: ArgumentHelp("The text.", valueName: "text")) var text: String?
        @Option(help: ArgumentHelp("Read the text from this file.", valueName: "file")) var file: String?
        @Option(help: ArgumentHelp("How sure you are: assumption, some-evidence or validated.", valueName: "level")) var confidence: Confidence?

        func validate() throws {
            if let stdin, stdin != "-" { throw ValidationError("unexpected argument '\(stdin)'; use '-' to read standard input") }
            let sources = [text != nil, file != nil, stdin != nil].filter { $0 }.count
            if sources > 1 { throw ValidationError("give the text one way: --text, --file or '-'") }
            if sources == 0 && confidence == nil { throw ValidationError("give the text with --text, --file or '-' (or set --confidence)") }
        }

        func run() throws {
            let store = try BMM.open(options)
            let model = try selection.model(in: store)
            let newText: String?
            if let text {
                newText = text
            } else if let file {
                newText = try Terminal.utf8(Terminal.readFile(file, limit: Terminal.textLimit), source: file)
            } else if stdin != nil {
                newText = try Terminal.readAllStandardInput()
            } else {
                newText = nil
            }
            // Emptying a section is `clear`'s job: an empty file or pipe is more likely a mistake.
            if let newText, !SectionEntry.isAnswered(newText) {
                throw CLIError.badInput("the text is empty; nothing was saved (to empty the section: suite bmm clear \(section.id.shortID))")
            }
            // The text and confidence the section has already, its versions agreeing: no new version.
            let current = model.text(of: section.id)
            let given = try newText.map(BusinessModelStore.validated(text:)) ?? current
            if given == current,
               confidence == nil || confidence == model.entries[section.id]?.confidence,
               try store.heads(of: section.id, in: model.id).count <= 1 {
                print("\(section.id.title) unchanged. \(BMM.completenessLine(model))")
                return
            }
            let updated: BusinessModel
            if let newText {
                updated = try store.save(text: newText, confidence: confidence, section: section.id, in: model.id)
            } else {
                updated = try store.setConfidence(confidence, section: section.id, in: model.id)
            }
            print("Saved \(section.id.title). \(BMM.completenessLine(updated))")
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Empty a section (the old text stays in its history).",
            discussion: "Example:\n  suite bmm clear gl")

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Argument(help: ArgumentHelp("The section (id, short id or title).", valueName: "section")) var section: SectionArgument

        func run() throws {
            let store = try BMM.open(options)
            let model = try selection.model(in: store)
            let updated = try store.save(text: "", section: section.id, in: model.id)
            print("Cleared \(section.id.title). \(BMM.completenessLine(updated))")
        }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Every saved version of a section, oldest first.",
            discussion: "Example:\n  suite bmm history vp\n  suite bmm restore vp --version 2")

        @OptionGroup var options: CommonOptions
        @OptionGroup var selection: ModelOption
        @Argument(help: ArgumentHelp("The section (id, short id or title).", valueName: "section")) var section: SectionArgument

        struct Output: Encodable {
            let section: String
            let versions: [SectionVersion]
            /// The versions nothing descends from: one, or several saved at once on two devices.
            let heads: [Int]
        }

        func run() throws {
            let store = try BMM.open(options, readOnly: true)
            let model = try selection.model(in: store)
            let versions = try store.history(of: section.id, in: model.id)
            let heads = try store.heads(of: section.id, in: model.id).map(\.version)
            if options.json {
                try Terminal.printJSON(Output(section: section.id.rawValue, versions: versions, heads: heads))
                return
            }
            if versions.isEmpty {
                print("\(section.id.title) has no saved versions yet.")
                return
            }
            for version in versions {
                let first = version.text.split(separator: "\n").first.map(String.init) ?? ""
                let preview = first.isEmpty ? "(empty)" : (first.count > 60 ? String(first.prefix(59)) + "…" : first)
                let when = PeopleTime.stamp(version.savedAt)
                let current = !heads.contains(version.version) ? "" : heads.count > 1 ? "  (disagrees)" : "  (current)"
                print("\(String(version.version).leftPadded(3))  \(when)  \(preview)\(current)")
            }
            if heads.count > 1 {
                print("Versions \(heads.map(String.init).joined(separator: ", ")) were saved on two devices at once and could not be merged line by line;")
                print("the section shows the latest until you restore one (suite bmm restore \(section.id.shortID) --version N) or save a new text.")
            }
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Make an earlier version of a section current again.",
            discussion: "Example:\n  suite bmm restore vp --version 2")

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Argument(help: ArgumentHelp("The section (id, short id or title).", valueName: "section")) var section: SectionArgument
        @Option(parsing: .unconditional, help: ArgumentHelp("The version number from 'history'.", valueName: "n"), transform: NumberOption.int(1...Int.max, "--version"))
        var version: Int

        func run() throws {
            let store = try BMM.open(options)
            let model = try selection.model(in: store)
            try store.restore(section: section.id, version: version, in: model.id)
            print("Restored \(section.id.title) to version \(version).")
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
