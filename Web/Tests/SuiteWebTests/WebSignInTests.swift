import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SuiteWeb
import Testing

/// The web app off loopback: the store folder's password (a slow hash in a 0600 file), the sign-in
/// page, sessions in `HttpOnly; Secure; SameSite=Strict` cookies that expire and end on sign-out
/// or a new password, form tokens bound to the session, and sign-in attempts limited per address
/// and per store, counted when they start. TLS, the proxy, curl and Chromium are in check-web.
@Suite("Signing in off loopback")
struct WebSignInTests {
    /// A clock the test moves.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var value = Date(timeIntervalSince1970: 1_800_000_000)
        var now: Date { lock.withLock { value } }
        func advance(_ seconds: TimeInterval) { lock.withLock { value += seconds } }
    }

    static let password = "correct horse battery staple"

    /// A store folder with `password` set (cheap scrypt rounds: the tests check the flow, not the cost).
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-signin-\(UUID().uuidString)", isDirectory: true)
        try WebPassword.make(password, logRounds: 10).write(folder: folder)
        return folder
    }

    static func csrf(_ page: String) -> String? {
        guard let range = page.range(of: #"name="csrf" value="([0-9a-f]+)""#, options: .regularExpression) else { return nil }
        return String(page[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }

    static func form(_ fields: [String: String]) -> ByteBuffer {
        ByteBuffer(string: fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&"))
    }

    static let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// The session cookie a sign-in's answer sets.
    static func sessionCookie(_ response: TestResponse) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix(WebSignIn.cookieName + "=") }
            .map { String($0.split(separator: ";")[0]) }
    }

    @Test func thePasswordIsKeptAsASlowHashAndTooShortIsRefused() throws {
        #expect(throws: WebPasswordError.self) { try WebPassword.make("short") }
        #expect(throws: WebPasswordError.self) { try WebPassword.make("twelve chars\nplus a line") }
        #expect(throws: WebPasswordError.self) { try WebPassword.make(String(repeating: "x", count: 1025)) }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(WebPassword.fileName)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("scrypt$10$8$1$") && !text.contains(Self.password))
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let read = try #require(try WebPassword.read(folder: folder))
        #expect(read.matches(Self.password) && !read.matches(Self.password + " ") && !read.matches(""))
        // The standard cost, once: 2^15 rounds.
        let standard = try WebPassword.make(Self.password)
        #expect(standard.line.hasPrefix("scrypt$15$8$1$") && standard.matches(Self.password))
        // A damaged file is an error, and is left as it was.
        try Data("scrypt$10$8$1$AAAA".utf8).write(to: file)
        #expect(throws: WebPasswordError.self) { try WebPassword.read(folder: folder) }
        #expect(throws: WebPasswordError.self) { try WebSignIn(folder: folder, transport: .tls) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "scrypt$10$8$1$AAAA")
        // No password, no sign-in.
        try FileManager.default.removeItem(at: file)
        #expect(throws: WebPasswordError.self) { try WebSignIn(folder: folder, transport: .tls) }
    }

    @Test func signInSessionsExpirySignOutAndANewPassword() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = Clock()
        let signIn = try WebSignIn(folder: folder, transport: .tls, sessionLifetime: 3600, now: { clock.now })
        let web = try await WebApp(folder: folder, access: .signIn(signIn))
        try await Application(router: web.router(hosts: { [] })).test(.router) { client in
            // Without a session every page leads to the sign-in page, which says where to go back.
            let home = try await client.execute(uri: "/", method: .get, headers: [:])
            #expect(home.status == .seeOther && home.headers[.location] == "/signin")
            let deep = try await client.execute(uri: "/bundle/all?page=2", method: .get)
            #expect(deep.headers[.location] == "/signin?next=%2Fbundle%2Fall%3Fpage%3D2")
            #expect(try await client.execute(uri: "/sync", method: .post).status == .forbidden)
            #expect(try await client.execute(uri: "/suite.css", method: .get).status == .ok, "the sign-in page's style")
            let page = try await client.execute(uri: "/signin?next=%2Fbundle", method: .get)
            let text = String(buffer: page.body)
            #expect(page.status == .ok && text.contains("type=\"password\"") && text.contains("value=\"/bundle\""))
            let csrf = try #require(Self.csrf(text))

            // A wrong password: refused, no cookie.
            let wrong = try await client.execute(uri: "/signin", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": csrf, "password": "wrong password!!", "next": "/bundle"]))
            #expect(wrong.status == .forbidden && String(buffer: wrong.body).contains("Wrong password.") && Self.sessionCookie(wrong) == nil)
            // Without the form token, or from another site: refused before the password is looked at.
            #expect(try await client.execute(uri: "/signin", method: .post, headers: Self.formHeaders, body: Self.form(["password": Self.password])).status == .forbidden)
            var foreign = Self.formHeaders
            foreign[.origin] = "https://evil.example"
            #expect(try await client.execute(uri: "/signin", method: .post, headers: foreign, body: Self.form(["csrf": csrf, "password": Self.password])).status == .forbidden)

            // The right one: a session cookie, back where the browser was going.
            let right = try await client.execute(uri: "/signin", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": csrf, "password": Self.password, "next": "/bundle"]))
            #expect(right.status == .seeOther && right.headers[.location] == "/bundle")
            let header = try #require(right.headers[values: .setCookie].first { $0.hasPrefix(WebSignIn.cookieName) })
            for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/", "Max-Age=3600"] {
                #expect(header.contains(attribute), "\(attribute) in \(header)")
            }
            let cookie = try #require(Self.sessionCookie(right))
            var session: HTTPFields = [.cookie: cookie]
            let signedIn = try await client.execute(uri: "/", method: .get, headers: session)
            #expect(signedIn.status == .ok)
            // The pages' form token is the session's, not the one anybody sees on the sign-in page.
            let sessionToken = try #require(Self.csrf(String(buffer: try await client.execute(uri: "/settings", method: .get, headers: session).body)))
            #expect(sessionToken != csrf)
            session[.contentType] = "application/x-www-form-urlencoded"
            #expect(try await client.execute(uri: "/sync", method: .post, headers: session, body: Self.form(["csrf": csrf])).status == .forbidden)
            #expect(try await client.execute(uri: "/sync", method: .post, headers: session, body: Self.form(["csrf": sessionToken])).status == .seeOther)
            // The store folder keeps only the token's hash.
            let kept = try String(contentsOf: folder.appendingPathComponent(WebSessions.fileName), encoding: .utf8)
            #expect(!kept.contains(cookie.dropFirst(WebSignIn.cookieName.count + 1)) && signIn.sessions.count == 1)

            // A restart keeps the session.
            let again = try WebSignIn(folder: folder, transport: .tls, sessionLifetime: 3600, now: { clock.now })
            let token = String(cookie.dropFirst(WebSignIn.cookieName.count + 1))
            #expect(again.sessions.valid(token, password: try #require(again.currentPassword()), now: clock.now))

            // It expires.
            clock.advance(3601)
            #expect(try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]).headers[.location] == "/signin")

            // Sign out ends it at once.
            let second = try await client.execute(uri: "/signin", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": csrf, "password": Self.password]))
            let cookie2 = try #require(Self.sessionCookie(second))
            let token2 = try #require(Self.csrf(String(buffer: try await client.execute(uri: "/settings", method: .get, headers: [.cookie: cookie2]).body)))
            let out = try await client.execute(uri: "/signout", method: .post, headers: [.cookie: cookie2, .contentType: "application/x-www-form-urlencoded"], body: Self.form(["csrf": token2]))
            #expect(out.status == .seeOther && out.headers[.location] == "/signin" && out.headers[values: .setCookie].contains { $0.hasPrefix(WebSignIn.cookieName + "=;") && $0.contains("Max-Age=0") })
            #expect(try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie2]).status == .seeOther)

            // A new password signs everyone out.
            let third = try await client.execute(uri: "/signin", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": csrf, "password": Self.password]))
            let cookie3 = try #require(Self.sessionCookie(third))
            #expect(try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie3]).status == .ok)
            try WebPassword.make("another long password", logRounds: 10).write(folder: folder)
            #expect(try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie3]).status == .seeOther)
            // A path to go back to is this app's own.
            for next in ["//evil.example/", "/\\evil.example", "https://evil.example", "/signin?next=/x", "/\t/evil.example", "/ /evil.example",
                         "/\n/evil.example", "/\u{0}/x", "/é", "/%09/x\t"] {
                #expect(WebSignIn.next(next) == "/", "\(next)")
            }
            #expect(WebSignIn.next("/bundle/all?page=2&q=a%20b") == "/bundle/all?page=2&q=a%20b")
            // Decoded from the query as a browser sends it, a tab never reaches the Location.
            let tabbed = try await client.execute(uri: "/signin?next=/%09/evil.example", method: .get)
            #expect(String(buffer: tabbed.body).contains("name=\"next\" value=\"/\""))
            // Before signing in a form is a password: 8 KB at most.
            let large = try await client.execute(uri: "/signin", method: .post, headers: Self.formHeaders,
                                                 body: Self.form(["csrf": csrf, "password": String(repeating: "x", count: 9000)]))
            #expect(large.status == .contentTooLarge)
        }
    }

    @Test func guessesSentAtOnceAreLimitedAsIfOneAfterTheOther() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let signIn = try WebSignIn(folder: folder, transport: .tls, limits: .init(perAddress: 3, perStore: 5, window: 900))
        let web = try await WebApp(folder: folder, access: .signIn(signIn))
        try await Application(router: web.router(hosts: { [] })).test(.router) { client in
            let csrf = try #require(Self.csrf(String(buffer: try await client.execute(uri: "/signin", method: .get).body)))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await client.execute(uri: "/signin", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": csrf, "password": "guess number \(index)"])).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Three were checked (and wrong); the rest were refused before any check.
            #expect(statuses.filter { $0 == .forbidden }.count == 3)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 17)
            // The right password from that address now waits too, and says how long.
            let limited = try await client.execute(uri: "/signin", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": csrf, "password": Self.password]))
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter].flatMap(Int.init).map { $0 > 800 && $0 <= 900 } == true)
            #expect(String(buffer: limited.body).contains("Too many sign-in attempts: try again in 15 minutes."))
            #expect(Self.sessionCookie(limited) == nil)
        }
        // Per store: many addresses at once share one limit, and what is kept stays within it.
        let limiter = SignInLimiter(limits: .init(perAddress: 3, perStore: 5, window: 900))
        let now = Date()
        let allowed = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 { group.addTask { limiter.begin(address: "10.0.0.\(index % 50)", now: now) == nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(allowed == 5 && limiter.counted == 5)
        // After the window, attempts may start again; a sign-in forgets its address's.
        #expect(limiter.begin(address: "10.0.0.1", now: now + 901) == nil && limiter.counted == 1)
        limiter.succeeded(address: "10.0.0.1")
        #expect(limiter.counted == 0)
    }

    @Test func behindAProxyTheForwardedAddressCountsOnlyFromLoopback() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for transport in [WebSignIn.Transport.proxy, .tls] {
            let signIn = try WebSignIn(folder: folder, transport: transport, limits: .init(perAddress: 1, perStore: 10, window: 900))
            let web = try await WebApp(folder: folder, access: .signIn(signIn))
            try await Application(router: web.router(hosts: { [] })).test(.live) { client in
                let csrf = try #require(Self.csrf(String(buffer: try await client.execute(uri: "/signin", method: .get).body)))
                var statuses: [HTTPResponse.Status] = []
                for address in ["203.0.113.1", "203.0.113.2", "203.0.113.2"] {
                    var headers = Self.formHeaders
                    headers[HTTPField.Name("X-Forwarded-For")!] = "198.51.100.9, \(address)"
                    statuses.append(try await client.execute(uri: "/signin", method: .post, headers: headers, body: Self.form(["csrf": csrf, "password": "not the password"])).status)
                }
                // Behind the proxy (the test connects from loopback) each forwarded address has its
                // own limit; with TLS the header is the browser's own words and is not believed.
                #expect(statuses == (transport == .proxy ? [.forbidden, .forbidden, .tooManyRequests] : [.forbidden, .tooManyRequests, .tooManyRequests]), "\(transport)")
            }
        }
    }
}
