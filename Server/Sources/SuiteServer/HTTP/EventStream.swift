import Hummingbird
import NIOCore
import ServiceLifecycle

/// The `text/event-stream` answer to `GET /v1/events`: `data: LOG` each time one of the
/// account's logs receives new operations, and a `: keep-alive` comment at an interval so
/// proxies and clients know the stream is alive. It ends when the client goes, the hub closes,
/// or the server shuts down gracefully.
package enum EventStream {
    /// The keep-alive interval the server uses.
    package static let defaultKeepAlive: Duration = .seconds(15)

    /// Makes the streaming response.
    ///
    /// - Parameters:
    ///   - hub: Where the storage announces changes.
    ///   - session: The asking device.
    ///   - keepAlive: The interval between keep-alive comments.
    ///   - stillSignedIn: Asked at each keep-alive: the stream ends once it says no (the device
    ///     was revoked, or the account deleted or disabled, perhaps by another process).
    /// - Returns: The response; its body runs until the stream ends.
    package static func response(
        hub: SyncEventHub, session: DeviceSession, keepAlive: Duration,
        stillSignedIn: @escaping @Sendable () async -> Bool = { true }
    ) -> Response {
        // Subscribe now, so nothing pushed after this request was answered is missed.
        let changes = hub.subscribe(accountID: session.accountID, deviceID: session.deviceID)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let (chunks, output) = AsyncStream.makeStream(of: String.self)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await log in changes {
                        output.yield("data: \(log)\n\n")
                    }
                    output.finish()
                }
                group.addTask {
                    while !Task.isCancelled {
                        // Each stream's own rhythm (±20 %): streams opened together do not all ask
                        // the storage about their device at the same moment, every time.
                        try await Task.sleep(for: keepAlive * Double.random(in: 0.8...1.2))
                        guard await stillSignedIn() else {
                            output.finish()
                            return
                        }
                        output.yield(": keep-alive\n\n")
                    }
                }
                // A first comment sends the headers at once.
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                for await chunk in chunks.cancelOnGracefulShutdown() {
                    try await writer.write(ByteBuffer(string: chunk))
                }
                group.cancelAll()
            }
            try await writer.finish(nil)
        })
    }
}
