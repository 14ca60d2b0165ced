import Foundation
import SuiteStorage

/// `suite sync --watch`: syncs now, then after every change here (polled every 20 ms: a cheap
/// read of what waits to be sent), whenever the server's event stream says another device
/// pushed, and at least every few seconds (changes elsewhere arrive even without the stream);
/// stops on SIGINT or SIGTERM.
struct SyncWatch {
    let folder: URL
    var account: SyncAccount
    /// The longest wait between two syncs when nothing changes here.
    var interval: TimeInterval = 5

    init(folder: URL, account: SyncAccount) {
        self.folder = folder
        self.account = account
    }

    func run() async throws {
        var account = account
        let stop = StopSignal()
        let events = ServerEvents(server: account.server, token: account.token)
        defer { events?.stop() }
        // Opened once: the loop below only reads what waits to be sent.
        let opened = try SyncCommand.openAll(folder: folder)
        say("Watching \(opened.map(\.log).joined(separator: ", ")) in \(folder.path) with \(account.server.absoluteString) as \(account.account); "
              + "syncing after each change here and each one elsewhere. Ctrl-C stops.")
        var failures = 0
        var last = Date.distantPast
        while !stop.requested {
            // What to sync: the stores with changes waiting here, the logs the server's events
            // named, and everything now and then (also when the event stream is down).
            var logs = events?.takeLogs() ?? []
            for (log, store) in opened where try store.pendingCount() > 0 { logs.insert(log) }
            let everything = Date().timeIntervalSince(last) >= interval
            if everything || !logs.isEmpty {
                do {
                    let outcomes = try await SyncCommand.sync(opened, account: account, only: everything ? nil : logs)
                    account.noteClock(outcomes)
                    account.lastError = SyncCommand.setAsideMessage(outcomes)
                    if let setAside = account.lastError { Terminal.printError("suite: \(setAside)") }
                    if everything, let community = await CommunitySync.runAfterLogs(folder: folder, account: &account),
                       let line = CommunitySync.summary(community) { say(line) }
                    account.lastSuccess = Date()
                    for outcome in outcomes where outcome.pushed + outcome.pulled + outcome.recovered > 0 {
                        say("\(outcome.store): sent \(outcome.pushed), received \(outcome.pulled)\(SyncCommand.setAsideNote(outcome))")
                    }
                    failures = 0
                } catch SyncClientError.signedOut {
                    throw SyncClientError.signedOut
                } catch let error as SyncClientError {
                    // Offline or busy: keep watching, waiting longer after each failure (up to
                    // a minute); the changes stay queued.
                    account.lastError = error.description
                    Terminal.printError("suite: \(error.description)")
                    failures += 1
                } catch SyncClockError.aheadOfServer(let by, let pending) {
                    // Received, but nothing sent until the clock is set right: keep watching.
                    account.noteClock(by)
                    account.lastError = ClockOffset.refusal(by: by, pending: pending)
                    Terminal.printError("suite: \(ClockOffset.refusal(by: by, pending: pending))")
                    failures += 1
                }
                // Logged out meanwhile: stop, and do not write the settings back.
                guard try SyncAccount.load(from: folder) != nil else { return }
                if everything || failures > 0 { try? account.save(in: folder) }
                if everything { last = Date() }
                if failures > 0 {
                    let wait = min(60, 0.5 * Double(1 << min(failures, 7)))
                    let until = Date().addingTimeInterval(wait)
                    while Date() < until && !stop.requested { try? await Task.sleep(nanoseconds: 50_000_000) }
                }
            }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }
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
