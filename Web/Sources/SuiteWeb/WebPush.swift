import Foundation
import HTTPTypes
import Hummingbird
import SuitePush
import SuiteURLSession

/// Notifications on the person's browsers (Web Push): the settings page lists the subscribed
/// browsers and removes them; the page script subscribes (``WebScript/live``) with the VAPID key
/// from `GET /push/key` and sends the subscription to `POST /push/subscribe` with the page's form
/// token in `X-CSRF-Token`. The store is the folder's `push.sqlite` (``PushStore``), which
/// `suite quotes tick` and `suite bundle remind` read when they deliver.
struct WebPush {
    let app: WebApp

    struct Row: TemplateValues {
        let id: String
        let label: String
        let service: String
        let added: String
    }

    struct Settings: WebViewModel {
        static let template = "settings"
        let signedIn: Bool
        let anySubscriptions: Bool
        let subscriptions: [Row]
        let message: String?
    }

    func register(on router: Router<WebContext>) {
        router.get("/settings") { request, _ in try await settings(message: request.uri.queryParameters.get("sent").map { "Test notification: \($0)." }) }
        router.get("/push/key") { _, _ in
            let key = try await background { try app.push.key().publicKeyText }
            return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: key)))
        }
        router.post("/push/subscribe") { request, context in
            let answer = { (status: HTTPResponse.Status, text: String) in
                Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
            }
            guard let json = context.json else { return answer(.unsupportedMediaType, "send the subscription as JSON with X-CSRF-Token") }
            let label = Self.label(request.headers[.userAgent] ?? "")
            do {
                let subscription = try PushSubscription(json: json)
                let id = try await background { try app.push.add(subscription, label: label) }
                return answer(.created, "subscribed (\(id))")
            } catch let error as PushError {
                return answer(.badRequest, error.description)
            }
        }
        router.post("/push/remove") { _, context in
            guard let id = context.form.first("id").flatMap(Int64.init) else { throw HTTPError(.badRequest, message: "Which subscription? The form has no number.") }
            _ = try await background { try app.push.remove(id: id) }
            return WebPage.redirect("/settings")
        }
        router.post("/push/test") { _, _ in
            let outcomes = try await app.pushSender.send(PushNotification(title: "Suite", body: "Notifications reach this browser.", url: "/settings", tag: "test"), store: app.push)
            let delivered = outcomes.values.filter { $0 == .delivered }.count
            let text = "\(delivered) of \(outcomes.count) browser\(outcomes.count == 1 ? "" : "s") reached"
            return WebPage.redirect("/settings?sent=" + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        }
    }

    func settings(message: String?) async throws -> Response {
        let entries = try await background { try app.push.entries() }
        let rows = entries.map { Row(id: String($0.id), label: $0.label.isEmpty ? "A browser" : $0.label, service: $0.subscription.service,
                                     added: $0.added.formatted(date: .abbreviated, time: .omitted)) }
        return WebPage.page(Settings(signedIn: app.access.signIn != nil, anySubscriptions: !rows.isEmpty, subscriptions: rows, message: message),
                            title: "Settings", app: "", secrets: app.secrets)
    }

    /// The browser and system a user agent names, as a person tells their browsers apart.
    static func label(_ userAgent: String) -> String {
        let browsers = ["Edg": "Edge", "Firefox": "Firefox", "Chrome": "Chromium", "Safari": "Safari"]
        let systems = ["Android": "Android", "iPhone": "iPhone", "iPad": "iPad", "Mac OS X": "macOS", "Windows": "Windows", "Linux": "Linux"]
        let browser = ["Edg", "Firefox", "Chrome", "Safari"].first { userAgent.contains($0 + "/") }.flatMap { browsers[$0] }
        let system = ["Android", "iPhone", "iPad", "Mac OS X", "Windows", "Linux"].first { userAgent.contains($0) }.flatMap { systems[$0] }
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "A browser on \(system)"
        default: return "A browser"
        }
    }

    /// Store work off the cooperative pool.
    private func background<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}
