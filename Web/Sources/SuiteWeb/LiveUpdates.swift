import BundleCore
import Foundation
import HTTPTypes
import Hummingbird
import MotivationCore
import NIOCore
import QuoteCore
import ServiceLifecycle
import WorkplaceCore

/// Says which app's data changed — by this app, the `suite` CLI, another tab or a sync — once
/// per commit, to every open page (server-sent events on `/events`; the page script fetches the
/// page once and replaces the parts that differ, or offers to reload when a form on it holds
/// unsaved input).
package final class LiveUpdates: @unchecked Sendable {
    private let lock = NSLock()
    private var listeners: [UUID: AsyncStream<String>.Continuation] = [:]
    private var watchers: [Task<Void, Never>] = []
    private var following: Set<String> = []

    init() {}

    /// Follows each app's store: one announcement per commit that changed it (or per burst of
    /// them), without reading what changed — a page that hears it fetches itself once and
    /// replaces what differs. The following tasks hold the stores and this hub weakly, never the
    /// app, so when the app is let go of (a test's, say) ``deinit`` cancels them.
    func watch(_ app: WebApp) {
        let hub = WeakHub(self)
        let (bmm, quotes, bundles, places) = (app.bmm, app.quotes, app.bundles, app.places)
        let tasks = [
            Task { await Self.follow(bmm.observeChanges(), as: "bmm", to: hub) },
            Task { await Self.follow(quotes.observeChanges(), as: "quotes", to: hub) },
            Task { await Self.follow(bundles.observeChanges(), as: "bundle", to: hub) },
            Task { await Self.follow(places.observeChanges(), as: "places", to: hub) },
        ]
        lock.withLock { watchers += tasks }
    }

    /// The hub, for the tasks that follow the stores without keeping it alive.
    private final class WeakHub: @unchecked Sendable {
        weak var hub: LiveUpdates?
        init(_ hub: LiveUpdates) { self.hub = hub }
    }

    /// Every value after the first is a change. An observation that fails (the store busy for
    /// longer than its timeout, say) is started again a second later, and that counts as a change.
    private static func follow<Element, Failure>(
        _ observation: @autoclosure @Sendable () -> StoreObservation<Element, Failure>, as app: String, to weakHub: WeakHub
    ) async {
        var first = true
        while !Task.isCancelled {
            do {
                for try await _ in observation() {
                    guard let hub = weakHub.hub else { return }
                    if first {
                        first = false
                        hub.lock.withLock { _ = hub.following.insert(app) }
                        continue
                    }
                    hub.announce(app)
                }
                return
            } catch {
                weakHub.hub?.trace("\(app): observation failed (\(error)); following again")
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// The apps whose stores are followed now (their first value seen): for tests.
    var followed: Set<String> { lock.withLock { following } }

    func trace(_ line: String) {
        if ProcessInfo.processInfo.environment["SUITE_WEB_TRACE"] != nil {
            FileHandle.standardError.write(Data("suite-web: \(line)\n".utf8))
        }
    }

    func announce(_ app: String) {
        let listeners = lock.withLock { Array(self.listeners.values) }
        trace("\(app) changed; \(listeners.count) pages listening")
        for listener in listeners { listener.yield(app) }
    }

    func listen() -> (UUID, AsyncStream<String>) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        lock.withLock { listeners[id] = continuation }
        return (id, stream)
    }

    func stop(_ id: UUID) {
        let listener = lock.withLock { listeners.removeValue(forKey: id) }
        listener?.finish()
    }

    deinit {
        for watcher in watchers { watcher.cancel() }
    }

    /// `GET /events`: `data: APP` for each change; a comment every 15 s keeps the connection open.
    func response() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let (id, stream) = listen()
        return Response(status: .ok, headers: headers, body: ResponseBody { [self] writer in
            defer { stop(id) }
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: .seconds(15))
                        self.lock.withLock { self.listeners[id] }?.yield("")
                    }
                }
                for await app in stream.cancelOnGracefulShutdown() {
                    try await writer.write(ByteBuffer(string: app.isEmpty ? ": keep-alive\n\n" : "data: \(app)\n\n"))
                }
                group.cancelAll()
            }
            try await writer.finish(nil)
        })
    }
}
