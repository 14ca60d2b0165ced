import Crypto
import Foundation
import SuiteHTTP
@testable import SuitePush
import Testing

/// Web Push on swift-crypto: subscriptions checked whole, the RFC 8291 payload (decrypted here as
/// a browser does; Web/Scripts/check-push decrypts it with Python's http-ece and checks the VAPID
/// header with py-vapid), the VAPID JWT, the store of subscriptions and its key, and the sender's
/// retries, drops and independence.
@Suite("Web Push")
struct PushTests {
    /// A browser's subscription keys.
    struct Browser {
        let key = P256.KeyAgreement.PrivateKey()
        let auth = WebPushMessage.randomBytes(16)

        func subscription(_ endpoint: String = "https://push.example.net/send/abc") throws -> PushSubscription {
            try PushSubscription(endpoint: endpoint, p256dh: Base64URL.encode(key.publicKey.x963Representation), auth: Base64URL.encode(Data(auth)))
        }

        /// RFC 8291 as the browser reads it.
        func decrypt(_ body: Data) throws -> Data {
            let bytes = [UInt8](body)
            let salt = Array(bytes[0..<16])
            let recordSize = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let idLength = Int(bytes[20])
            let senderKey = try P256.KeyAgreement.PublicKey(x963Representation: bytes[21..<21 + idLength])
            #expect(recordSize == 4096 && idLength == 65)
            let shared = try key.sharedSecretFromKeyAgreement(with: senderKey)
            let secret = shared.withUnsafeBytes { SymmetricKey(data: Data($0)) }
            let info = Data("WebPush: info".utf8) + [0] + key.publicKey.x963Representation + senderKey.x963Representation
            let ikm = HKDF<SHA256>.expand(pseudoRandomKey: HKDF<SHA256>.extract(inputKeyMaterial: secret, salt: auth), info: info, outputByteCount: 32)
            let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
            let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
            let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
            let record = Data(bytes[(21 + idLength)...])
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }), ciphertext: record.dropLast(16), tag: record.suffix(16))
            let padded = try AES.GCM.open(box, using: cek)
            #expect(padded.last == 2)
            return padded.dropLast()
        }
    }

    @Test func subscriptionsAreCheckedWhole() throws {
        let browser = Browser()
        let key = Base64URL.encode(browser.key.publicKey.x963Representation), auth = Base64URL.encode(Data(browser.auth))
        _ = try PushSubscription(endpoint: "https://fcm.googleapis.com/fcm/send/x", p256dh: key, auth: auth, allowLoopback: false)
        for (endpoint, allow) in [("http://push.example.net/x", true), ("http://127.0.0.1:9/x", false), ("ftp://127.0.0.1/x", true),
                                  ("https://user:pw@push.example.net/x", false), ("/relative", true), ("https://" + String(repeating: "a", count: 2048), false)] {
            #expect(throws: PushError.self, "\(endpoint)") { try PushSubscription(endpoint: endpoint, p256dh: key, auth: auth, allowLoopback: allow) }
        }
        for loopback in ["http://127.0.0.1:9/x", "http://localhost:9/x", "http://[::1]:9/x"] {
            _ = try PushSubscription(endpoint: loopback, p256dh: key, auth: auth, allowLoopback: true)
        }
        // Push services have names: an address or a name of this machine or its network is refused.
        for local in ["https://10.0.0.1/x", "https://192.168.1.1:8443/x", "https://[fe80::1]/x", "https://router/x", "https://printer.local/x",
                      "https://localhost/x", "https://127.0.0.1/x", "https://169.254.169.254/latest"] {
            #expect(throws: PushError.self, "\(local)") { try PushSubscription(endpoint: local, p256dh: key, auth: auth, allowLoopback: false) }
        }
        #expect(try PushSubscription(endpoint: "https://p.example:443/x", p256dh: key, auth: auth).audience == "https://p.example")
        #expect(try PushSubscription(endpoint: "https://p.example:8443/x", p256dh: key, auth: auth).audience == "https://p.example:8443")
        let notOnTheCurve = Base64URL.encode(Data([4] + [UInt8](repeating: 1, count: 64)))
        #expect(throws: PushError.self) { try PushSubscription(endpoint: "https://p.example/x", p256dh: notOnTheCurve, auth: auth) }
        #expect(throws: PushError.self) { try PushSubscription(endpoint: "https://p.example/x", p256dh: key, auth: "c2hvcnQ") }
        #expect(throws: PushError.self) { try PushSubscription(endpoint: "https://p.example/x", p256dh: key + "!", auth: auth) }
        #expect(throws: PushError.self) { try PushSubscription(json: Data(#"{"endpoint": "https://p.example/x"}"#.utf8)) }
        let json = Data(#"{"endpoint":"https://p.example/x","expirationTime":null,"keys":{"p256dh":"\#(key)","auth":"\#(auth)"}}"#.utf8)
        #expect(try PushSubscription(json: json).audience == "https://p.example")
        #expect(try PushSubscription(endpoint: "http://127.0.0.1:8080/a", p256dh: key, auth: auth, allowLoopback: true).audience == "http://127.0.0.1:8080")
    }

    @Test func thePayloadIsEncryptedForTheBrowserAndSignedByTheSender() throws {
        let browser = Browser()
        let vapid = VAPIDKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let payload = Data(#"{"title":"Seneca","body":"Luck is what happens when preparation meets opportunity."}"#.utf8)
        let message = try WebPushMessage(payload: payload, to: try browser.subscription(), key: vapid, contact: "mailto:me@example.org", now: now)
        #expect(try browser.decrypt(message.body) == payload)
        #expect(message.headers["Content-Encoding"] == "aes128gcm" && message.headers["TTL"] == "86400")
        // Two messages of the same text share nothing: a new salt and key each time.
        let again = try WebPushMessage(payload: payload, to: try browser.subscription(), key: vapid, contact: "mailto:me@example.org", now: now)
        #expect(again.body.prefix(16) != message.body.prefix(16) && again.body.suffix(32) != message.body.suffix(32))

        // VAPID: vapid t=JWT,k=the key; the JWT is ES256 over header.claims, for the endpoint's origin.
        let authorization = try #require(message.headers["Authorization"])
        let parts = authorization.dropFirst("vapid t=".count).components(separatedBy: ",k=")
        #expect(authorization.hasPrefix("vapid t=") && parts.count == 2 && parts[1] == vapid.publicKeyText)
        let jwt = parts[0].split(separator: ".").map(String.init)
        let claimBytes = try #require(Base64URL.decode(jwt[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: claimBytes) as? [String: Any])
        #expect(claims["aud"] as? String == "https://push.example.net" && claims["sub"] as? String == "mailto:me@example.org")
        #expect(claims["exp"] as? Int == 1_800_000_000 + 12 * 3600)
        let signatureBytes = try #require(Base64URL.decode(jwt[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(vapid.privateKey.publicKey.isValidSignature(signature, for: Data((jwt[0] + "." + jwt[1]).utf8)))
        #expect(try #require(Base64URL.decode(vapid.publicKeyText)).count == 65)

        // Too large is refused; a notification's payload is cut to fit, whatever its text.
        #expect(throws: PushError.self) { try WebPushMessage(payload: Data(count: 4000), to: try browser.subscription(), key: vapid, contact: "mailto:x@y") }
        for text in [String(repeating: "é", count: 5000), String(repeating: "\u{1}", count: 3000), String(repeating: "👍🏽", count: 2000)] {
            let notification = PushNotification(title: text, body: text, url: "/quotes", tag: "q")
            let fitted = notification.payload()
            #expect(fitted.count <= WebPushMessage.maximumPayload)
            let read = try JSONDecoder().decode(PushNotification.self, from: fitted)
            #expect(read.url == "/quotes" && text.hasPrefix(String(read.body.dropLast())) && read.title.count == 200)
            _ = try WebPushMessage(payload: fitted, to: try browser.subscription(), key: vapid, contact: "mailto:x@y")
        }
    }

    /// RFC 8291's own example (Appendix A): the same keys and salt give its message, byte for byte.
    @Test func theRFCsExampleMessage() throws {
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: #require(Base64URL.decode("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")))
        let subscription = try PushSubscription(
            endpoint: "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV",
            p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", auth: "BTBZMqHH6r4Tts7J_aSIgg")
        let salt = try #require(Base64URL.decode("DGv6ra1nlYgDCS1FRnbzlw"))
        let body = try #require(WebPushMessage.encrypt(Data("When I grow up, I want to be a watermelon".utf8), for: subscription, sender: sender, salt: [UInt8](salt)))
        #expect(Base64URL.encode(body) == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
    }

    @Test func theStoreKeepsSubscriptionsAndOneKey() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try PushStore(folder: folder)
        let key = try store.key().publicKeyText
        #expect(try PushStore(folder: folder).key().publicKeyText == key, "one key, kept")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(PushStore.fileName).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let browsers = (0..<PushStore.limit).map { _ in Browser() }
        for (index, browser) in browsers.enumerated() {
            try store.add(try browser.subscription("https://push.example.net/\(index)"), label: "Chromium\n\u{7}on Linux")
        }
        #expect(try store.entries().count == PushStore.limit && store.entries()[0].label == "Chromiumon Linux")
        // The same endpoint again replaces it; one more is refused.
        try store.add(try Browser().subscription("https://push.example.net/0"), label: "again")
        #expect(throws: PushError.full(PushStore.limit)) { try store.add(try Browser().subscription("https://push.example.net/new"), label: "") }
        let first = try #require(try store.entries().first)
        #expect(first.label == "again")
        #expect(try store.remove(id: first.id))
        #expect(try !store.remove(id: first.id))
        #expect(try store.entries().count == PushStore.limit - 1)
        // A damaged file is refused and left as it is.
        let other = folder.appendingPathComponent("damaged", isDirectory: true)
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("not a database at all, not even close".utf8).write(to: other.appendingPathComponent(PushStore.fileName))
        #expect(throws: PushError.self) { try PushStore(folder: other) }
        #expect(try Data(contentsOf: other.appendingPathComponent(PushStore.fileName)) == Data("not a database at all, not even close".utf8))
    }

    /// A push service per endpoint, scripted: the statuses it answers in turn, or silence.
    final class Services: HTTPClient, @unchecked Sendable {
        private let lock = NSLock()
        private var scripts: [String: [Int?]]
        private(set) var requests: [(path: String, at: ContinuousClock.Instant)] = []
        /// Whether another service was asked while the dead one had not answered.
        private(set) var othersAskedMeanwhile = false

        init(_ scripts: [String: [Int?]]) { self.scripts = scripts }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let status: Int? = lock.withLock {
                requests.append((request.url.path, .now))
                guard var script = scripts[request.url.path], !script.isEmpty else { return 201 }
                let next = script.removeFirst()
                scripts[request.url.path] = script
                return next
            }
            guard let answer = status else {
                // A dead service: nothing until the timeout. It waits to see whether the other
                // services are asked meanwhile (they are when the sender does not wait for it).
                for _ in 0..<60_000 where count("/ok") == 0 { try await Task.sleep(for: .milliseconds(5)) }
                lock.withLock { othersAskedMeanwhile = requests.contains { $0.path == "/ok" } }
                throw HTTPClientError.timedOut
            }
            return HTTPResponse(status: answer)
        }

        func count(_ path: String) -> Int { lock.withLock { requests.filter { $0.path == path }.count } }
    }

    @Test func everyBrowserAtOnceRetriesAndGoneSubscriptionsDropped() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-send-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try PushStore(folder: folder)
        for path in ["ok", "busy", "gone", "dead", "refuses"] {
            try store.add(try Browser().subscription("https://push.example.net/\(path)"), label: path)
        }
        let services = Services(["/busy": [503, 429, 201], "/gone": [410], "/dead": [nil], "/refuses": [400]])
        let sender = PushSender(client: services, timeout: 1, backoff: [.milliseconds(50), .milliseconds(50)])
        let outcomes = try await sender.send(PushNotification(title: "t", body: "b", url: "/", tag: "t"), store: store)
        let url = { (path: String) in URL(string: "https://push.example.net/\(path)")! }
        #expect(outcomes[url("ok")] == .delivered && outcomes[url("busy")] == .delivered && outcomes[url("gone")] == .gone)
        #expect(outcomes[url("dead")].map { if case .failed = $0 { true } else { false } } == true)
        #expect(outcomes[url("refuses")] == .failed("push.example.net refused the message (400)"))
        // Busy is tried again; a service that did not answer within the timeout is not waited for twice.
        #expect(services.count("/busy") == 3 && services.count("/dead") == 1 && services.count("/refuses") == 1)
        // The dead service did not hold the others up: they were asked while it said nothing.
        #expect(services.othersAskedMeanwhile)
        #expect(try store.entries().map(\.label).sorted() == ["busy", "dead", "ok", "refuses"], "the gone one is dropped")
    }
}
