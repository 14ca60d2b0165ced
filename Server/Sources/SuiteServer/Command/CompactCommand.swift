import ArgumentParser
import Foundation
import Logging

/// `suite-server compact [--data-dir DIR | --database URL] [--grace-days N]`.
package struct CompactCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Forget the operations compactions removed, and print what each log holds.",
        discussion: """
            Devices compact a log when the server asks (after a tenth more operations than the \
            last compaction kept): a device that has everything names the operations still \
            winning, and the server removes the others at once, keeping only their ids and \
            positions so that devices that read up to one of them go on from there. This \
            command forgets those ids once they are older than the grace period (a device \
            whose cursor pointed at one reads the log again from the start, and loses \
            nothing). `serve` does the same every hour. Run it while `serve` runs or not.
            """ + "\n\n" + EnvironmentOptions.help(for: "compact"))

    @OptionGroup package var place: StorageOptions

    @Option(name: .customLong("grace-days"), help: ArgumentHelp("Keep the ids of operations removed less than this many days ago.", valueName: "days"))
    package var graceDays: Double = CompactionService.defaultGraceDays

    package init() {}

    package func validate() throws {
        guard graceDays >= 0, graceDays.isFinite else { throw ValidationError("--grace-days must be 0 or more") }
    }

    package func run() async throws {
        try await place.withStorage { storage in try await compact(storage) }
    }

    private func compact(_ storage: any ServerStorage) async throws {
        let before = try await storage.logSizes()
        let forgotten = try await storage.forgetRemovedOperations(removedBefore: Date().addingTimeInterval(-graceDays * 86_400))
        let after = try await storage.logSizes()
        for size in after {
            let was = before.first { $0.account == size.account && $0.log == size.log }
            let forgot = forgotten.first { $0.account == size.account && $0.log == size.log }?.count ?? 0
            StandardOutput.writeLine("\(size.account)/\(size.log): head \(size.head), \(size.operations) operations, "
                + "\(size.removed) removed ids kept, \(forgot) forgotten now, compacted through \(size.compacted), "
                + "\(was?.bytes ?? size.bytes) → \(size.bytes) bytes")
        }
        StandardOutput.writeLine("forgot \(forgotten.reduce(0) { $0 + $1.count }) removed operations in \(forgotten.count) logs")
    }
}
