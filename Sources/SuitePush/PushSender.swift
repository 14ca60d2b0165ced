import Foundation
import SuiteHTTP

/// What a notification says: its title and text, and the page a tap opens. The service worker
/// (`sw.js` of the web app) shows it.
public struct PushNotification: Sendable, Equatable, Codable {
    public var title: String
    public var body: String
    /// A path of the web app (`/quotes/quote/12`, `/bundle`).
    public var url: String
    /// Notifications with the same tag replace each other on the device.
    public var tag: String

    public init(title: String, body: String, url: String, tag: String) {
        self.title = title
        self.body = body
        self.url = url
        self.tag = tag
    }

    /// The JSON the service worker reads, cut to fit one push message: the text loses its end
    /// (at a character boundary) before the title does.
    public func payload() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let encode = { (value: PushNotification) in (try? encoder.encode(value)) ?? Data("{}".utf8) }
        var copy = self
        copy.title = String(title.prefix(200))
        copy.url = String(url.prefix(500))
        var data = encode(copy)
        var kept = body.count
        while data.count > WebPushMessage.maximumPayload && kept > 0 {
            kept = kept * 3 / 4
            copy.body = String(body.prefix(kept)) + "…"
            data = encode(copy)
        }
        if data.count > WebPushMessage.maximumPayload {
            copy.body = ""
            data = encode(copy)
        }
        return data
    }
}

/// Sends a notification to every subscribed browser at once: each request has a timeout and is
/// tried again with backoff when the push service is busy (429, 5xx) or unreachable, and one slow
/// or dead service delays none of the others. A service that took the whole timeout is not waited
/// for again. A subscription its push service says is gone (404, 410)
/// is dropped.
public struct PushSender: Sendable {
    /// What happened to one subscription.
    public enum Outcome: Sendable, Equatable {
        /// The push service took it (201 or another 2xx).
        case delivered
        /// The subscription is gone (404 or 410) and was removed.
        case gone
        /// Refused or unreachable after every try; the text says why.
        case failed(String)
    }

    public let client: any HTTPClient
    /// The `sub` of the VAPID JWT: how a push service reaches whoever runs this Suite.
    public let contact: String
    public let timeout: TimeInterval
    /// The pauses before the second and later tries.
    public let backoff: [Duration]

    public init(client: any HTTPClient, contact: String = PushSettings.contact, timeout: TimeInterval = 10,
                backoff: [Duration] = [.milliseconds(500), .seconds(2)]) {
        self.client = client
        self.contact = contact
        self.timeout = timeout
        self.backoff = backoff
    }

    /// Sends `notification` to every subscription of `store`.
    ///
    /// - Returns: Each subscription's outcome, by endpoint.
    public func send(_ notification: PushNotification, store: PushStore) async throws(PushError) -> [URL: Outcome] {
        let entries = try store.entries()
        guard !entries.isEmpty else { return [:] }
        let key = try store.key()
        let payload = notification.payload()
        let outcomes = await withTaskGroup(of: (URL, Outcome).self) { group in
            for entry in entries {
                group.addTask {
                    (entry.subscription.endpoint, await self.send(payload, to: entry.subscription, key: key))
                }
            }
            return await group.reduce(into: [URL: Outcome]()) { $0[$1.0] = $1.1 }
        }
        for (endpoint, outcome) in outcomes where outcome == .gone {
            try store.remove(endpoint: endpoint)
        }
        return outcomes
    }

    /// One subscription: up to `backoff.count + 1` tries.
    func send(_ payload: Data, to subscription: PushSubscription, key: VAPIDKey) async -> Outcome {
        if subscription.endpoint.scheme?.lowercased() != "https" && !PushSettings.allowLoopback {
            return .failed("\(subscription.service): not https (SUITE_PUSH_ALLOW_LOOPBACK is not set)")
        }
        var reason = ""
        for attempt in 0...backoff.count {
            if attempt > 0 { try? await Task.sleep(for: backoff[attempt - 1]) }
            let message: WebPushMessage
            do {
                message = try WebPushMessage(payload: payload, to: subscription, key: key, contact: contact)
            } catch {
                return .failed(error.description)
            }
            do {
                var request = HTTPRequest(url: message.endpoint, method: "POST", headers: message.headers, body: message.body, timeout: timeout)
                // Where the browser said, and nowhere else: a redirect is an answer like any other.
                request.followsRedirects = false
                let answer = try await client.send(request)
                switch answer.status {
                case 200..<300: return .delivered
                case 404, 410: return .gone
                case 429, 500..<600: reason = "\(subscription.service) answered \(answer.status)"
                default: return .failed("\(subscription.service) refused the message (\(answer.status))")
                }
            } catch HTTPClientError.timedOut {
                return .failed("\(subscription.service): no answer within \(Int(timeout)) s")
            } catch {
                reason = "\(subscription.service): \(error)"
            }
        }
        return .failed(reason)
    }
}
