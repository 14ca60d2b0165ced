import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SuitePush
@testable import SuiteWeb
import Testing

/// Subscribing a browser to notifications: the VAPID key, the page script's JSON post with the
/// form token in `X-CSRF-Token`, subscriptions checked whole, listed and removed in the settings
/// page. Deliveries, decrypted by Python's http-ece and checked by py-vapid, are in check-push.
@Suite("Notifications in the web app")
struct WebPushTests {
    @Test func aBrowserSubscribesIsListedAndRemoved() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-push-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = try await WebApp(folder: folder)
        let cookie: HTTPFields = [.cookie: "\(WebGuard.cookieName)=\(web.secrets.token)"]
        try await Application(router: web.router(hosts: { ["localhost"] })).test(.router) { client in
            // The key: an uncompressed P-256 point, the same each time.
            let key = String(buffer: try await client.execute(uri: "/push/key", method: .get, headers: cookie).body)
            let again = String(buffer: try await client.execute(uri: "/push/key", method: .get, headers: cookie).body)
            #expect(Base64URL.decode(key)?.count == 65 && key == again)
            #expect(try await client.execute(uri: "/push/key", method: .get).status == .forbidden, "needs the token")
            // Every page carries its form token for the script.
            let settings = String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body)
            #expect(settings.contains("<meta name=\"csrf-token\" content=\"\(web.secrets.formToken)\">") && settings.contains("No browser gets notifications yet."))

            let browser = P256.KeyAgreement.PrivateKey()
            let subscription = { (endpoint: String) in
                ByteBuffer(string: #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(Base64URL.encode(browser.publicKey.x963Representation))","auth":"\#(Base64URL.encode(Data(repeating: 7, count: 16)))"}}"#)
            }
            var json = cookie
            json[.contentType] = "application/json"
            json[.userAgent] = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36"
            // Without the form token, with another one, or from another site: refused, nothing kept.
            #expect(try await client.execute(uri: "/push/subscribe", method: .post, headers: json, body: subscription("https://push.example.net/a")).status == .forbidden)
            var wrong = json
            wrong[HTTPField.Name("X-CSRF-Token")!] = String(repeating: "0", count: 64)
            #expect(try await client.execute(uri: "/push/subscribe", method: .post, headers: wrong, body: subscription("https://push.example.net/a")).status == .forbidden)
            json[HTTPField.Name("X-CSRF-Token")!] = web.secrets.formToken
            var foreign = json
            foreign[.origin] = "http://evil.example"
            #expect(try await client.execute(uri: "/push/subscribe", method: .post, headers: foreign, body: subscription("https://push.example.net/a")).status == .forbidden)
            // Not https, not a subscription, not JSON, too large: refused with a reason.
            let plain = try await client.execute(uri: "/push/subscribe", method: .post, headers: json, body: subscription("http://push.example.net/a"))
            #expect(plain.status == .badRequest && String(buffer: plain.body).contains("must be https"))
            #expect(try await client.execute(uri: "/push/subscribe", method: .post, headers: json, body: ByteBuffer(string: "{}")).status == .badRequest)
            var form = json
            form[.contentType] = "application/x-www-form-urlencoded"
            #expect(try await client.execute(uri: "/push/subscribe", method: .post, headers: form, body: subscription("https://push.example.net/a")).status == .contentTooLarge)
            #expect(try await client.execute(uri: "/push/subscribe", method: .post, headers: json, body: ByteBuffer(string: String(repeating: " ", count: 20_000))).status == .contentTooLarge)
            #expect(try web.push.entries().count == 0)

            // Taken, then listed by browser and service.
            let taken = try await client.execute(uri: "/push/subscribe", method: .post, headers: json, body: subscription("https://push.example.net/a"))
            #expect(taken.status == .created)
            let entries = try web.push.entries()
            #expect(entries.count == 1 && entries[0].label == "Chromium on Android" && entries[0].subscription.service == "push.example.net")
            let listed = String(buffer: try await client.execute(uri: "/settings", method: .get, headers: cookie).body)
            #expect(listed.contains("Chromium on Android") && listed.contains("through push.example.net") && listed.contains("Send a test notification"))

            // Removed from the settings page.
            var removal = cookie
            removal[.contentType] = "application/x-www-form-urlencoded"
            let removed = try await client.execute(uri: "/push/remove", method: .post, headers: removal, body: ByteBuffer(string: "csrf=\(web.secrets.formToken)&id=\(entries[0].id)"))
            #expect(removed.status == .seeOther && removed.headers[.location] == "/settings")
            #expect(try web.push.entries().count == 0)
        }
        #expect(WebPush.label("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1") == "Safari on iPhone")
        #expect(WebPush.label("curl/8.0") == "A browser")
    }
}
