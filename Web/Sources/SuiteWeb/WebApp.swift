import BundleCore
import Foundation
import HTTPTypes
import Hummingbird
import MotivationCore
import QuoteCore
import SuitePush
import SuiteURLSession
import SuiteEnvironment
import WorkplaceCore

/// The local web app: the four apps' screens over the same store folder as the `suite` command.
package final class WebApp: Sendable {
    package let folder: URL
    package let secrets: WebSecrets
    /// This run's token on loopback, or a password sign-in off it.
    package let access: WebAccess
    let bmm: BusinessModelStore
    let quotes: QuoteStore
    let bundles: BundleStore
    let places: PlaceStore
    let live = LiveUpdates()
    let fetchJobs = FetchJobs()
    /// The browsers that get notifications, and the VAPID key (``WebPush``).
    let push: PushStore
    let pushSender: PushSender
    /// The places map's tiles and Leaflet.
    let map: WebMap
    /// Whose favourites, notes and schedule: the user the CLI uses (`$USER`, else `$LOGNAME`).
    let user: String

    /// Opens (creating when missing) the stores in `folder`.
    package init(folder: URL, secrets: WebSecrets = WebSecrets(), access: WebAccess = .token, map: WebMap = .standard()) async throws {
        self.folder = folder
        self.secrets = secrets
        self.access = access
        self.map = map
        bmm = try await BusinessModelStore.open(at: folder.appendingPathComponent(BusinessModelStore.fileName))
        quotes = try await QuoteStore.open(at: folder.appendingPathComponent(QuoteStore.fileName))
        bundles = try await BundleStore.open(at: folder.appendingPathComponent(BundleStore.fileName))
        places = try await PlaceStore.open(at: folder.appendingPathComponent(PlaceStore.fileName))
        push = try PushStore(folder: folder)
        pushSender = PushSender(client: URLSessionHTTPClient())
        user = SuiteEnvironment().user()
        live.watch(self)
    }

    /// The routes, behind the guard (see ``WebGuard``) for `hosts`.
    package func router(hosts: @escaping @Sendable () -> Set<String>) -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        WebGuard.install(on: router, secrets: secrets, hosts: hosts, access: access)
        access.signIn?.register(on: router, secrets: secrets)
        WebPush(app: self).register(on: router)
        router.get("/") { [self] _, _ in
            WebPage.page(HomePage(storeDir: folder.path, sync: await SyncPanel(app: self).view()), title: "Suite", app: "", secrets: secrets)
        }
        router.post("/sync") { [self] _, _ in
            await SyncPanel(app: self).syncNow()
            return WebPage.redirect("/")
        }
        router.get("/events") { [live] _, _ in live.response() }
        router.get("/live.js") { _, _ in WebAssets.response(ByteBuffer(string: WebScript.live), type: "text/javascript; charset=utf-8") }
        router.get("/map.js") { _, _ in WebAssets.response(ByteBuffer(string: WebScript.map), type: "text/javascript; charset=utf-8") }
        // Debian's Leaflet, by name from a fixed list (see ``LeafletFiles``).
        router.get("/leaflet/{file}") { [map] _, context in
            guard let name = context.parameters.get("file"), let file = map.leaflet?.files[name] else {
                throw HTTPError(.notFound, message: "no such file")
            }
            return WebAssets.response(ByteBuffer(bytes: file.data), type: file.contentType)
        }
        router.get("/suite.css") { _, _ in WebAssets.response(ByteBuffer(string: WebStyle.css), type: "text/css; charset=utf-8") }
        WebInstall.register(on: router, secrets: secrets)
        BMMPages(app: self).register(on: router)
        QuotePages(app: self).register(on: router)
        BundlePages(app: self).register(on: router)
        PlacePages(app: self).register(on: router)
        return router
    }

    /// The `Host` values a server listening on `host:port` accepts.
    package static func hosts(host: String, port: Int) -> Set<String> {
        var names: Set<String> = [host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"]
        if host == "127.0.0.1" || host == "::1" { names.insert("localhost:\(port)") }
        return names
    }
}

/// The home page's values: the apps, the store folder and the sync part.
struct HomePage: WebViewModel {
    static let template = "home"
    let storeDir: String
    let sync: SyncPanel.View
}

/// The page script (`Resources/live.js`): nothing needs it (every page works without JavaScript);
/// it keeps a text field's unsaved words across a reload, follows changes made elsewhere and
/// marks bundle icons no font here draws.
enum WebScript {
    static let live = WebTemplates.text(PackageResources.live_js)
}
