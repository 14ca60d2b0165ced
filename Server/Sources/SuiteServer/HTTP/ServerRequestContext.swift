import Hummingbird
import SuiteHTTPLimits

/// The per-request context: Hummingbird's core storage and, once the bearer token is checked,
/// the device making the request.
package struct ServerRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The authenticated device (set by ``BearerAuthenticationMiddleware``).
    package var session: DeviceSession?
    /// The client's address, as limits count it (the socket's peer).
    package var clientAddress: ClientAddress
    /// Whether the connection comes from this machine (a proxy's, with `--behind-proxy`).
    package let peerIsLoopback: Bool

    /// Creates an unauthenticated context.
    package init(source: Source) {
        coreContext = .init(source: source)
        clientAddress = ClientAddress(source.channel.remoteAddress)
        peerIsLoopback = ClientAddress.isLoopback(source.channel.remoteAddress)
    }

    /// The authenticated device.
    ///
    /// - Throws: ``SyncServiceError/unauthorized(_:)`` if the route is not behind the middleware.
    package func requireSession() throws -> DeviceSession {
        guard let session else { throw SyncServiceError.unauthorized("missing bearer token") }
        return session
    }
}
