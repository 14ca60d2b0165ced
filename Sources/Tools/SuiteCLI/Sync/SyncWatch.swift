import Foundation
import SuiteStorage
import SuiteSync

/// `suite sync --watch`: SuiteSync's watch (a sync after every change here, whenever the
/// server's event stream says another device pushed, and at least every few seconds), printed
/// line by line, with the community part after every full pass; stops on SIGINT or SIGTERM.
struct SyncWatch {
    let folder: URL
    /// The longest wait between two syncs when nothing changes here.
    var interval: Duration = .seconds(5)

    init(folder: URL) {
        self.folder = folder
    }

    func run() async throws {
        let stop = StopSignal()
        // Opened once: the watch only reads what waits to be sent between syncs.
        let client = SyncCommand.client(folder: folder, stores: try SyncCommand.openAll(folder: folder))
        let events = client.watch(every: interval)
        let folder = self.folder
        let ended = EndFlag()
        let watching = Task {
            defer { ended.set() }
            for try await event in events {
                switch event.kind {
                case .watching:
                    say("Watching \(event.stores.joined(separator: ", ")) in \(folder.path) with \(event.server?.absoluteString ?? "?") as \(event.account ?? "?"); "
                          + "syncing after each change here and each one elsewhere. Ctrl-C stops.")
                case .synced:
                    guard let report = event.report else { continue }
                    if let setAside = report.setAsideMessage { Terminal.printError("suite: \(setAside)") }
                    for store in report.stores where store.sent + store.received + store.recovered > 0 {
                        say("\(store.log): sent \(store.sent), received \(store.received)\(SyncCommand.setAsideNote(store))")
                    }
                    if event.full, let community = await CommunitySync.runAfterLogsAndSave(folder: folder), let line = CommunitySync.summary(community) {
                        say(line)
                    }
                case .failed:
                    // Offline, busy or a clock too far ahead: SuiteSync waits and tries again.
                    if let error = event.error { Terminal.printError("suite: \(error.message)") }
                default:
                    continue
                }
            }
        }
        while !stop.requested && !ended.isSet {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        watching.cancel()
        do {
            try await watching.value
        } catch is CancellationError {
        } catch let error as SyncError where error.code == .notSyncing {
        }
    }
}

/// Set once the watch's task ended by itself (signed out, logged out, a store's error).
private final class EndFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Prints a line and writes it out: a watcher's output reaches a file, a pipe or the journal as
/// it happens (stdout into one is buffered in 64 KiB pieces).
private func say(_ line: String) {
    print(line)
    CLIContext.current.standardOutput.flush()
}

/// Set by SIGINT or SIGTERM.
final class StopSignal: @unchecked Sendable {
    nonisolated(unsafe) private static let flag = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)

    init() {
        Self.flag.pointee = 0
        signal(SIGINT) { _ in StopSignal.flag.pointee = 1 }
        signal(SIGTERM) { _ in StopSignal.flag.pointee = 1 }
    }

    var requested: Bool { Self.flag.pointee != 0 }
}
