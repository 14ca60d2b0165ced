import ArgumentParser
import Foundation
import BundleCore
import MotivationCore
import QuoteCore
import SuiteStorage
import SuiteSync
import WorkplaceCore

/// Exit codes (sysexits-style), as documented in README.
enum ExitStatus {
    static let failure: Int32 = 1        // a refused or failed operation
    static let usage: Int32 = 64         // bad command line
    static let dataError: Int32 = 65     // bad input data
    static let noInput: Int32 = 66       // missing input file
    static let unavailable: Int32 = 69   // a remote service or a needed program is unavailable
    static let ioError: Int32 = 74       // store I/O or a corrupt store
    static let temporary: Int32 = 75     // busy past its timeout, rate limited
}

/// Errors raised by the CLI itself.
enum CLIError: Error, CustomStringConvertible {
    case usage(String)
    case badInput(String)
    case missingFile(String)
    case unavailable(String)
    case io(String)
    case failed(String)

    var exitCode: Int32 {
        switch self {
        case .usage: return ExitStatus.usage
        case .badInput: return ExitStatus.dataError
        case .missingFile: return ExitStatus.noInput
        case .unavailable: return ExitStatus.unavailable
        case .io: return ExitStatus.ioError
        case .failed: return ExitStatus.failure
        }
    }

    var description: String {
        switch self {
        case .usage(let text), .badInput(let text), .unavailable(let text), .io(let text), .failed(let text):
            return text
        case .missingFile(let path):
            return "no such file: \(path)"
        }
    }
}

/// The one place that turns an error into a stderr line and an exit code.
enum ErrorReport {
    static func report(_ error: any Error) -> Int32 {
        if let (code, message) = classify(error) {
            Terminal.printError("suite: \(message)")
            return code
        }
        let code = SuiteCommand.exitCode(for: error)
        if code == .success {
            // Help, --version, completion scripts: the full text goes to stdout.
            print(SuiteCommand.fullMessage(for: error))
            return 0
        }
        var message = oneLine(SuiteCommand.message(for: error))
        if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
        if message.isEmpty {
            return code.rawValue
        }
        let status = code == .validationFailure ? ExitStatus.usage : code.rawValue
        Terminal.printError("suite: \(message) (see --help)")
        return status
    }

    /// Folds ArgumentParser's multi-line messages ("one of the following:" and a bullet list)
    /// into one line.
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let first = lines.first else { return "" }
        let rest = lines.dropFirst().map { $0.hasPrefix("- ") ? String($0.dropFirst(2)) : $0 }
        return rest.isEmpty ? first : first + " " + rest.joined(separator: ", ")
    }

    /// Our own errors and the cores' errors, with their exit codes.
    static func classify(_ error: any Error) -> (Int32, String)? {
        switch error {
        case let error as CLIError:
            return (error.exitCode, error.description)
        case let error as MotivationError:
            return (exitCode(error), message(error))
        case let error as BundleError:
            return (exitCode(error), message(error))
        case let error as QuoteError:
            return (exitCode(error), message(error))
        case let error as WorkplaceError:
            return (exitCode(error), message(error))
        case let error as SyncError:
            switch error.code {
            case .unreachable, .serverBroken: return (ExitStatus.unavailable, error.message)
            case .busy: return (ExitStatus.temporary, error.message)
            case .badInput: return (ExitStatus.dataError, error.message)
            case .settings: return (ExitStatus.ioError, error.message)
            case .signedOut: return (ExitStatus.failure, "\(error.message): suite sync login …")
            default: return (ExitStatus.failure, error.message)
            }
        default:
            return nil
        }
    }

    static func exitCode(_ error: StoreError) -> Int32 {
        error.kind == .busy ? ExitStatus.temporary : ExitStatus.ioError
    }

    /// The line printed for a MotivationError: the core's sentence, with the command or flag
    /// that helps next.
    static func message(_ error: MotivationError) -> String {
        switch error {
        case .modelNotFound(let id): return "no business model named '\(id.uuidString)' (see 'suite bmm list')"
        case .noModelNamed(let name): return "no business model named '\(name)' (see 'suite bmm list')"
        case .noCurrentModel: return "\(error.description): create one with 'suite bmm add NAME'"
        case .invalidText(let invalid) where invalid.field == .businessName:
            return "invalid business name: \(invalid.problem.describe("name"))"
        case .invalidText(let invalid): return "invalid section text: \(invalid.problem.describe("text"))"
        case .versionNotFound(let section, _): return "\(error.description) (see 'suite bmm history \(section.shortID)')"
        case .notShareable: return "\(error.description); fill it in or use --force"
        case .duplicateName, .textTooLong, .malformedDocument, .store: return error.description
        }
    }

    static func exitCode(_ error: MotivationError) -> Int32 {
        switch error {
        case .modelNotFound, .noModelNamed, .duplicateName, .noCurrentModel, .versionNotFound, .notShareable:
            return ExitStatus.failure
        case .textTooLong, .invalidText, .malformedDocument:
            return ExitStatus.dataError
        case .store(let error):
            return exitCode(error)
        }
    }

    /// The core's sentence, with the commands and options that help on the command line.
    static func message(_ error: BundleError) -> String {
        switch error {
        case .todoNotFound, .todoUUIDNotFound:
            return "\(error) (see 'suite bundle list --all')"
        case .bundleNotFound, .bundleUUIDNotFound:
            return "\(error) (see 'suite bundle review')"
        case .eventNotFound:
            return "\(error) (see 'suite bundle events')"
        case .noOpenBundle:
            return "\(error): check in first with 'suite bundle checkin EVENT --about-to'"
        case .unknownEvent(_, let suggestions) where suggestions.isEmpty:
            return "\(error) (see 'suite bundle events')"
        case .similarEvent(let phrase, _):
            return "\(error); use that name, or --new-event to create '\(phrase)'"
        case .conflict(.todoDropped(let id)):
            return "\(error) ('suite bundle reopen \(id)' brings it back)"
        default:
            return error.description
        }
    }

    static func exitCode(_ error: BundleError) -> Int32 {
        switch error {
        case .todoNotFound, .todoUUIDNotFound, .bundleNotFound, .bundleUUIDNotFound, .eventNotFound, .noOpenBundle, .unknownEvent,
             .similarEvent, .duplicateEvent, .routineNotFound, .duplicateRoutine, .attachmentNotFound, .conflict:
            return ExitStatus.failure
        case .invalidText, .invalidDeadline, .malformedImport, .invalidAttachment:
            return ExitStatus.dataError
        case .store(let error):
            return exitCode(error)
        }
    }

    static func exitCode(_ error: QuoteError) -> Int32 {
        switch error {
        case .quoteNotFound, .noteNotFound, .notToDoNotFound, .noQuotes, .invalidSchedule(.unknownCategory):
            return ExitStatus.failure
        case .invalidText, .duplicateQuote, .malformedImport:
            return ExitStatus.dataError
        case .invalidQuery, .invalidSchedule, .unknownImportFormat:
            return ExitStatus.usage
        case .serviceUnavailable:
            return ExitStatus.unavailable
        case .serviceRateLimited:
            return ExitStatus.temporary
        case .store(let error):
            return exitCode(error)
        }
    }

    /// The line printed for a quote error: the core's sentence, with the command or option that
    /// helps where there is one.
    static func message(_ error: QuoteError) -> String {
        let giveFormat = "give --format fortune, json or csv"
        switch error {
        case .noQuotes(.emptyCollection):
            return "no quotes in the collection yet: import some with 'suite quotes import'"
        case .noQuotes(.unknownCategory(let name)):
            return "no quotes in category '\(name)' (see 'suite quotes categories')"
        case .noQuotes(.unknownSource(let name)):
            return "no quotes from source '\(name)' (see 'suite quotes sources')"
        case .invalidSchedule(.unknownCategory(let name)):
            return "no category '\(name)' (see 'suite quotes categories')"
        case .unknownImportFormat(.unrecognised(let url)):
            return "cannot tell the format of \(url.relativePath): \(giveFormat)"
        case .unknownImportFormat(.notRegularFile(let url)), .unknownImportFormat(.unreadable(let url)):
            return "cannot tell the format of \(url.relativePath) without reading it up: \(giveFormat)"
        case .unknownImportFormat(.mixed(let formats)):
            return "these files are in different formats (\(formats.map(\.rawValue).joined(separator: ", "))): import them one format at a time"
        default:
            return error.description
        }
    }

    static func exitCode(_ error: WorkplaceError) -> Int32 {
        switch error {
        case .placeNotFound, .addressNotFound:
            return ExitStatus.failure
        case .invalidCoordinate, .invalidRating, .invalidText, .malformedImport:
            return ExitStatus.dataError
        case .invalidQuery, .noLocation:
            return ExitStatus.usage
        case .missingAPIKey, .invalidAPIKey, .providerUnauthorized, .providerUnavailable:
            return ExitStatus.unavailable
        case .providerRateLimited:
            return ExitStatus.temporary
        case .store(let error):
            return exitCode(error)
        }
    }

    /// The line printed for a WorkplaceError: the core's sentence, with the command, flag or
    /// environment variable that helps next.
    static func message(_ error: WorkplaceError) -> String {
        switch error {
        case .noLocation: return "\(error.description): set one with 'suite places location set LAT,LON' or pass --at"
        case .missingAPIKey: return "\(error.description): set YELP_API_KEY (or use --provider osm)"
        case .invalidAPIKey: return "\(error.description): check YELP_API_KEY"
        case .placeNotFound, .invalidCoordinate, .invalidRating, .invalidText, .invalidQuery, .addressNotFound, .providerUnauthorized,
             .providerRateLimited, .providerUnavailable, .malformedImport, .store:
            return error.description
        }
    }
}
