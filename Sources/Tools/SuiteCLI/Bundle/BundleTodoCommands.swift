import ArgumentParser
import BundleCore
import Foundation
import SuitePush

extension BundleCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Write a todo down, tied to a trigger event.",
            discussion: """
                An unknown event is created, unless it looks like an existing one (then --new-event).

                Examples:
                  suite bundle add "Get the agreement signed" --before "go to Eastern branch" --deadline 2026-12-01
                  suite bundle add "Water the plant" --after "come back from work"
                  suite bundle add "Renew passport"
                  suite bundle add "Sign the lease" --before "go to the agency" --link https://example.org/lease --attach lease.pdf
                """)

        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("What to do.", valueName: "text")) var text: String
        @OptionGroup var trigger: TriggerOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("A day (YYYY-MM-DD) or a time (YYYY-MM-DDTHH:MM).", valueName: "when")) var deadline: String?
        @Option(help: ArgumentHelp("Notes.", valueName: "text")) var notes: String?
        @Option(help: ArgumentHelp("A link (http, https, mailto, ftp or file URL; repeat for more).", valueName: "url")) var link: [String] = []
        @Option(help: ArgumentHelp("A file to attach: copied into the store's folder (up to 20 MiB; repeat for more).", valueName: "file"))
        var attach: [String] = []

        func run() throws {
            let parsedDeadline = try deadline.map { try Deadline.parse($0, timeZone: Bundles.timeZone) }
            // Links and files are checked before anything is written.
            let links = try link.map { try BundleStore.validatedLink($0) }
            let files = try attach.map { path in
                guard FileManager.default.fileExists(atPath: path) else { throw CLIError.missingFile(path) }
                let url = URL(fileURLWithPath: path)
                try BundleStore.checkAttachable(url)
                return url
            }
            let store = try Bundles.open(options)
            #if DEBUG
            // The crash harness's negative control: acknowledge before committing, so that a kill
            // in between loses an acknowledged todo and the harness must notice. Debug builds only.
            if Terminal.environment["SUITE_TEST_UNSAFE_EARLY_ACK"] != nil {
                Terminal.write(Data("ACK \(text)\n".utf8))
                CLIContext.current.standardOutput.flush()
                Thread.sleep(forTimeInterval: 2)
            }
            #endif
            // The todo, its links and its files are written together, or nothing is.
            let todo = try store.addTodo(
                text, event: trigger.chosen?.event, preposition: trigger.chosen?.preposition ?? .none,
                deadline: parsedDeadline, notes: notes ?? "", allowNewEvent: trigger.newEvent, links: links, files: files)
            if options.json { try Terminal.printJSON(todo); return }
            print("Added \(Bundles.line(todo))")
            if !links.isEmpty || !files.isEmpty {
                print("With \(links.count) link\(links.count == 1 ? "" : "s") and \(files.count) file\(files.count == 1 ? "" : "s") ('suite bundle attachments \(todo.id)').")
            }
        }
    }

    struct Todos: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List todos grouped by trigger event ('todos' is the older name).",
            discussion: "Pending and bundled todos; --all adds done and dropped ones.\n\nExample:\n  suite bundle list --event \"go to Eastern branch\"",
            aliases: ["todos"])

        @OptionGroup var options: CommonOptions
        @Option(name: .customLong(.event), help: ArgumentHelp("Only this event's todos.", valueName: "event")) var event: String?
        @Flag(name: .customLong(.all), help: "Include done and dropped todos.") var all = false

        func run() throws { try Self.run(options.plain, event: event, all: all) }

        static func run(_ options: PlainStoreOptions, event: String?, all: Bool) throws {
            let store = try Bundles.open(options, readOnly: true)
            if options.json { try Terminal.printJSON(store.todos(event: event, includeFinished: all)); return }
            let todos = try store.todoSummaries(event: event, includeFinished: all)
            if todos.isEmpty { print("No todos\(event.map { " for '\($0)'" } ?? "").") ; return }
            var lastEvent: String?? = .none
            let now = Date()
            var lines = LinePrinter()
            var labels = Bundles.DeadlineLabels(now: now, timeZone: Bundles.timeZone)
            // By index: each summary is read in place, not copied.
            for index in todos.indices {
                if lastEvent != .some(todos[index].eventName) {
                    lines.print(todos[index].eventName ?? "(no event)")
                    lastEvent = .some(todos[index].eventName)
                }
                lines.print { line in
                    line += "  "
                    Bundles.appendLine(todos[index], labels: &labels, to: &line)
                }
            }
            lines.flush()
        }
    }

    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Change a todo's trigger: another event and/or preposition.",
            discussion: "Examples:\n  suite bundle move 4 --after \"go to Eastern branch\"\n  suite bundle move 4 --prep when")

        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "id")) var id: String
        @OptionGroup var trigger: TriggerOptions
        @Option(help: ArgumentHelp("Only change the preposition: before, after, when or none.", valueName: "prep")) var prep: Preposition?

        func validate() throws {
            if trigger.chosen == nil && prep == nil { throw ValidationError("give a new trigger (--before/--after/--when/--event) or --prep") }
            if trigger.chosen != nil && prep != nil { throw ValidationError("--prep goes alone; --before/--after/--when already set it") }
        }

        func run() throws {
            let store = try Bundles.open(options)
            let todo = try store.moveTodo(
                Bundles.todo(id, in: store).id, event: trigger.chosen?.event, preposition: trigger.chosen?.preposition ?? prep, allowNewEvent: trigger.newEvent)
            if options.json { try Terminal.printJSON(todo) } else { print("Moved \(Bundles.line(todo))") }
        }
    }

    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "drop",
            abstract: "Give up a pending todo.",
            discussion: "Example:\n  suite bundle drop 7")

        @OptionGroup var options: TextOptions
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "id")) var id: String

        func run() throws {
            let store = try Bundles.open(options)
            let todo = try store.finishTodo(Bundles.todo(id, in: store).id, as: .dropped)
            print("Dropped \(Bundles.line(todo))")
        }
    }

    struct Due: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "due",
            abstract: "Todos whose deadline passes soon (overdue ones first).",
            discussion: "Example:\n  suite bundle due --within 2d")

        @OptionGroup var options: CommonOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("How far ahead: 30m, 12h, 2d, 1w.", valueName: "duration")) var within = "1d"

        func run() throws {
            let interval = try Bundles.duration(within)
            let todos = try Bundles.open(options, readOnly: true).dueSoon(within: interval, timeZone: Bundles.timeZone)
            if options.json { try Terminal.printJSON(todos); return }
            if todos.isEmpty { print("Nothing due within \(within).") }
            todos.forEach { print(Bundles.line($0)) }
        }
    }

    struct Remind: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remind",
            abstract: "Send due-soon todos to the desktop, each at most once a day; 'remind install' sets up a timer.",
            subcommands: [Send.self, Install.self],
            defaultSubcommand: Send.self)

        struct Install: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "install",
                abstract: "Run 'suite bundle remind' every 15 minutes: a systemd user timer, or --cron prints a crontab line.",
                discussion: "Example:\n  suite bundle remind install --within 2h && systemctl --user enable --now suite-bundle-remind.timer")
            @OptionGroup var options: TextOptions
            @Option(parsing: .unconditional, help: ArgumentHelp("How far ahead: 30m, 12h, 2d, 1w.", valueName: "duration")) var within = "1d"
            @Flag(help: "Print a crontab line instead.") var cron = false

            func run() throws {
                _ = try Bundles.duration(within)
                // The store folder in use now, absolute (a timer has no $SUITE_HOME, another folder).
                let store = try options.storeFolder().standardizedFileURL.path
                let arguments = [TimerScripts.binaryPath(), "bundle", "remind", "--within", within, "--store-dir", store]
                try TimerScripts.install(name: "suite-bundle-remind", summary: "Remind of todos due soon (suite bundle)", arguments: arguments,
                                         calendar: "*:0/15", cronTimes: "*/15 * * * *", cron: cron)
            }
        }
    }
}

extension BundleCommand.Remind {
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Send due-soon todos to the desktop (notify-send), each at most once a day (the default).",
            discussion: """
                Safe to run from a timer or cron: a todo is reminded of once per day at most, a \
                calendar event's time (see 'events import') once, when it starts within --within and \
                has todos tied to it ("before Dentist at 15:00: 2 todos"). Without a desktop session \
                (or notify-send), or with --stdout, reminders are printed instead. Every browser \
                subscribed in the web app's settings gets them as push notifications too.

                Example (crontab):
                  */15 * * * * suite bundle remind --within 2h
                """)

        @OptionGroup var options: TextOptions
        @Option(parsing: .unconditional, help: ArgumentHelp("How far ahead: 30m, 12h, 2d, 1w.", valueName: "duration")) var within = "1d"
        @Flag(help: "Print instead of notifying.") var stdout = false

        func run() async throws {
            let pushes = try remind()
            // After the desktop's: a slow push service never delays it.
            let folder = try options.storeFolder()
            for push in pushes { await PushDelivery.send(push, folder: folder) }
        }

        /// Reminds on the desktop or standard output; what browsers get.
        private func remind() throws -> [PushNotification] {
            let interval = try Bundles.duration(within)
            let store = try Bundles.open(options)
            let todos = try store.takeReminders(within: interval, timeZone: Bundles.timeZone)
            // Calendar events with todos tied to them: "before Dentist at 15:00: 2 todos".
            let events = try store.takeEventReminders(within: interval)
            let environment = Terminal.environment
            let desktop = environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil || environment["DBUS_SESSION_BUS_ADDRESS"] != nil
            let notifier = (stdout || !desktop) ? nil : Executables.find("notify-send")
            var pushes: [PushNotification] = []
            func send(_ title: String, _ body: String, printed: String, tag: String) {
                if !Notifier.send(title, body, with: notifier) { print(printed) }
                pushes.append(PushNotification(title: title, body: body, url: "/bundle", tag: tag))
            }
            for event in events {
                let title = Bundles.reminder(event)
                let lines = event.todos.map { Bundles.line($0) }
                send(title, lines.joined(separator: "\n"), printed: ([title] + lines.map { "  " + $0 }).joined(separator: "\n"), tag: "event-\(event.eventID.rawValue)")
            }
            for todo in todos {
                let body = Bundles.line(todo)
                send("Due soon", body, printed: body, tag: "todo-\(todo.id.rawValue)")
            }
            return pushes
        }
    }
}

extension BundleCommand {
    struct Attach: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attach", abstract: "Add a link or a file to a todo (files are copied into the store's folder, up to 20 MiB).",
            discussion: "Examples:\n  suite bundle attach 4 --link https://example.org/form\n  suite bundle attach 4 --file form.pdf")
        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "todo")) var todo: String
        @Option(help: ArgumentHelp("A link.", valueName: "url")) var link: String?
        @Option(help: ArgumentHelp("A file.", valueName: "file")) var file: String?

        func validate() throws {
            if (link == nil) == (file == nil) { throw ValidationError("give --link or --file") }
        }

        func run() throws {
            if let file, !FileManager.default.fileExists(atPath: file) { throw CLIError.missingFile(file) }
            let store = try Bundles.open(options)
            let id = try Bundles.todo(todo, in: store).id
            let attachment = try link.map { try store.addLink($0, to: id) } ?? store.attachFile(at: URL(fileURLWithPath: file ?? ""), to: id)
            if options.json { try Terminal.printJSON(attachment) } else { print("Attached #\(attachment.id.rawValue) to todo #\(id.rawValue): \(Bundles.describe(attachment))") }
        }
    }

    struct Attachments: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attachments", abstract: "A todo's links and files.",
            discussion: "Example:\n  suite bundle attachments 4 --json")
        @OptionGroup var options: CommonOptions
        @Argument(help: ArgumentHelp("The todo's number.", valueName: "todo")) var todo: String

        func run() throws {
            let store = try Bundles.open(options, readOnly: true)
            let attachments = try store.attachments(of: try Bundles.todo(todo, in: store).id)
            if options.json { try Terminal.printJSON(attachments); return }
            if attachments.isEmpty { print("No links or files on todo #\(todo): 'suite bundle attach \(todo) --link URL'."); return }
            for attachment in attachments { print("#\(attachment.id.rawValue)  \(Bundles.describe(attachment))") }
        }
    }

    struct Detach: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "detach", abstract: "Remove a link or file from its todo (the store's copy of a file goes too).",
            discussion: "Example:\n  suite bundle detach 7")
        @OptionGroup var options: TextOptions
        @Argument(help: ArgumentHelp("The attachment's number ('suite bundle attachments TODO').", valueName: "attachment")) var attachment: String

        func run() throws {
            guard let number = Int64(attachment), number > 0 else { throw CLIError.usage("'\(VisibleText.visible(attachment, oneLine: true))' is not an attachment number") }
            let removed = try Bundles.open(options).removeAttachment(TodoAttachment.ID(number))
            print("Removed #\(number) from todo #\(removed.todoID.rawValue).")
        }
    }
}

extension Bundles {
    /// "link https://…" or "file lease.pdf (12 KB) at /…/attachments/…".
    static func describe(_ attachment: TodoAttachment) -> String {
        switch attachment.kind {
        case .link: return "link \(VisibleText.visible(attachment.link ?? "", oneLine: true))"
        case .file:
            let size = ByteCountFormatter.string(fromByteCount: Int64(attachment.size ?? 0), countStyle: .file)
            return "file \(VisibleText.visible(attachment.fileName ?? "", oneLine: true)) (\(size)) at \(VisibleText.visible(attachment.storedPath ?? "", oneLine: true))"
        }
    }
}
