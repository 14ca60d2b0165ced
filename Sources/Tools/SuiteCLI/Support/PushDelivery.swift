import Foundation
import SuitePush

/// The desktop's notifications: `notify-send`.
enum Notifier {
    /// Shows `title` and `body` with `notifier` (notify-send); false when there is none or it failed,
    /// so the caller prints instead.
    static func send(_ title: String, _ body: String, with notifier: URL?) -> Bool {
        guard let notifier else { return false }
        let process = Process()
        process.executableURL = notifier
        process.arguments = ["--app-name=suite", title, body]
        Terminal.prepare(process)
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// Deliveries to the browsers subscribed in the web app's settings (Web Push), by the command that
/// delivers (`suite quotes tick`, `suite bundle remind`).
enum PushDelivery {
    /// Sends `notification` to every browser subscribed in `folder`: all at once, each with a
    /// timeout and retries; a failure is a line on stderr and changes nothing else. A folder where
    /// no browser ever subscribed costs one `stat`.
    static func send(_ notification: PushNotification, folder: URL) async {
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(PushStore.fileName).path) else { return }
        // What was printed is out before any push service is asked.
        CLIContext.current.standardOutput.flush()
        do {
            let store = try PushStore(folder: folder)
            let outcomes = try await PushSender(client: CurlHTTPClient()).send(notification, store: store)
            for case .failed(let reason) in outcomes.sorted(by: { $0.key.absoluteString < $1.key.absoluteString }).map(\.value) {
                Terminal.printError("suite: a push notification was not delivered: \(reason)")
            }
        } catch {
            Terminal.printError("suite: push notifications: \(error)")
        }
    }
}
