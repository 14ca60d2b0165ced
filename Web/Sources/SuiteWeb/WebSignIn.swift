import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SuiteHTTPLimits

/// Who may use the web app.
package enum WebAccess: Sendable {
    /// On loopback: this run's token, from the printed URL, then a cookie (``TokenGuard``).
    case token
    /// Off loopback, with TLS or behind a proxy: the store folder's password, then a session
    /// (``SessionGuard``).
    case signIn(WebSignIn)

    var signIn: WebSignIn? {
        if case .signIn(let signIn) = self { return signIn }
        return nil
    }
}

/// The sign-in of a web app that others can reach: the store folder's password
/// (``WebPassword``), its sessions (``WebSessions``) and the limits on attempts
/// (``SignInLimiter``).
package final class WebSignIn: Sendable {
    package static let cookieName = "suite_session"
    /// Served without a session: what the sign-in page needs and what holds nothing of the person's.
    static let publicPaths: Set<String> = WebInstall.publicPaths.union(["/signin", "/suite.css"])

    /// How the browser reaches the app.
    package enum Transport: Sendable, Equatable {
        /// This process speaks TLS itself.
        case tls
        /// A proxy on this machine speaks TLS to browsers and forwards here; its `X-Forwarded-*`
        /// headers are trusted when the connection comes from loopback, and only then.
        case proxy
    }

    package let folder: URL
    package let sessions: WebSessions
    package let limiter: SignInLimiter
    package let transport: Transport
    let now: @Sendable () -> Date
    private let password: PasswordFile

    /// - Throws: ``WebPasswordError`` when no password is set or its file, or the sessions', is damaged.
    package init(
        folder: URL, transport: Transport, limits: SignInLimiter.Limits = .standard,
        sessionLifetime: TimeInterval = WebSessions.standardLifetime, now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        guard try WebPassword.read(folder: folder) != nil else {
            throw WebPasswordError("no sign-in password is set for \(folder.path): set one with 'suite ui password --stdin'")
        }
        self.folder = folder
        self.transport = transport
        self.now = now
        sessions = try WebSessions(folder: folder, lifetime: sessionLifetime)
        limiter = SignInLimiter(limits: limits)
        password = PasswordFile(folder.appendingPathComponent(WebPassword.fileName))
    }

    /// The password now set (read again when its file changes), or nil when there is none.
    package func currentPassword() -> WebPassword? { password.current() }

    /// The session cookie's token when it is a valid session.
    func session(_ request: Request) -> String? {
        guard let token = request.cookies[Self.cookieName]?.value, let password = currentPassword(),
              sessions.valid(token, password: password, now: now())
        else { return nil }
        return token
    }

    /// The form token of a session's pages: bound to the session, so a page of one sign-in cannot
    /// send another's forms, and a form token shown on the sign-in page opens nothing.
    static func formToken(_ secrets: WebSecrets, session: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(session.utf8), using: SymmetricKey(data: Data(secrets.sessionKey.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// The browser's address as the limits count it (an IPv6 address by its /64): the peer's, or
    /// behind a proxy on loopback the last address the proxy added to `X-Forwarded-For`.
    func clientAddress(_ request: Request, context: WebContext) -> String {
        if transport == .proxy, ClientAddress.isLoopback(context.peer),
           let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!],
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return ClientAddress(text: last).key
        }
        return ClientAddress(context.peer).key
    }

    /// `scheme://host[:port]` as the browser sees this app, for the `Origin` check.
    func origin(_ request: Request, context: WebContext) -> String? {
        var host = request.head.authority
        var scheme = "https"
        if transport == .proxy, ClientAddress.isLoopback(context.peer) {
            if let forwarded = request.headers[HTTPField.Name("X-Forwarded-Host")!] { host = forwarded }
            if let proto = request.headers[HTTPField.Name("X-Forwarded-Proto")!], proto == "http" || proto == "https" { scheme = proto }
        }
        return host.map { "\(scheme)://\($0.lowercased())" }
    }

    /// Checks `given` against `password` on one serial queue: a sign-in costs one scrypt (32 MiB)
    /// at a time whatever arrives at once, and the limiter bounds how many wait.
    func verify(_ given: String, against password: WebPassword) async -> Bool {
        await withCheckedContinuation { continuation in
            Self.checking.async { continuation.resume(returning: password.matches(given)) }
        }
    }

    private static let checking = DispatchQueue(label: "suite-web.sign-in")

    /// A path to go back to after signing in: this app's own, never another site's. Only printable
    /// ASCII without spaces (browsers drop tabs and line breaks from a `Location`, which could turn
    /// `/<tab>/evil.example` into `//evil.example`), no backslash, and nothing a URL would read as
    /// a scheme or a host.
    static func next(_ text: String?) -> String {
        guard let text, text.count <= 2048, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/signin"),
              text.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "\\" }),
              let components = URLComponents(string: text), components.scheme == nil, components.host == nil
        else { return "/" }
        return text
    }

    // MARK: Pages

    struct SignInPage: WebViewModel {
        static let template = "signin"
        let next: String
        let error: String?
    }

    func register(on router: Router<WebContext>, secrets: WebSecrets) {
        router.get("/signin") { request, _ in
            if self.session(request) != nil { return WebPage.redirect(Self.next(request.uri.queryParameters.get("next"))) }
            return WebPage.page(SignInPage(next: Self.next(request.uri.queryParameters.get("next")), error: nil), title: "Sign in", app: "", secrets: secrets)
        }
        router.post("/signin") { request, context in
            let next = Self.next(context.form.first("next"))
            let page = { (error: String, status: HTTPResponse.Status) in
                WebPage.page(SignInPage(next: next, error: error), title: "Sign in", app: "", secrets: secrets, status: status)
            }
            let address = self.clientAddress(request, context: context)
            if let wait = self.limiter.begin(address: address, now: self.now()) {
                let minutes = Int((wait / 60).rounded(.up))
                var response = page("Too many sign-in attempts: try again in \(minutes) minute\(minutes == 1 ? "" : "s").", .tooManyRequests)
                response.headers[.retryAfter] = String(Int(wait.rounded(.up)))
                return response
            }
            guard let password = self.currentPassword() else {
                return page("No password is set: run 'suite ui password' on the server.", .serviceUnavailable)
            }
            guard await self.verify(context.form.first("password") ?? "", against: password) else {
                return page("Wrong password.", .forbidden)
            }
            self.limiter.succeeded(address: address)
            let token: String
            do {
                token = try self.sessions.start(password: password, now: self.now())
            } catch {
                return page("The sign-in could not be kept: \(error)", .internalServerError)
            }
            var response = Response.redirect(to: next, type: .normal)
            response.setCookie(Cookie(
                name: Self.cookieName, value: token, maxAge: Int(self.sessions.lifetime), path: "/",
                secure: true, httpOnly: true, sameSite: .strict))
            return response
        }
        router.post("/signout") { request, _ in
            if let token = request.cookies[Self.cookieName]?.value { try? self.sessions.end(token) }
            var response = Response.redirect(to: "/signin", type: .normal)
            response.setCookie(Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", secure: true, httpOnly: true, sameSite: .strict))
            return response
        }
    }
}

/// The password file, read again only when it changes (a `stat` per request).
final class PasswordFile: @unchecked Sendable {
    private let file: URL
    private let lock = NSLock()
    private var seen: (inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int)?
    private var password: WebPassword?

    init(_ file: URL) {
        self.file = file
    }

    func current() -> WebPassword? {
        var info = stat()
        guard stat(file.path, &info) == 0 else { return nil }
        let now = (inode: UInt64(info.st_ino), size: Int64(info.st_size), seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
        return lock.withLock {
            if let seen, seen == now { return password }
            seen = now
            password = (try? WebPassword.read(folder: file.deletingLastPathComponent())) ?? nil
            return password
        }
    }
}

/// Values of the request being answered that pages read.
enum WebRequest {
    /// The form token of this request's pages and forms, when it is not the run's own (a session's,
    /// see ``WebSignIn/formToken(_:session:)``).
    @TaskLocal static var formToken: String?
}

/// Off loopback: every request but the sign-in page's and the public files needs a session; a
/// page asked without one leads to the sign-in page.
struct SessionGuard: RouterMiddleware {
    typealias Context = WebContext
    let secrets: WebSecrets
    let signIn: WebSignIn

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let session = signIn.session(request) else {
            if WebSignIn.publicPaths.contains(request.uri.path) && (request.method == .get || request.uri.path == "/signin") {
                return try await next(request, context)
            }
            if request.method == .get || request.method == .head {
                let back = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                let query = back == "/" ? "" : "?next=" + (back.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/")
                return Response.redirect(to: "/signin" + query, type: .normal)
            }
            return WebPage.refusal(.forbidden, "Sign in first.")
        }
        return try await WebRequest.$formToken.withValue(WebSignIn.formToken(secrets, session: session)) {
            try await next(request, context)
        }
    }
}
