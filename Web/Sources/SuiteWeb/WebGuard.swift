import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The request context of the web app: the form of a POST, parsed and checked once.
package struct WebContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The fields of a submitted form (`application/x-www-form-urlencoded`), each with its values.
    package var form: WebForm = WebForm()
    /// The body of a JSON POST from the page script (sent with `X-CSRF-Token`).
    package var json: Data?
    /// The address of the connection's other end (a browser, or the proxy in front).
    package let peer: SocketAddress?

    package init(source: Source) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }

    /// Forms hold at most a section's text (1 MB of UTF-8, up to 9 MB once URL-encoded) and some fields.
    package var maxUploadSize: Int { 10 * 1024 * 1024 }
}

/// What keeps the web app to the person who started it, as four small middlewares, outermost
/// first (``install(on:secrets:hosts:access:)``):
///
/// - ``PageHeaders``: every answer, refusals included, is a page that is never kept (unless it
///   says how long it may be, as the style sheet and scripts do) and never framed; an error
///   becomes a page that says what happened;
/// - ``HostGuard``: the `Host` must be the loopback address and port it listens on (a web site
///   that makes its own name resolve to 127.0.0.1 — DNS rebinding — is refused), and a request a
///   browser marks as coming from another site (another port on this machine included) is refused;
/// - ``TokenGuard``: the random token of this run, from the printed URL's `?token=` (which becomes
///   a cookie, `HttpOnly` and `SameSite=Strict`) or that cookie, on every request; off loopback,
///   ``SessionGuard`` instead: a session of the password sign-in (and ``HostGuard`` takes any
///   `Host`, as the app's public name is the proxy's or the certificate's);
/// - ``FormGuard``: every POST carries the form token (`csrf`) of this run and, when the browser
///   says where it comes from (`Origin`), comes from this app; its form is read once, up to a size.
package enum WebGuard {
    package static let cookieName = "suite_ui"

    /// Adds the guards to `router`, before any route. `hosts` are the `Host` values accepted:
    /// `127.0.0.1:PORT`, `localhost:PORT` (or `[::1]:PORT`), once the port is bound (none before).
    static func install(on router: Router<WebContext>, secrets: WebSecrets, hosts: @escaping @Sendable () -> Set<String>, access: WebAccess) {
        router.add(middleware: PageHeaders(secure: access.signIn?.transport == .tls))
        switch access {
        case .token:
            router.add(middleware: HostGuard(hosts: hosts))
            router.add(middleware: TokenGuard(secrets: secrets))
            router.add(middleware: FormGuard(secrets: secrets) { origin, _, _ in
                hosts().contains(origin.lowercased().replacingOccurrences(of: "http://", with: ""))
            })
        case .signIn(let signIn):
            router.add(middleware: HostGuard(hosts: nil))
            router.add(middleware: SessionGuard(secrets: secrets, signIn: signIn))
            router.add(middleware: FormGuard(secrets: secrets, unsignedLimit: 8 * 1024) { origin, request, context in
                origin.lowercased() == signIn.origin(request, context: context)
            })
        }
    }

    /// The request's path and query without `token=…`.
    static func withoutToken(path: String, query: String?) -> String {
        let kept = query.map { query in
            query.split(separator: "&").filter { !$0.hasPrefix("token=") && $0 != "token" }.joined(separator: "&")
        } ?? ""
        // Only a path here: "//host" or "/\\host" would send the browser to another site.
        let path = path.isEmpty || path.hasPrefix("//") || path.hasPrefix("/\\") ? "/" : path
        return kept.isEmpty ? path : path + "?" + kept
    }
}

/// Every answer's headers, and errors as pages.
struct PageHeaders: RouterMiddleware {
    typealias Context = WebContext
    /// Served over TLS by this process: browsers are told to come back over https only.
    var secure = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            // A page that is not there (a mistyped address, a quote deleted meanwhile) says so as a page.
            response = WebPage.refusal(error.status, error.body ?? "There is no such page.")
        } catch {
            response = WebPage.refusal(.internalServerError, "Something went wrong: \(error)")
        }
        // Pages are never kept (they hold the form token and your data); the style sheet and
        // the script say themselves how long they may be kept (``WebAssets``).
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if secure { response.headers[HTTPField.Name("Strict-Transport-Security")!] = "max-age=31536000" }
        // Other sites learn nothing of these pages' addresses (the places map sends the tile server
        // this app's origin alone, as tile servers ask).
        if response.headers[HTTPField.Name("Referrer-Policy")!] == nil { response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin" }
        return response
    }
}

/// The `Host` is this app's, and the request does not come from another site.
struct HostGuard: RouterMiddleware {
    typealias Context = WebContext
    /// The `Host` values taken; nil for any (off loopback, where a session is the key).
    let hosts: (@Sendable () -> Set<String>)?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let hosts, !(request.head.authority.map { hosts().contains($0.lowercased()) } ?? false) {
            return WebPage.refusal(.misdirectedRequest, "This address is not the one Suite's web app listens on.")
        }
        // Pages of other sites — other ports on this machine included — neither read nor change
        // anything here, even with a cookie (the browser says where a request comes from).
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site == "cross-site" || site == "same-site" {
            return WebPage.refusal(.forbidden, "A request from another site was refused.")
        }
        return try await next(request, context)
    }
}

/// This run's token: from the printed URL once (then a cookie), or the cookie.
struct TokenGuard: RouterMiddleware {
    typealias Context = WebContext
    let secrets: WebSecrets

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let given = request.uri.queryParameters.get("token") {
            guard WebSecrets.same(given, secrets.token) else {
                return WebPage.refusal(.forbidden, "Wrong token: open the URL that 'suite ui' printed.")
            }
            var response = Response.redirect(to: WebGuard.withoutToken(path: request.uri.path, query: request.uri.query), type: .found)
            response.setCookie(Cookie(name: WebGuard.cookieName, value: secrets.token, path: "/", secure: false, httpOnly: true, sameSite: .strict))
            return response
        }
        // The manifest, icons, service worker and offline page hold nothing of the person's, and
        // browsers fetch some of them without cookies.
        if request.method == .get && WebInstall.publicPaths.contains(request.uri.path) {
            return try await next(request, context)
        }
        guard let cookie = request.cookies[WebGuard.cookieName]?.value, WebSecrets.same(cookie, secrets.token) else {
            return WebPage.refusal(.forbidden, "Open the URL that 'suite ui' printed: it carries this run's token.")
        }
        return try await next(request, context)
    }
}

/// A POST: from this app, not too large, with this run's form token; its form read into the context.
struct FormGuard: RouterMiddleware {
    typealias Context = WebContext
    let secrets: WebSecrets
    /// Off loopback, the most a form sent without a session may hold (the sign-in form: a password).
    var unsignedLimit: Int?
    /// Whether an `Origin` header names this app.
    let sameOrigin: @Sendable (String, Request, WebContext) -> Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        if let origin = request.headers[.origin], !sameOrigin(origin, request, context) {
            return WebPage.refusal(.forbidden, "A form from another site was refused.")
        }
        var context = context
        let expected = WebRequest.formToken ?? secrets.formToken
        // The page script's requests carry the form token in a header and JSON in the body.
        if let header = request.headers[HTTPField.Name("X-CSRF-Token")!] {
            guard WebSecrets.same(header, expected) else {
                return WebPage.refusal(.forbidden, "The request was refused: it does not carry this page's form token. Reload the page.")
            }
            guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true,
                  let body = try? await request.body.collect(upTo: 16 * 1024)
            else { return WebPage.refusal(.contentTooLarge, "Only JSON of at most 16 KB is taken here.") }
            context.json = Data(buffer: body)
            return try await next(request, context)
        }
        let limit = WebRequest.formToken == nil ? unsignedLimit ?? context.maxUploadSize : context.maxUploadSize
        guard let body = try? await request.body.collect(upTo: limit) else {
            return WebPage.refusal(.contentTooLarge, "The form was too large to take.")
        }
        context.form = WebForm(urlEncoded: String(buffer: body))
        guard let csrf = context.form.first("csrf"), WebSecrets.same(csrf, expected) else {
            return WebPage.refusal(.forbidden, "The form was refused: it does not carry this page's form token. Reload the page and send it again.")
        }
        return try await next(request, context)
    }
}

/// The secrets of one run: the token in the printed URL and the form token.
package struct WebSecrets: Sendable {
    package let token: String
    package let formToken: String
    /// The key of the sessions' form tokens (``WebSignIn/formToken(_:session:)``), never shown.
    package let sessionKey: String

    package init(token: String = WebSecrets.random(), formToken: String = WebSecrets.random(), sessionKey: String = WebSecrets.random()) {
        self.token = token
        self.formToken = formToken
        self.sessionKey = sessionKey
    }

    /// 32 random bytes in hex.
    package static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Compares without stopping at the first difference.
    package static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// A submitted form's fields.
package struct WebForm: Sendable {
    package var fields: [String: [String]] = [:]

    package init() {}

    /// Parses `a=1&b=two+words&c=%C3%A9`.
    package init(urlEncoded body: String) {
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) -> String in
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[decode(parts[0]), default: []].append(parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The request's query, read as a form sent with GET (`+` is a space).
    package static func query(_ request: Request) -> WebForm {
        WebForm(urlEncoded: request.uri.query ?? "")
    }

    package func first(_ name: String) -> String? { fields[name]?.first }

    package func all(_ name: String) -> [String] { fields[name] ?? [] }

    /// A form's choice: nil when not made (empty); refused, naming the field, when it is none of
    /// the choices (a forged or stale form), so that bad input never falls back to a default.
    static func choice<Choice: RawRepresentable>(_ type: Choice.Type, _ text: String, named field: String) throws -> Choice? where Choice.RawValue == String {
        guard !text.isEmpty else { return nil }
        guard let choice = Choice(rawValue: text) else { throw WebInputError("unknown \(field) '\(text)'") }
        return choice
    }
}
