import ArgumentParser
import Foundation
import MotivationCore

enum BMMFormat: String, ExpressibleByArgument, CaseIterable {
    case markdown, html, text, json, canvas
}

enum BMMShare {
    /// Applies the sharing rules: refuses without a name or Value Proposition unless forced.
    /// Returns the warnings to print on stderr once the model was shared.
    static func check(_ model: BusinessModel, force: Bool) throws -> [String] {
        let check = model.completeness.shareCheck
        try check.enforce(force: force)
        var warnings: [String] = []
        if !check.blocking.isEmpty {
            warnings.append("suite: warning: shared although the model lacks \(check.blocking.joined(separator: " and ")) (--force)")
        }
        if let warning = check.warningText {
            warnings.append("suite: warning: \(warning)")
        }
        return warnings
    }

    static func render(_ model: BusinessModel, format: BMMFormat, store: BusinessModelStore) throws -> Data {
        switch format {
        case .markdown: return Data(ModelRenderer.markdown(model).utf8)
        case .html: return Data(ModelRenderer.html(model).utf8)
        case .text: return Data(ModelRenderer.text(model).utf8)
        case .canvas: return Data(ModelRenderer.canvas(model).utf8)
        case .json: return try store.document(for: model.id).encoded()
        }
    }
}

extension BMMCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Share the model as Markdown, HTML, paginated text, JSON or a canvas view.",
            discussion: """
                A model without a business name or a Value Proposition is refused (exit 1) unless \
                --force; other unfinished sections are listed as a warning on stderr. JSON is the \
                backup and transfer format: it keeps every saved version, is never refused, and \
                'suite bmm import' reads it back exactly.

                Examples:
                  suite bmm export --format markdown -o acme.md
                  suite bmm export --format html -o acme.html
                  suite bmm export --format json > acme.json
                """)

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Option(help: ArgumentHelp("markdown, html, text, json or canvas.", valueName: "format")) var format: BMMFormat = .markdown
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout ('-' is stdout; a device or FIFO is written into, never replaced).", valueName: "file"))
        var output: String?
        @Flag(help: "Share even though the business name or Value Proposition is missing.") var force = false

        func run() throws {
            let store = try BMM.open(options, readOnly: true)
            let model = try selection.model(in: store)
            let warnings = format == .json ? [] : try BMMShare.check(model, force: force)
            let data = try BMMShare.render(model, format: format, store: store)
            try Terminal.emit(data, to: output)
            warnings.forEach(Terminal.printError)
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a model from JSON written by 'suite bmm export --format json'.",
            discussion: "A model whose name exists is refused unless --as gives a new name. Nothing is imported from a malformed file.\n\nExample:\n  suite bmm import acme.json --as \"Acme (copy)\"")

        @OptionGroup var options: TextOptions
        @Argument(help: ArgumentHelp("The JSON file ('-' for standard input).", valueName: "file")) var file: String
        @Option(name: .customLong("as"), help: ArgumentHelp("Import under this name (with a new id).", valueName: "name")) var newName: String?

        func run() throws {
            let data: Data
            if file == "-" {
                data = try Terminal.readStandardInput()
            } else {
                data = try Terminal.readFile(file)
            }
            let document: BusinessModelDocument
            do {
                document = try BusinessModelDocument.decode(data)
            } catch {
                throw CLIError.badInput("\(file): \(error.description)")
            }
            let store = try BMM.open(options)
            let model = try store.importDocument(document, as: newName)
            print("Imported '\(model.name)' (now current). \(BMM.completenessLine(model))")
        }
    }

    struct Print: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "print",
            abstract: "Print the model on paper through the system's print spooler (lp).",
            discussion: "Sends the paginated text of 'export --format text' to 'lp'. The same sharing rules as export apply.\n\nExample:\n  suite bmm print --printer Office_Laser")

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Option(help: ArgumentHelp("The printer (lp -d).", valueName: "name")) var printer: String?
        @Flag(help: "Print even though the business name or Value Proposition is missing.") var force = false

        func run() throws {
            let store = try BMM.open(options, readOnly: true)
            let model = try selection.model(in: store)
            let warnings = try BMMShare.check(model, force: force)
            guard let lp = Executables.find("lp") else {
                throw CLIError.unavailable("no 'lp' print spooler found (install cups-client); use 'suite bmm export --format text -o FILE' instead")
            }
            let process = Process()
            process.executableURL = lp
            process.arguments = (printer.map { ["-d", $0] } ?? []) + ["-t", "\(model.name) — business model"]
            Terminal.prepare(process)
            let pipe = Pipe()
            process.standardInput = pipe
            do {
                try process.run()
            } catch {
                throw CLIError.unavailable("cannot run \(lp.path): \(error.localizedDescription)")
            }
            pipe.fileHandleForWriting.write(Data(ModelRenderer.text(model).utf8))
            try? pipe.fileHandleForWriting.close()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CLIError.unavailable("lp failed with status \(process.terminationStatus); use 'suite bmm export --format text -o FILE' instead")
            }
            warnings.forEach(Terminal.printError)
            print("Sent '\(model.name)' to \(printer ?? "the default printer").")
        }
    }

    struct About: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "about",
            abstract: "What the model is, who made it, and what this tool does.")

        func run() { print(Self.text) }

        /// What the model is, what this tool does and what the walk asks.
        static var text: String { SectionCatalogue.about + "\n\n" + SectionCatalogue.introduction }
    }
}

/// Finds programs on $PATH.
enum Executables {
    static func find(_ name: String) -> URL? {
        let path = Terminal.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
