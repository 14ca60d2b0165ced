import ArgumentParser
import BundleCore
import Foundation
import SuiteStorage
import MotivationCore
import QuoteCore
import WorkplaceCore

/// `suite check`: SQLite's integrity check on every store in the store folder.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check every store in the store folder with SQLite's integrity check.",
        discussion: """
            Runs PRAGMA integrity_check on each store file present (bmm, places, quotes, bundle) \
            through a read-only connection, and compares its schema with the one suite makes: \
            nothing is written, created or repaired, and other suite processes may keep working. \
            Prints one line per store; exits 0 when all are healthy and 74 when one is not \
            (damaged, truncated, not a suite store, unreadable, or ALTERED: a trigger, view, \
            table or index suite does not make, or one it needs missing, each named).

            Examples:
              suite check
              suite check --json
            """)

    @OptionGroup var options: CommonOptions

    /// One store's result; `--json` prints `{"healthy": Bool, "stores": [StoreReport]}`.
    struct StoreReport: Encodable {
        /// The app: bmm, places, quotes or bundle.
        var store: String
        var path: String
        var healthy: Bool
        /// What is wrong: SQLite's integrity_check lines, or why the file cannot be checked.
        var problems: [String]
    }

    struct Report: Encodable {
        var healthy: Bool
        var stores: [StoreReport]
    }

    /// The stores, in the order they are checked, with the check of each.
    static var stores: [(name: String, fileName: String, check: (URL) throws -> [String])] { [
        ("bmm", BusinessModelStore.fileName, { try BusinessModelStore.checkIntegrity(at: $0) }),
        ("places", PlaceStore.fileName, { try PlaceStore.checkIntegrity(at: $0) }),
        ("quotes", QuoteStore.fileName, { try QuoteStore.checkIntegrity(at: $0) }),
        ("bundle", BundleStore.fileName, { try BundleStore.checkIntegrity(at: $0) }),
    ] }

    func run() throws {
        let folder = try options.storeFolder()
        var reports: [StoreReport] = []
        for store in Self.stores {
            let url = folder.appendingPathComponent(store.fileName)
            var info = stat()
            guard lstat(url.path, &info) == 0 else { continue }
            var problems: [String]
            do {
                problems = try store.check(url)
            } catch {
                problems = [ErrorReport.classify(error)?.1 ?? "\(error)"]
            }
            reports.append(StoreReport(store: store.name, path: url.path, healthy: problems.isEmpty, problems: problems))
        }
        let damaged = reports.filter { !$0.healthy }
        if options.json {
            try Terminal.printJSON(Report(healthy: damaged.isEmpty, stores: reports))
        } else if reports.isEmpty {
            print("No stores in \(folder.path).")
        } else {
            for report in reports {
                if report.healthy {
                    print("\(report.store): healthy (\(report.path))")
                } else if report.problems.allSatisfy({ $0.hasPrefix(StoreCheck.schemaPrefix) }) {
                    // A schema Suite did not make: SQL someone added (a trigger runs in every write).
                    let shown = report.problems.prefix(3).map { String($0.dropFirst(StoreCheck.schemaPrefix.count)) }.joined(separator: "; ")
                    let more = report.problems.count > 3 ? "; and \(report.problems.count - 3) more" : ""
                    print("\(report.store): ALTERED (\(report.path)): \(shown)\(more)")
                } else {
                    let shown = report.problems.prefix(3).joined(separator: "; ")
                    let more = report.problems.count > 3 ? "; and \(report.problems.count - 3) more" : ""
                    print("\(report.store): DAMAGED (\(report.path)): \(shown)\(more)")
                }
            }
        }
        guard damaged.isEmpty else {
            let names = damaged.map(\.store).joined(separator: ", ")
            throw CLIError.io("\(damaged.count) of \(reports.count) store\(reports.count == 1 ? "" : "s") \(damaged.count == 1 ? "is" : "are") not healthy: \(names); "
                + "the files were left untouched (see 'Troubleshooting' in README)")
        }
    }
}
