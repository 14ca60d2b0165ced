import ArgumentParser
import BundleCore
import Foundation
import SuiteEnvironment

/// `suite bundle`: todos tied to trigger events, bundled into a run when the moment comes.
struct BundleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Todos tied to trigger events, bundled when the moment comes.",
        discussion: """
            Jot errands down against a situation ("before I go to the bank"). When the situation \
            comes, check in: choose the todos to do in this run, work through the bundle, complete \
            it, and review it later.

            Example:
              suite bundle add "Get the agreement signed" --before "go to Eastern branch" --deadline 2026-12-01
              suite bundle checkin "go to Eastern branch" --about-to --all
              suite bundle done 1 && suite bundle complete
            """,
        subcommands: [
            Add.self, Todos.self, Edit.self, Move.self, Drop.self, Reopen.self, Remove.self, Events.self, CheckIn.self,
            Current.self, Show.self, Done.self, ThrowBack.self, Pull.self, Rename.self,
            Icon.self, Complete.self, Abandon.self, ReviewBundles.self, Due.self, Upcoming.self, Remind.self, RoutineGroup.self,
            Attach.self, Attachments.self, Detach.self,
            Export.self, Import.self,
        ]
    )
}

extension InterchangeFormat: ExpressibleByArgument {}
extension Preposition: ExpressibleByArgument {}

enum Bundles {
    /// Opens the store; `readOnly` for commands that only read (nothing is written to disk).
    static func open(_ options: some StoreOptions, readOnly: Bool = false) throws -> BundleStore {
        try BundleStore(url: options.storeFile(BundleStore.fileName), readOnly: readOnly)
    }

    static var timeZone: TimeZone { .current }

    /// The todo a command-line reference names: its number (`12`, `#12`), its uuid, or a prefix
    /// of its uuid of 8 or more characters that no other todo has.
    static func todo(_ reference: String, in store: BundleStore) throws -> Todo {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        let number = trimmed.hasPrefix("#") ? String(trimmed.dropFirst()) : trimmed
        do {
            if let id = Int64(number), id > 0 { return try store.todo(Todo.ID(id)) }
            return try store.todo(uuidPrefix: trimmed)
        } catch BundleError.todoNotFound, BundleError.todoUUIDNotFound {
            throw CLIError.failed("no todo \(trimmed) (see 'suite bundle list --all')")
        }
    }

    /// The bundle a command-line reference names: its number (`3`, `#3`) or its uuid.
    static func bundle(_ reference: String, in store: BundleStore) throws -> TodoBundle {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        let number = trimmed.hasPrefix("#") ? String(trimmed.dropFirst()) : trimmed
        do {
            if let id = Int64(number), id > 0 { return try store.bundle(TodoBundle.ID(id)) }
            if let uuid = UUID(uuidString: trimmed) { return try store.bundle(uuid: uuid) }
        } catch BundleError.bundleNotFound, BundleError.bundleUUIDNotFound {
        }
        throw CLIError.failed("no bundle \(trimmed) (see 'suite bundle review')")
    }

    static func line(_ todo: Todo, now: Date = Date()) -> String { line(todo.summary, now: now) }

    /// The check-in as a person says it: "I'm about to" / "I just finished" (`person: "you"`:
    /// "you are about to" / "you have just finished").
    static func saying(_ direction: CheckInDirection, person: String = "I") -> String {
        switch direction {
        case .aboutTo: return person == "I" ? "I'm about to" : "\(person) are about to"
        case .justFinished: return person == "I" ? "I just finished" : "\(person) have just finished"
        }
    }

    /// A deadline as people read it: a day as `2026-12-01`, a time as the README's time for
    /// people (``PeopleTime``: local, `Thu 2026-12-03 16:00`); `--json` keeps RFC 3339.
    static func deadline(_ deadline: Deadline, in timeZone: TimeZone = timeZone) -> String {
        switch deadline {
        case .day: return deadline.description
        case .time(let date): return PeopleTime.stamp(date, in: timeZone)
        }
    }

    /// `#12 text (after event) [due 2026-12-01] [in bundle #3]`.
    static func line(_ todo: TodoSummary, now: Date = Date()) -> String {
        var line = ""
        appendLine(todo, now: now, to: &line)
        return line
    }

    /// Appends ``line(_:now:)`` to `line`.
    static func appendLine(_ todo: TodoSummary, now: Date, to line: inout String) {
        var labels = DeadlineLabels(now: now, timeZone: timeZone)
        appendLine(todo, labels: &labels, to: &line)
    }

    /// Appends ``line(_:now:)`` to `line`, its deadline labelled by `labels` (one for a whole list).
    static func appendLine(_ todo: TodoSummary, labels: inout DeadlineLabels, to line: inout String) {
        line += "#"
        line += todo.id.description
        line += " "
        line += todo.text
        if let event = todo.eventName {
            line += " ("
            line += todo.preposition == .none ? "with" : todo.preposition.rawValue
            line += " "
            line += event
            line += ")"
        }
        if let deadline = todo.deadline { line += labels.label(deadline, status: todo.status) }
        if todo.status == .inBundle, let bundle = todo.bundleID { line += " [in bundle #" + bundle.description + "]" }
        if todo.status == .done { line += " [done]" }
        if todo.status == .dropped { line += " [dropped]" }
    }

    /// The `[due …]` / `[overdue: …]` labels of a list, each worked out once: a list has few distinct
    /// deadlines, and each costs a calendar computation and a formatted date.
    struct DeadlineLabels {
        let now: Date
        /// The time zone, looked up at the first deadline: a list without any does not load the
        /// zone's rules (about a millisecond).
        private let zone: () -> TimeZone
        private var timeZone: TimeZone?
        /// By deadline: the label of a todo still to do, and of one that is not.
        private var known: [Deadline: (open: String, finished: String)] = [:]

        init(now: Date, timeZone: @escaping @autoclosure () -> TimeZone) {
            self.now = now
            self.zone = timeZone
        }

        /// The label of `deadline` on a todo with `status`: overdue when the deadline has passed and
        /// the todo is still to do (the rule of ``TodoSummary/isOverdue(at:timeZone:)``).
        mutating func label(_ deadline: Deadline, status: TodoStatus) -> String {
            let labels: (open: String, finished: String)
            if let found = known[deadline] {
                labels = found
            } else {
                let timeZone = self.timeZone ?? zone()
                let text = Bundles.deadline(deadline, in: timeZone)
                let due = " [due " + text + "]"
                self.timeZone = timeZone
                labels = (deadline.hasPassed(at: now, in: timeZone) ? " [overdue: " + text + "]" : due, due)
                known[deadline] = labels
            }
            return status.isOpen ? labels.open : labels.finished
        }
    }

    static func describe(_ bundle: TodoBundle) -> String {
        var lines = ["\(bundle.icon) \(bundle.title)  (bundle #\(bundle.id), \(bundle.direction.phrase) \(bundle.eventName), \(bundle.status.rawValue))"]
        for item in bundle.items {
            let mark: String
            switch item.outcome {
            case .open: mark = "[ ]"
            case .done: mark = "[x]"
            case .thrownBack: mark = "[<]"
            }
            let elsewhere = item.alsoIn.map { " (also in bundle #\($0): checked in on two devices at once)" } ?? ""
            lines.append("  \(mark) #\(item.todo.id) \(item.todo.text)\(item.todo.deadline.map { " [due \(Bundles.deadline($0))]" } ?? "")\(elsewhere)")
        }
        if bundle.status == .open {
            lines.append(bundle.canComplete ? "All done or thrown back: 'suite bundle complete' files it." : "Mark todos with 'done ID' or 'throwback ID'; 'pull ID' adds another.")
        }
        return lines.joined(separator: "\n")
    }

    /// Parses `2d`, `12h`, `30m`, `1w` (or a plain number of days).
    static func duration(_ text: String) throws -> TimeInterval {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: Double] = ["m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        let unit = trimmed.last.flatMap { units[$0] } ?? 86_400
        let number = trimmed.last.map { units[$0] != nil } == true ? String(trimmed.dropLast()) : trimmed
        guard let value = Double(number), value >= 0, value.isFinite, value <= 36_500 else {
            throw CLIError.usage("invalid duration '\(text)': use a number with m, h, d or w, like 2d")
        }
        return value * unit
    }

    /// A moment typed for `option` (`--since`, `--until`), in every time option's forms
    /// (``TimeOption``): a day is its start in the local time zone.
    static func day(_ text: String, option: String) throws -> Date {
        try TimeOption.moment(text, option: option, timeZone: timeZone)
    }
}

/// `--bundle N`: act on this bundle instead of the newest open one.
struct BundleSelection: ParsableArguments {
    @Option(name: .customLong("bundle"), parsing: .unconditional, help: ArgumentHelp("The bundle (default: the newest open one).", valueName: "n"))
    var reference: String?

    func bundle(in store: BundleStore) throws -> TodoBundle {
        if let reference { return try Bundles.bundle(reference, in: store) }
        return try store.currentBundle()
    }
}

/// `--before E`, `--after E`, `--when E` or `--event E`: a trigger event and a preposition.
struct TriggerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Do it before this event.", valueName: "event")) var before: String?
    @Option(help: ArgumentHelp("Do it after this event.", valueName: "event")) var after: String?
    @Option(help: ArgumentHelp("Do it when this event happens.", valueName: "event")) var when: String?
    @Option(help: ArgumentHelp("Tie it to this event with no preference of timing.", valueName: "event")) var event: String?
    @Flag(help: "Create the event even though it looks like an existing one.") var newEvent = false

    var chosen: (event: String, preposition: Preposition)? {
        if let before { return (before, .before) }
        if let after { return (after, .after) }
        if let when { return (when, .when) }
        if let event { return (event, .none) }
        return nil
    }

    func validate() throws {
        if [before, after, when, event].compactMap({ $0 }).count > 1 {
            throw ValidationError("give one of --before, --after, --when or --event")
        }
    }
}
