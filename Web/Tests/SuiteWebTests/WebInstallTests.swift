import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SuiteWeb
import Testing

/// The web app as an installable app: the manifest, its icons, the service worker and the
/// offline page, served without the token (they hold nothing of the person's) while everything
/// else still needs it. Chromium's own verdict (no installability errors) is in check-web.
@Suite("Installing the web app")
struct WebInstallTests {
    @Test func theManifestItsIconsTheServiceWorkerAndTheOfflinePage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-install-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = try await WebApp(folder: folder)
        let session: HTTPFields = [.cookie: "\(WebGuard.cookieName)=\(web.secrets.token)"]
        try await Application(router: web.router(hosts: { ["localhost"] })).test(.router) { client in
            // The manifest, without the token.
            let answer = try await client.execute(uri: "/manifest.webmanifest", method: .get)
            #expect(answer.status == .ok && answer.headers[.contentType] == "application/manifest+json")
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any])
            #expect(manifest["name"] as? String == "Suite" && manifest["display"] as? String == "standalone")
            #expect(manifest["start_url"] as? String == "/" && manifest["scope"] as? String == "/")
            #expect(manifest["theme_color"] as? String == WebInstall.themeColor)
            let shortcuts = try #require(manifest["shortcuts"] as? [[String: Any]])
            #expect(shortcuts.compactMap { $0["url"] as? String } == ["/bmm", "/places", "/quotes", "/bundle"])
            for shortcut in shortcuts {
                let page = try await client.execute(uri: shortcut["url"] as? String ?? "", method: .get, headers: session)
                #expect(page.status == .ok, "\(shortcut)")
            }
            // Each icon is there, of its type and, for a PNG, of the size the manifest says.
            let icons = try #require(manifest["icons"] as? [[String: Any]])
            #expect(Set(icons.compactMap { $0["sizes"] as? String }).isSuperset(of: ["192x192", "512x512"]))
            #expect(icons.contains { $0["purpose"] as? String == "maskable" })
            for icon in icons {
                let file = try await client.execute(uri: icon["src"] as? String ?? "", method: .get)
                #expect(file.status == .ok && file.headers[.contentType] == icon["type"] as? String, "\(icon)")
                if icon["type"] as? String == "image/png" {
                    let bytes = [UInt8](Data(buffer: file.body))
                    // The PNG header's width and height (IHDR, big-endian, from byte 16).
                    let number = { (at: Int) in bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
                    #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && "\(number(16))x\(number(20))" == icon["sizes"] as? String, "\(icon)")
                }
            }
            #expect(try await client.execute(uri: "/icons/..%2Fsw.js", method: .get, headers: session).status == .notFound)
            #expect(try await client.execute(uri: "/icons/..%2Fsw.js", method: .get).status == .forbidden)

            // The service worker, without the token, never kept stale; what it keeps answers.
            let worker = try await client.execute(uri: "/sw.js", method: .get)
            let script = String(buffer: worker.body)
            #expect(worker.status == .ok && worker.headers[.contentType]?.hasPrefix("text/javascript") == true && worker.headers[.cacheControl] == "no-cache")
            #expect(!script.contains("{{"), "every placeholder filled")
            for kept in ["/offline", WebAssets.styleURL, WebAssets.scriptURL, "/icons/icon-192.png", "/icons/icon.svg"] {
                #expect(script.contains("\"\(kept)\""), "\(kept)")
                #expect(try await client.execute(uri: kept, method: .get, headers: session).status == .ok, "\(kept)")
            }

            // The offline page, without the token, and nothing of this run's in it.
            let offline = try await client.execute(uri: "/offline", method: .get)
            let text = String(buffer: offline.body)
            #expect(offline.status == .ok && text.contains("You are offline"))
            #expect(!text.contains(web.secrets.formToken) && !text.contains(web.secrets.token))

            // Every page names the manifest, the icons and the theme colour.
            let home = String(buffer: try await client.execute(uri: "/", method: .get, headers: session).body)
            #expect(home.contains("<link rel=\"manifest\" href=\"/manifest.webmanifest\">"))
            #expect(home.contains("<meta name=\"theme-color\" content=\"\(WebInstall.themeColor)\">") && home.contains("/icons/icon-192.png"))

            // Everything else still needs the token.
            for path in ["/", "/bundle", "/suite.css", "/offlinex", "/sw.js/x"] {
                #expect(try await client.execute(uri: path, method: .get).status != .ok, "\(path)")
            }
        }
    }
}
