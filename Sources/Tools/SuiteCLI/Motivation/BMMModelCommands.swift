import ArgumentParser
import Foundation
import MotivationCore

extension BMMCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Create a business model and make it current.",
            discussion: "Example:\n  suite bmm add \"Acme Bakery\"")

        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The business name.", valueName: "name")) var name: String

        func run() throws {
            try Self.create(name: name, options: options)
        }

        static func create(name: String, options: CommonOptions) throws {
            let model = try BMM.open(options).create(name: name)
            if options.json {
                try Terminal.printJSON(ModelLine(model: model, isCurrent: true))
            } else {
                print("Created '\(model.name)' (now current). Next: suite bmm walk")
            }
        }
    }

    /// `bmm new`, the older spelling of `add`: it still works for this release, and help does not show it.
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "The older spelling of 'add'.",
            shouldDisplay: false)

        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The business name.", valueName: "name")) var name: String

        func run() throws {
            try Add.create(name: name, options: options)
        }
    }
}

struct ModelLine: Encodable {
    let id: UUID
    let name: String
    let percent: Int
    let current: Bool
    let updatedAt: Date

    init(model: BusinessModel, isCurrent: Bool) {
        id = model.id; name = model.name; percent = model.completeness.percent; current = isCurrent
        updatedAt = model.updatedAt
    }

    init(summary: BusinessModelSummary) {
        id = summary.id; name = summary.name; percent = summary.percent; current = summary.isCurrent
        updatedAt = summary.updatedAt
    }
}

extension BMMCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the business models; * marks the current one.",
            discussion: "Example:\n  suite bmm list --json")

        @OptionGroup var options: CommonOptions

        func run() throws {
            let models = try BMM.open(options, readOnly: true).models()
            if options.json {
                try Terminal.printJSON(models.map(ModelLine.init(summary:)))
                return
            }
            if models.isEmpty {
                print("No business models yet. Create one: suite bmm add \"Business name\"")
                return
            }
            for model in models {
                print("\(model.isCurrent ? "*" : " ") \(model.isCurrent ? Colour.accent(model.name) : model.name)  \(BMM.percent(model.percent))")
            }
        }
    }

    struct Use: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "use",
            abstract: "Make another business model current.",
            discussion: "Example:\n  suite bmm use \"Acme Bakery\"")

        @OptionGroup var options: TextOptions
        @Argument(help: ArgumentHelp("The model's name.", valueName: "name")) var name: String

        func run() throws {
            let model = try BMM.open(options).use(named: name)
            print("Now working on '\(model.name)'.")
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Change the business name of a model: the current one, or the one named first.",
            usage: "suite bmm rename [<old-name>] <new-name>",
            discussion: """
                With one name, the current model (or the --model one) gets it; with two, the model \
                named first gets the second.

                Examples:
                  suite bmm rename "Acme Bakery & Café"
                  suite bmm rename "Acme Bakery" "Acme Bakery & Café"
                """)

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Argument(help: ArgumentHelp("The model's name (the current one when left out), then the new business name.", valueName: "name"))
        var names: [String] = []

        func validate() throws {
            guard (1...2).contains(names.count) else {
                throw ValidationError("give the new name, or the model's name and then the new name")
            }
            if names.count == 2, selection.name != nil {
                throw ValidationError("name the model once: --model NAME NEW-NAME, or OLD-NAME NEW-NAME")
            }
        }

        func run() throws {
            let store = try BMM.open(options)
            let model = names.count == 2 ? try store.model(named: names[0]) : try selection.model(in: store)
            let renamed = try store.rename(model.id, to: names[names.count - 1])
            print("Renamed '\(model.name)' to '\(renamed.name)'.")
        }
    }

    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy",
            abstract: "Copy the current model, with its history, under a new name; the copy becomes current.",
            discussion: "Example:\n  suite bmm copy \"Acme Bakery (online only)\"")

        @OptionGroup var options: TextOptions
        @OptionGroup var selection: ModelOption
        @Argument(help: ArgumentHelp("The copy's name.", valueName: "new-name")) var newName: String

        func run() throws {
            let store = try BMM.open(options)
            let model = try selection.model(in: store)
            let copy = try store.duplicate(model.id, as: newName)
            print("Copied '\(model.name)' to '\(copy.name)' (now current).")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a business model and its history ('delete' works too).",
            discussion: "Asks for confirmation on a terminal; otherwise needs --yes.\n\nExample:\n  suite bmm remove \"Old idea\" --yes",
            aliases: ["delete"])

        @OptionGroup var options: TextOptions
        @Argument(help: ArgumentHelp("The model's name.", valueName: "name")) var name: String
        @Flag(name: .shortAndLong, help: "Remove without asking.") var yes = false

        func run() throws {
            let store = try BMM.open(options)
            let model = try store.model(named: name)
            try Confirmation.require("Remove '\(model.name)' and all its history?", yes: yes)
            try store.delete(model.id)
            print("Removed '\(model.name)'.")
        }
    }
}
