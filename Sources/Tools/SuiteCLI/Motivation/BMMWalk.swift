import ArgumentParser
import Foundation
import MotivationCore

extension BMMCommand {
    struct Walk: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "walk",
            abstract: "The guided run-through: every section in guided order, saved as you go.",
            discussion: """
                For each section it shows what to write, your current text and where it leads, then \
                reads your answer: end it with a line holding only '.'. An empty answer keeps the \
                current text. Walk commands, on a line of their own: ':b' goes back to the section \
                before (the prompt names it), ':g SECTION' goes to a section (a name 'show' takes, \
                as the Continue to links do), ':q' stops. Any other line starting with ':' is refused \
                and asked again; start a line with '::' to write one starting with ':'. Each answer \
                is saved at once, so nothing is lost when you stop, go back or go elsewhere. Works \
                with piped input too.

                It resumes at the first section not written yet (--from starts elsewhere). With \
                --name, the model of that name is walked, and created first when there is none. On a \
                store with no model yet, it asks for the business name first. A model with nothing \
                written yet starts with the intro: what the model is for and what the walk asks.

                Examples:
                  suite bmm walk --name "Acme Bakery"
                  printf 'Fresh bread by 7 am\\n.\\n.\\n:q\\n' | suite bmm walk
                """)

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Option(help: ArgumentHelp("Start at this section instead of the first one not written.", valueName: "section")) var from: SectionArgument?
        @Option(help: ArgumentHelp("Walk the model with this business name, creating it when missing.", valueName: "name"))
        var name: String?
        @Flag(help: "Use [x] and [!] instead of ✓ and !.") var ascii = false

        func run() throws {
            let store = try BMM.open(options)
            let reader = LineReader()
            var model: BusinessModel
            if name == nil, selection.name == nil, try store.models().isEmpty {
                // The first walk: what the model is, then the business name, then the sections.
                print(TextWrap.wrap(SectionCatalogue.about))
                print("")
                print("What is the business called? ", terminator: "")
                guard let answer = try reader.next(), !answer.allSatisfy({ $0.isWhitespace }) else {
                    print("")
                    throw CLIError.failed("no business name given; nothing was created (or: suite bmm walk --name NAME)")
                }
                model = try store.create(name: answer)
                print("Created '\(model.name)'.")
            } else if let name {
                // A store error here shows again, with its exit code, when creating.
                if let existing = try? store.use(named: name) {
                    model = existing
                } else {
                    model = try store.create(name: name)
                    print("Created '\(model.name)'.")
                }
            } else {
                model = try selection.model(in: store)
            }
            let order = SectionCatalogue.guidedOrder
            let written = order.filter { model.isAnswered($0) }.count
            // Resumes at the first section not written yet; with all written, from the start.
            var index = from.flatMap { order.firstIndex(of: $0.id) } ?? order.firstIndex { !model.isAnswered($0) } ?? 0
            var saved = 0
            print("Business model: \(model.name)")
            if written == 0 {
                // A new model starts with the intro (the seed's INTRO page).
                print("")
                print(TextWrap.wrap(SectionCatalogue.introduction))
            } else if from == nil {
                print(TextWrap.wrap(written == order.count
                    ? "All \(order.count) sections are written; starting at \(order[index].title)."
                    : "Resuming at \(order[index].title) (\(written) of \(order.count) written)."))
            }
            while index < order.count {
                let id = order[index]
                // The seed's Back button, labelled with the previous view's short title.
                let previous = index > 0 ? SectionCatalogue.section(order[index - 1]) : nil
                let prompt = "Your answer (end with '.' alone; empty keeps the text;\(previous.map { " ':b' back to \($0.title);" } ?? "") ':q' stops; ':g SECTION' goes to a section):"
                print("")
                print("── \(index + 1)/\(order.count)\(previous.map { " · ':b' ← \($0.shortID.uppercased()) \($0.title)" } ?? "") ──")
                print(Show.page(model: model, id: id, ascii: ascii))
                print("")
                print(TextWrap.wrap(prompt))
                var lines: [String] = []
                var move: Move?
                while move == nil, let line = try reader.next() {
                    if line == "." { move = .next; break }
                    guard line.hasPrefix(":") else { lines.append(line); continue }
                    if line.hasPrefix("::") { lines.append(String(line.dropFirst())); continue }
                    // From a pipe or a file nobody can be asked again: a line that is no walk
                    // command stops the walk before this section is saved (its text would be
                    // lost otherwise).
                    if !Terminal.stdinIsTerminal, Self.command(line) == nil || Self.command(line) == .section(nil) {
                        throw CLIError.badInput("'\(VisibleText.visible(String(line.prefix(80)), oneLine: true))' is not a walk command; "
                            + "\(id.title) was not saved (write '::' to start a line with ':')")
                    }
                    switch Self.command(line) {
                    case .some(.section(nil)):
                        let name = Self.argument(of: line)
                        print(TextWrap.wrap("\(name.isEmpty ? "':g' needs a section" : "'\(name)' is not a section"); nothing was saved from that line. "
                            + "Sections: \(order.map(\.shortID).joined(separator: ", ")), or their titles."))
                        print(TextWrap.wrap(prompt))
                    case .some(let command):
                        move = command
                    case nil:
                        print(TextWrap.wrap("'\(line)' is not a walk command; nothing was saved from that line. \(Self.commandsHelp)"))
                        print(TextWrap.wrap(prompt))
                    }
                }
                // End of input: save what was typed, then stop.
                let answer = lines.joined(separator: "\n")
                if SectionEntry.isAnswered(answer) && answer != model.text(of: id) {
                    model = try store.save(text: answer, section: id, in: model.id)
                    saved += 1
                    print("Saved \(id.title).")
                }
                switch move ?? .stop {
                case .stop:
                    index = order.count
                case .back:
                    if previous == nil { print("This is the first section: there is none before it.") } else { index -= 1 }
                case .section(let target):
                    index = target.flatMap { order.firstIndex(of: $0) } ?? index
                case .next:
                    index += 1
                }
            }
            print("")
            print(TextWrap.wrap("\(saved) section\(saved == 1 ? "" : "s") saved. \(BMM.completenessLine(model))"))
        }

        /// Where an answer leads: the next section, back, to a section (nil: not a section), or out.
        enum Move: Equatable {
            case next, back, stop
            case section(SectionID?)
        }

        static let commandsHelp = "Walk commands, on a line of their own: '.' ends the answer, ':b' goes back, "
            + "':g SECTION' goes to a section (vp, \"customer needs\" …), ':q' stops; "
            + "start a line with '::' to write one starting with ':'."

        /// The walk command a line starting with ':' holds, nil when it holds none.
        static func command(_ line: String) -> Move? {
            let words = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            switch words.first.map(String.init) {
            case ":q" where words.count == 1: return .stop
            case ":b" where words.count == 1: return .back
            case ":g", ":goto": return .section(SectionCatalogue.lookup(argument(of: line)))
            default: return nil
            }
        }

        /// What follows a walk command's word, trimmed.
        static func argument(of line: String) -> String {
            let words = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            return words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : ""
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit a section in $VISUAL or $EDITOR.",
            discussion: """
                The file opens with the current text; lines starting with '#|' describe the section \
                and are removed when you save. If the editor fails, nothing changes.

                Example:
                  EDITOR=nano suite bmm edit vp
                """)

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Argument(help: ArgumentHelp("The section (id, short id or title).", valueName: "section")) var section: SectionArgument

        static let commentPrefix = "#|"

        func run() throws {
            let store = try BMM.open(options)
            let model = try selection.model(in: store)
            let environment = Terminal.environment
            guard let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap({ $0 }).first(where: { !$0.isEmpty })
                ?? (Terminal.stdinIsTerminal ? "vi" : nil) else {
                throw CLIError.usage("no editor: set $VISUAL or $EDITOR, or use 'suite bmm set'")
            }
            let info = SectionCatalogue.section(section.id)
            var template = model.text(of: section.id)
            if !template.isEmpty && !template.hasSuffix("\n") { template += "\n" }
            template += "\n" + ([
                "\(info.title) (\(info.shortID) · \(info.level.rawValue)) — \(model.name)",
                info.summary,
            ] + info.prompts + ["Lines starting with '\(Self.commentPrefix)' are removed. Save and quit to keep your text."])
                .map { "\(Self.commentPrefix) \($0)" }.joined(separator: "\n") + "\n"

            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("suite-edit-\(getpid())-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("\(info.shortID).md")
            try AtomicFile.write(Data(template.utf8), to: file.path)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\(editor) \"$1\"", "suite-editor", file.path]
            Terminal.prepare(process)
            do {
                try process.run()
            } catch {
                throw CLIError.unavailable("cannot start the editor '\(editor)': \(error.localizedDescription)")
            }
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CLIError.failed("the editor '\(editor)' exited with status \(process.terminationStatus); \(info.title) was not changed")
            }
            let edited = try Terminal.utf8(Terminal.readFile(file.path, limit: Terminal.textLimit), source: "the edited file")
            let text = edited.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix(Self.commentPrefix) }
                .joined(separator: "\n")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if text == model.text(of: section.id).trimmingCharacters(in: .whitespacesAndNewlines) {
                print("\(info.title) unchanged.")
                return
            }
            let updated = try store.save(text: text, section: section.id, in: model.id)
            print("Saved \(info.title). \(BMM.completenessLine(updated))")
        }
    }
}
