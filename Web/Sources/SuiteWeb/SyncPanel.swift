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

    /// What the home page's sync part shows (its `sync`).
    struct View: TemplateValues {
        /// Whether the folder syncs; what follows is shown only then.
        var syncing: Bool
        var server = ""
        var account = ""
        /// What waits to be sent, in words.
        var pending = ""
        var lastSuccess = ""
        var lastError: String?
        /// Why the status cannot be read.
        var problem: String?
    }

    /// The status as the home page shows it.
    func view() async -> View {
        do {
            let status = try await client.status()
            let waiting = status.stores.reduce(0) { $0 + $1.pending }
            return View(
                syncing: status.isSyncing, server: status.server?.absoluteString ?? "", account: status.account ?? "",
                pending: waiting == 0 ? "nothing waits to be sent" : "\(waiting) change\(waiting == 1 ? "" : "s") wait\(waiting == 1 ? "s" : "") to be sent",
                lastSuccess: status.lastSuccess.map { PeopleTime.stamp($0) } ?? "never", lastError: status.lastError)
        } catch {
            return View(syncing: false, problem: "\(error)")
        }
    }

    /// Syncs every store now; the outcome is in the status (its last success or last error).
    func syncNow() async {
        _ = try? await client.sync()
    }
}
