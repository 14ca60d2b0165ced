import Foundation
import SuiteEnvironment
import SuiteSync
import SuiteURLSession

/// The home page's sync part: what the folder syncs with and what waits, through SuiteSync's
/// `SyncClient` (the same as `suite sync`), and *Sync now*.
struct SyncPanel {
    let app: WebApp

    var client: SyncClient {
        SyncClient(folder: app.folder, stores: [app.bmm, app.places, app.quotes, app.bundles], http: URLSessionHTTPClient())
    }

    /// The template's values: `syncing`, `server`, `account`, `pending`, `lastSuccess`,
    /// `lastError`; `problem` when the status cannot be read.
    func values() async -> [String: Any] {
        do {
            let status = try await client.status()
            let waiting = status.stores.reduce(0) { $0 + $1.pending }
            var values: [String: Any] = [
                "syncing": status.isSyncing,
                "server": status.server?.absoluteString ?? "",
                "account": status.account ?? "",
                "pending": waiting == 0 ? "nothing waits to be sent" : "\(waiting) change\(waiting == 1 ? "" : "s") wait\(waiting == 1 ? "s" : "") to be sent",
                "lastSuccess": status.lastSuccess.map { PeopleTime.stamp($0) } ?? "never",
            ]
            if let error = status.lastError { values["lastError"] = error }
            return values
        } catch {
            return ["syncing": false, "problem": "\(error)"]
        }
    }

    /// Syncs every store now; the outcome is in the status (its last success or last error).
    func syncNow() async {
        _ = try? await client.sync()
    }
}
