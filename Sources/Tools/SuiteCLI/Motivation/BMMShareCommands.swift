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

                With --mail, the document goes by e-mail: handed to the desktop's mail program \
                (xdg-email, as an attachment), or with -o written as a message file (.eml, \
                RFC 5322) that a mail program opens as a draft. Neither possible: exit 69.

                Examples:
                  suite bmm export --format markdown -o acme.md
                  suite bmm export --format html -o acme.html
                  suite bmm export --format json > acme.json
                  suite bmm export --format html --mail partner@example.org
                  suite bmm export --mail partner@example.org -o acme.eml
                """)

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Option(help: ArgumentHelp("markdown, html, text, json or canvas.", valueName: "format")) var format: BMMFormat = .markdown
        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write to this file instead of stdout ('-' is stdout; a device or FIFO is written into, never replaced).", valueName: "file"))
        var output: String?
        @Flag(help: "Share even though the business name or Value Proposition is missing.") var force = false
        @Option(help: ArgumentHelp("E-mail it to this address (the desktop's mail program, or with -o a .eml message file).", valueName: "address"))
        var mail: String?

        func run() throws {
            let store = try BMM.open(options, readOnly: true)
            let model = try selection.model(in: store)
            let warnings = format == .json ? [] : try BMMShare.check(model, force: force)
            let data = try BMMShare.render(model, format: format, store: store)
            if let mail {
                try BMMMail.send(data, format: format, model: model, to: mail, output: output)
            } else {
                try Terminal.emit(data, to: output)
            }
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
            abstract: "What the model is, who made it, and what this tool does.",
            discussion: "The text is wrapped to the terminal's width, or to $COLUMNS when it is set.")

        func run() { print(TextWrap.wrap(Self.text)) }

        /// What the model is, what this tool does and what the walk asks.
        static var text: String { SectionCatalogue.about + "\n\n" + SectionCatalogue.introduction }
    }
}

/// SHARE by e-mail: a message file, or the desktop's mail program with the document attached.
enum BMMMail {
    static func fileName(_ model: BusinessModel, format: BMMFormat) -> String {
        let base = model.name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let slug = String(base).split(separator: "-").joined(separator: "-")
        let ext = ["markdown": "md", "html": "html", "text": "txt", "json": "json", "canvas": "txt"][format.rawValue] ?? "txt"
        return (slug.isEmpty ? "business-model" : slug) + "." + ext
    }

    static func mediaType(_ format: BMMFormat) -> String {
        switch format {
        case .markdown: "text/markdown; charset=utf-8"
        case .html: "text/html; charset=utf-8"
        case .text, .canvas: "text/plain; charset=utf-8"
        case .json: "application/json"
        }
    }

    static func send(_ document: Data, format: BMMFormat, model: BusinessModel, to address: String, output: String?) throws {
        let name = fileName(model, format: format)
        let subject = "Business model: \(model.name)"
        let completeness = model.completeness
        let body = "The business model of \(model.name) is attached (\(name)): \(completeness.done.count) of \(SectionCatalogue.sections.count) sections written.\n"
        let message: MailMessage
        do {
            message = try MailMessage(to: address, subject: subject, body: body, attachmentName: name, attachmentType: mediaType(format), attachment: document)
        } catch {
            throw CLIError.usage("invalid --mail: \(VisibleText.visible(error.description, oneLine: true))")
        }
        if let output {
            try Terminal.emit(message.rendered(date: Date()), to: output,
                              note: ", a message to \(message.to) with \(name) attached (open it in your mail program)")
            return
        }
        let environment = Terminal.environment
        let desktop = environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
        guard desktop, let program = Executables.find("xdg-email") else {
            throw CLIError.unavailable("no desktop mail program to hand it to (xdg-email in a desktop session): write the message with -o FILE.eml")
        }
        // The attachment must outlive this run (the mail program reads it later): a private
        // folder in the user's cache.
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
        let folder = cache + "/suite/mail"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = folder + "/" + name
        try AtomicFile.write(document, to: file)
        let process = Process()
        process.executableURL = program
        process.arguments = ["--utf8", "--subject", subject, "--body", body, "--attach", file, message.to]
        Terminal.prepare(process)
        do {
            try process.run()
        } catch {
            throw CLIError.unavailable("cannot run \(program.path): \(error.localizedDescription); write the message with -o FILE.eml")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError.unavailable("xdg-email failed with status \(process.terminationStatus); write the message with -o FILE.eml")
        }
        print("Handed a message to \(message.to) with \(name) attached to your mail program.")
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
