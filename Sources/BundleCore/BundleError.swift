import Foundation
@_exported import SuiteStorage

/// Everything that can go wrong in `BundleCore`, as values an app can branch on.
///
/// ``description`` is a short English sentence for logs; it names no command or option.
public enum BundleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No todo with that id.
    case todoNotFound(Todo.ID)
    /// No todo whose interchange uuid starts with that prefix (none, or more than one).
    case todoUUIDNotFound(String)
    /// No bundle with that id.
    case bundleNotFound(TodoBundle.ID)
    /// No bundle with that interchange uuid.
    case bundleUUIDNotFound(UUID)
    /// No event with that id (merged or removed meanwhile).
    case eventNotFound(TriggerEvent.ID)
    /// No open bundle to act on.
    case noOpenBundle
    /// No event matches the phrase; `suggestions` are the nearest existing ones.
    case unknownEvent(String, suggestions: [String])
    /// The phrase is close to an existing event, which is probably what was meant.
    case similarEvent(String, existing: String)
    /// An event with that name or alias exists already.
    case duplicateEvent(String)
    /// No routine of that name.
    case routineNotFound(String)
    /// No attachment with that id.
    case attachmentNotFound(TodoAttachment.ID)
    /// A link that is not one, or a file that cannot be attached (missing, not a regular file,
    /// too large, unreadable): the text says which.
    case invalidAttachment(String)
    /// A routine of that name exists already.
    case duplicateRoutine(String)
    /// Empty or over-long text, a line break in a one-line field, or a control character.
    case invalidText(InvalidText)
    /// An unreadable deadline, or a day that does not exist.
    case invalidDeadline(String)
    /// The operation does not fit the todo's, bundle's or event's state.
    case conflict(Conflict)
    /// A file to import is malformed; nothing was imported.
    case malformedImport(format: String, line: Int?, reason: String)
    /// The store could not be opened or used; ``StoreError/kind`` says why.
    case store(StoreError)

    public var description: String {
        switch self {
        case .todoNotFound(let id): return "no todo #\(id)"
        case .todoUUIDNotFound(let prefix): return "no todo \(prefix)"
        case .bundleNotFound(let id): return "no bundle #\(id)"
        case .bundleUUIDNotFound(let uuid): return "no bundle \(uuid.uuidString.lowercased())"
        case .eventNotFound(let id): return "no trigger event #\(id)"
        case .noOpenBundle: return "no open bundle"
        case .unknownEvent(let phrase, let suggestions):
            return suggestions.isEmpty
                ? "no trigger event '\(phrase)'"
                : "no trigger event '\(phrase)'; did you mean \(suggestions.map { "'\($0)'" }.joined(separator: " or "))?"
        case .similarEvent(let phrase, let existing):
            return "'\(phrase)' looks like the existing event '\(existing)'"
        case .duplicateEvent(let name): return "a trigger event '\(name)' exists already"
        case .routineNotFound(let name): return "no routine '\(name)'"
        case .attachmentNotFound(let id): return "no attachment #\(id)"
        case .invalidAttachment(let reason): return reason
        case .duplicateRoutine(let name): return "a routine '\(name)' exists already"
        case .invalidText(let invalid): return invalid.description
        case .invalidDeadline(let text):
            return "invalid deadline '\(text)': use YYYY-MM-DD or YYYY-MM-DDTHH:MM with a real date"
        case .conflict(let conflict): return conflict.description
        case .malformedImport(let format, let line, let reason):
            return "malformed \(format) file\(line.map { " at line \($0)" } ?? ""): \(reason); nothing was imported"
        case .store(let error): return error.description
        }
    }

    /// Why an operation does not fit the state of what it acts on.
    public enum Conflict: Sendable, Hashable, CustomStringConvertible {
        /// A todo `before`, `after` or `when` needs a trigger event.
        case triggerNeeded(Preposition)
        /// Only a pending todo can do `action`; this one is `status` (in `bundle` while bundled).
        case todoNotPending(Todo.ID, status: TodoStatus, bundle: TodoBundle.ID?, action: TodoAction)
        /// The todo is in an open bundle: throw it back through the bundle first.
        case todoInOpenBundle(Todo.ID, bundle: TodoBundle.ID, action: TodoAction)
        /// A check-in with a routine whose todo is still in an open bundle.
        case routineTodoInOpenBundle(Todo.ID, bundle: TodoBundle.ID, routine: String)
        /// Reopening a todo that is not done or dropped.
        case todoNotFinished(Todo.ID)
        /// Marking done a todo that is done already.
        case todoAlreadyDone(Todo.ID)
        /// Marking done a todo that was dropped (reopen it first).
        case todoDropped(Todo.ID)
        /// A check-in chose no todo.
        case noTodosChosen
        /// A check-in chose the same todo twice.
        case todoChosenTwice(Todo.ID)
        /// A check-in chose a todo the event and direction do not offer.
        case todoNotOffered(Todo.ID, event: String, direction: CheckInDirection, reason: NotOffered)
        /// The todo is not in that bundle.
        case todoNotInBundle(Todo.ID, bundle: TodoBundle.ID)
        /// The todo is already done or thrown back in that bundle.
        case todoAlreadyFinished(Todo.ID, bundle: TodoBundle.ID, outcome: BundleItemOutcome)
        /// Pulling a todo of another event (or of none) into a bundle.
        case todoOfAnotherEvent(Todo.ID, event: String?, bundleEvent: String)
        /// Completing a bundle with todos still open.
        case bundleHasOpenTodos(TodoBundle.ID, open: [Todo.ID])
        /// Only an open bundle can change.
        case bundleNotOpen(TodoBundle.ID, status: BundleStatus)
        /// Merging an event into itself.
        case sameEvent(String, String)

        /// What was being done to a todo.
        public enum TodoAction: String, Sendable, Hashable {
            case move, finish, pull, remove, reopen
        }

        /// Why a check-in does not offer a todo.
        public enum NotOffered: Sendable, Hashable {
            /// It is tied to another event, or none (nil).
            case otherEvent(String?)
            /// It is not pending.
            case status(TodoStatus)
            /// Its preposition does not fit the direction.
            case preposition(Preposition)
        }

        public var description: String {
            switch self {
            case .triggerNeeded(let preposition):
                return "a todo '\(preposition.rawValue)' needs a trigger event"
            case .todoNotPending(let id, let status, let bundle, let action):
                switch action {
                case .pull:
                    let place = status == .inBundle ? " in bundle #\(bundle.map(String.init(describing:)) ?? "0")" : ""
                    return "todo #\(id) is \(status.rawValue)\(place); only pending todos can be pulled in"
                case .finish:
                    let hint = status == .inBundle ? " (it is in bundle #\(bundle.map(String.init(describing:)) ?? "0"))" : ""
                    return "todo #\(id) is \(status.rawValue)\(hint)"
                default:
                    return "todo #\(id) is \(status.rawValue); only pending todos can \(action.rawValue)"
                }
            case .todoInOpenBundle(let id, let bundle, let action):
                return "todo #\(id) is in the open bundle #\(bundle): throw it back \(action == .reopen ? "instead" : "first")"
            case .routineTodoInOpenBundle(let id, let bundle, let routine):
                return "todo #\(id) of the routine '\(routine)' is still in the open bundle #\(bundle): complete or abandon that bundle first"
            case .todoNotFinished(let id):
                return "todo #\(id) is not finished; nothing to reopen"
            case .todoAlreadyDone(let id):
                return "todo #\(id) is done already"
            case .todoDropped(let id):
                return "todo #\(id) was dropped"
            case .noTodosChosen:
                return "choose at least one todo for the bundle"
            case .todoChosenTwice:
                return "a todo was chosen twice"
            case .todoNotOffered(let id, let event, let direction, let reason):
                let why: String
                switch reason {
                case .otherEvent(let name): why = "it is tied to \(name.map { "'\($0)'" } ?? "no event")"
                case .status(let status): why = "it is \(status.rawValue)"
                case .preposition(let preposition): why = "it is for \(preposition.rawValue)"
                }
                return "todo #\(id) is not offered when you \(direction == .aboutTo ? "are about to" : "have just finished") \(event) (\(why))"
            case .todoNotInBundle(let id, let bundle):
                return "todo #\(id) is not in bundle #\(bundle)"
            case .todoAlreadyFinished(let id, let bundle, let outcome):
                return "todo #\(id) is already \(outcome == .done ? "done" : "thrown back") in bundle #\(bundle)"
            case .todoOfAnotherEvent(let id, let event, let bundleEvent):
                return "todo #\(id) is tied to \(event.map { "'\($0)'" } ?? "no event"), not '\(bundleEvent)'"
            case .bundleHasOpenTodos(let id, let open):
                return "bundle #\(id) still has open todos (\(open.map { "#\($0)" }.joined(separator: ", "))): mark them done or throw them back first"
            case .bundleNotOpen(let id, let status):
                return "bundle #\(id) is \(status.rawValue); only an open bundle can change"
            case .sameEvent(let source, let target):
                return "'\(source)' and '\(target)' are the same event"
            }
        }
    }
}

extension BundleError: StoreFailureRepresentable {
    package init(storeFailure: StoreFailure) { self = .store(StoreError(storeFailure)) }
}

extension FieldName {
    /// A todo's text.
    public static let todoText = FieldName(rawValue: "todo text")
    /// A todo's notes.
    public static let note = FieldName(rawValue: "note")
    /// A trigger event's phrase.
    public static let eventPhrase = FieldName(rawValue: "event phrase")
    /// Another phrase for an event.
    public static let alias = FieldName(rawValue: "alias")
    /// A bundle's title.
    public static let bundleTitle = FieldName(rawValue: "bundle title")
    /// A bundle's icon.
    public static let icon = FieldName(rawValue: "icon")
    /// A routine's name (one line).
    public static let routineName = FieldName(rawValue: "routine name")
}
