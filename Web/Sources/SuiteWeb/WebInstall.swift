import Foundation
import HTTPTypes
import Hummingbird

/// What makes the web app an app a phone keeps on its home screen: the web app manifest (name,
/// icons, theme colour, standalone display, start URL and a shortcut to each app), the icons, a
/// service worker that keeps the app shell and an offline page, and that page. None of them holds
/// anything of the person's, so the browser may fetch them without this run's token.
enum WebInstall {
    /// The paths served without the token (``TokenGuard``).
    static let publicPaths = Set(["/manifest.webmanifest", "/sw.js", "/offline"] + icons.keys.map { "/icons/" + $0 })

    /// The icons: an SVG for browsers that take one, and PNGs at the sizes browsers ask for.
    static let icons: [String: (type: String, bytes: [UInt8])] = [
        "icon.svg": ("image/svg+xml", PackageResources.icon_svg),
        "icon-192.png": ("image/png", PackageResources.icon_192_png),
        "icon-512.png": ("image/png", PackageResources.icon_512_png),
    ]

    /// Suite's colour (`--accent` in the style sheet), as the browser's bar and splash screen show it.
    static let themeColor = "#0a5fc4"

    /// The manifest (W3C "Web Application Manifest").
    static let manifest: String = {
        let apps = WebPage.apps.map { id, label in ["name": label, "short_name": label, "url": "/\(id)"] }
        let object: [String: Any] = [
            "name": "Suite", "short_name": "Suite", "id": "/", "start_url": "/", "scope": "/", "display": "standalone",
            "description": "Your business model, places to work, quotes and bundled todos.",
            "theme_color": themeColor, "background_color": themeColor,
            "icons": [
                ["src": "/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"],
                ["src": "/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"],
                ["src": "/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"],
                ["src": "/icons/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"],
            ],
            "shortcuts": apps,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }()

    /// The service worker (`Resources/sw.js`), with the shell's current addresses; its cache's
    /// name changes with them, so a new version replaces the old shell.
    static let serviceWorker: String = {
        let shell = WebAssets.styleURL + WebAssets.scriptURL + WebAssets.version(WebTemplates.text(PackageResources.offline_mustache))
        return WebTemplates.text(PackageResources.sw_js)
            .replacingOccurrences(of: "{{version}}", with: WebAssets.version(shell))
            .replacingOccurrences(of: "{{styleURL}}", with: WebAssets.styleURL)
            .replacingOccurrences(of: "{{scriptURL}}", with: WebAssets.scriptURL)
    }()

    /// The offline page's (empty) values.
    struct Offline: WebViewModel {
        static let template = "offline"
    }

    static func register(on router: Router<WebContext>, secrets: WebSecrets) {
        router.get("/manifest.webmanifest") { _, _ in
            WebAssets.response(ByteBuffer(string: manifest), type: "application/manifest+json", cache: "no-cache")
        }
        // Checked with the app at every start of the browser, so a new version is found at once.
        router.get("/sw.js") { _, _ in
            WebAssets.response(ByteBuffer(string: serviceWorker), type: "text/javascript; charset=utf-8", cache: "no-cache")
        }
        router.get("/icons/{file}") { _, context in
            guard let name = context.parameters.get("file"), let icon = icons[name] else {
                throw HTTPError(.notFound, message: "no such icon")
            }
            return WebAssets.response(ByteBuffer(bytes: icon.bytes), type: icon.type, cache: "public, max-age=86400")
        }
        router.get("/offline") { _, _ in
            WebPage.page(Offline(), title: "Offline", app: "", secrets: secrets, formToken: false)
        }
    }
}
