import Foundation
@_exported import SuiteStorage

/// Everything that can go wrong in `QuoteCore`, as values an app can switch on.
///
/// ``description`` is a short English sentence for logs; an app shows its own words for each case.
public enum QuoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No quote with that id.
    case quoteNotFound(Quote.ID)
    /// No note with that id (for this user).
    case noteNotFound(Note.ID)
    /// No not-to-do with that id (on this user's list).
    case notToDoNotFound(NotToDo.ID)
    /// Empty or over-long text, a line break in a one-line field, or a control character: which
    /// field (`FieldName.quoteText`, `FieldName.quoteNote` …) and what is wrong with it.
    case invalidText(InvalidText)
    /// The quote would duplicate `existing` (the same text and source, ignoring case and runs of
    /// white space). `edited` is the quote being changed, or nil when a new quote was being added.
    case duplicateQuote(existing: Quote.ID, edited: Quote.ID?)
    /// A search query with nothing to search for, or too many words.
    case invalidQuery(SearchProblem)
    /// A schedule that cannot work (bad time, window, time zone, count, a category that does not exist …).
    case invalidSchedule(ScheduleProblem)
    /// No quote to pick: why, and for which filter.
    case noQuotes(NoQuotesReason)
    /// The format of files to import cannot be told from their names and first bytes.
    case unknownImportFormat(ImportFormatProblem)
    /// A file to import is malformed; nothing was imported.
    case malformedImport(file: String, line: Int?, reason: String)
    /// An online service (Open Library) gave no useful answer: unreachable, refused, or an answer
    /// that is not in its format. `reason` says which.
    case serviceUnavailable(service: String, reason: String)
    /// An online service asked us to slow down (HTTP 429); try again later.
    case serviceRateLimited(service: String)
    /// The store could not be opened or used; `StoreError.kind` says why.
    case store(StoreError)

    /// Why a search query was refused.
    public enum SearchProblem: Sendable, Hashable, CustomStringConvertible {
        /// The query (as typed) holds no word: only punctuation, operators or white space.
        case noWords(query: String)
        /// The query has `count` different words once repeats are removed; at most `limit` are
        /// searched for at once.
        case tooManyWords(count: Int, limit: Int)

        /// "'*' has no words to search for".
        public var description: String {
            switch self {
            case .noWords(let query):
                let shown = query.count > 60 ? String(query.prefix(60)) + "…" : query
                return "'\(shown)' has no words to search for"
            case .tooManyWords(let count, let limit):
                return "the search has \(count) words once repeats are removed; at most \(limit) are searched for at once"
            }
        }
    }

    /// Why a schedule, or a part of one being read, was refused.
    public enum ScheduleProblem: Sendable, Hashable, CustomStringConvertible {
        /// An hour outside 0…23 or a minute outside 0…59.
        case notATimeOfDay(hour: Int, minute: Int)
        /// Text that is not a time like `09:00`.
        case unreadableTime(String)
        /// Text that is not a range like `22:00-07:00`.
        case unreadableRange(String)
        /// Text that is neither a list of times nor `N between HH:MM-HH:MM [jitter M]`.
        case unreadableTimes(String)
        /// The `N` of `N between …` is not a number.
        case unreadableCount(String)
        /// The jitter is not a number of minutes.
        case unreadableJitter(String)
        /// A word that names no weekday.
        case unknownWeekday(String)
        /// A weekday list that names no day.
        case noWeekdaysIn(String)
        /// Not an IANA time zone identifier.
        case unknownTimeZone(String)
        /// No weekday (or one outside 1…7) chosen.
        case noWeekdays
        /// A stored time of day outside 00:00 to 23:59.
        case timeOutOfRange
        /// An empty list of fixed times.
        case noTimes
        /// `count` fixed times, more than `limit` a day.
        case tooManyTimes(Int, limit: Int)
        /// A count of quotes a day outside 1…`limit`.
        case countOutOfRange(Int, limit: Int)
        /// A window that ends before it starts (it must lie within one day).
        case windowEndsBeforeStart(TimeRange)
        /// A jitter outside 0…`limit` minutes.
        case jitterOutOfRange(Int, limit: Int)
        /// Every fixed time falls in these quiet hours: the schedule would never deliver.
        case everyTimeQuiet([TimeRange])
        /// The window falls in these quiet hours: the schedule would never deliver.
        case windowQuiet([TimeRange])
        /// The schedule's category is not in the store (when it is set).
        case unknownCategory(String)

        /// An English sentence: "25:00 is not a time of day (00:00 to 23:59)".
        public var description: String {
            switch self {
            case .notATimeOfDay(let hour, let minute):
                return String(format: "%02d:%02d is not a time of day (00:00 to 23:59)", hour, minute)
            case .unreadableTime(let text): return "'\(text)' is not a time like 09:00"
            case .unreadableRange(let text): return "'\(text)' is not a range like 22:00-07:00"
            case .unreadableTimes: return "expected 'N between HH:MM-HH:MM [jitter M]'"
            case .unreadableCount(let text): return "'\(text)' is not a number of quotes a day"
            case .unreadableJitter(let text): return "'\(text)' is not a number of minutes"
            case .unknownWeekday(let text): return "'\(text)' is not a weekday"
            case .noWeekdaysIn(let text): return "no weekdays in '\(text)'"
            case .unknownTimeZone(let identifier): return "unknown time zone '\(identifier)' (use an IANA name like Europe/Berlin)"
            case .noWeekdays: return "no weekdays chosen"
            case .timeOutOfRange: return "a time of day outside 00:00 to 23:59"
            case .noTimes: return "no times given"
            case .tooManyTimes(_, let limit): return "at most \(limit) times a day"
            case .countOutOfRange(let count, let limit): return "the count must be 1 to \(limit), not \(count)"
            case .windowEndsBeforeStart(let window): return "the window \(window) ends before it starts (it must lie within one day)"
            case .jitterOutOfRange(_, let limit): return "jitter must be 0 to \(limit) minutes"
            case .everyTimeQuiet(let quiet):
                return "every time falls in the quiet hours (\(quiet.map(\.description).joined(separator: ", "))): it would never deliver"
            case .windowQuiet(let quiet):
                return "the window falls in the quiet hours (\(quiet.map(\.description).joined(separator: ", "))): it would never deliver"
            case .unknownCategory(let name): return "no category '\(name)'"
            }
        }
    }

    /// Why there is no quote to pick.
    public enum NoQuotesReason: Sendable, Hashable, CustomStringConvertible {
        /// The store holds no quote at all.
        case emptyCollection
        /// The filter names a category the store does not have.
        case unknownCategory(String)
        /// The filter names a source the store does not have.
        case unknownSource(String)
        /// The categories and sources exist, but no quote matches the whole filter (favourites only,
        /// the user's own only …).
        case noMatch(QuoteFilter)

        /// "no quotes in category 'poetry'".
        public var description: String {
            switch self {
            case .emptyCollection: return "no quotes in the collection yet"
            case .unknownCategory(let name): return "no quotes in category '\(name)'"
            case .unknownSource(let name): return "no quotes from source '\(name)'"
            case .noMatch: return "no quotes match this filter"
            }
        }
    }

    /// Why the format of files to import could not be told (see
    /// ``QuoteImportFormat/detect(_:)-92xyd``).
    public enum ImportFormatProblem: Sendable, Hashable, CustomStringConvertible {
        /// Neither the name nor the first bytes of this file show its format.
        case unrecognised(URL)
        /// Not a regular file (a pipe, FIFO or device): its first bytes cannot be read without
        /// using them up, so it cannot be looked at before it is imported.
        case notRegularFile(URL)
        /// The file cannot be opened for reading.
        case unreadable(URL)
        /// The files are in different formats (none, for an empty list of files).
        case mixed([QuoteImportFormat])

        /// "cannot tell the format of quotes.txt".
        public var description: String {
            switch self {
            case .unrecognised(let url): return "cannot tell the format of \(url.relativePath)"
            case .notRegularFile(let url): return "cannot tell the format of \(url.relativePath) without reading it up"
            case .unreadable(let url): return "cannot tell the format of \(url.relativePath): it cannot be read"
            case .mixed(let formats): return "the files are in different formats (\(formats.map(\.rawValue).joined(separator: ", ")))"
            }
        }
    }

    /// One English sentence for logs.
    public var description: String {
        switch self {
        case .quoteNotFound(let id): return "no quote \(id)"
        case .noteNotFound(let id): return "no note \(id)"
        case .notToDoNotFound(let id): return "no not-to-do \(id)"
        case .invalidText(let invalid): return invalid.description
        case .duplicateQuote(_, let edited):
            return edited == nil ? "this quote is already in the collection" : "another quote has this text and source already"
        case .invalidQuery(let problem): return "invalid search: \(problem)"
        case .invalidSchedule(let problem): return "invalid schedule: \(problem)"
        case .noQuotes(let reason): return reason.description
        case .unknownImportFormat(let problem): return problem.description
        case .malformedImport(let file, let line, let reason):
            return "\(file)\(line.map { ":\($0)" } ?? ""): \(reason); nothing was imported"
        case .serviceUnavailable(let service, let reason): return "\(service) is unavailable: \(reason)"
        case .serviceRateLimited(let service): return "\(service) asks to slow down: try again in a minute"
        case .store(let error): return error.description
        }
    }
}

extension QuoteError: StoreFailureRepresentable {
    package init(storeFailure: StoreFailure) { self = .store(StoreError(storeFailure)) }
}

extension FieldName {
    /// A quote's words (text: at most ``QuoteStore/maximumTextLength`` UTF-8 bytes).
    public static let quoteText = FieldName(rawValue: "quote")
    /// A quote's source (one line).
    public static let quoteSource = FieldName(rawValue: "source")
    /// A quote's category (one line).
    public static let quoteCategory = FieldName(rawValue: "category")
    /// A quote's citation, the work it is from (one line).
    public static let quoteCitation = FieldName(rawValue: "citation")
    /// A note on a quote (text).
    public static let quoteNote = FieldName(rawValue: "note")
    /// A thing to avoid on the not-to-do list (one line).
    public static let quoteNotToDo = FieldName(rawValue: "not-to-do")
    /// The user whose favourites, notes, schedule and deliveries these are (one line).
    public static let quoteUserName = FieldName(rawValue: "user name")
}
