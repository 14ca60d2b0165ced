import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import SuiteHTTPLimits

/// The Hummingbird application: the router over a service, its storage run as a service of
/// the application (so it starts before the server and stops after it).
package enum ServerApplication {
    /// The application type.
    package typealias App = Application<RouterResponder<ServerRequestContext>>

    /// Builds the application.
    ///
    /// - Parameters:
    ///   - service: The service (and, through it, the storage).
    ///   - host: The address to bind.
    ///   - port: The port (0 for any free one).
    ///   - keepAlive: The event stream's keep-alive interval.
    ///   - limits: Connections and timeouts.
    ///   - tls: Serve HTTPS with this configuration.
    ///   - behindProxy: Take the client's address from a proxy on this machine.
    ///   - logger: The application's logger.
    ///   - onServerRunning: Called with the bound port once the server listens.
    /// - Returns: The application, not yet running.
    package static func make(
        service: SyncService,
        host: String = "127.0.0.1",
        port: Int = 0,
        keepAlive: Duration = EventStream.defaultKeepAlive,
        limits: ConnectionLimits = ConnectionLimits(),
        tls: TLSConfiguration? = nil,
        behindProxy: Bool = false,
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> App {
        // Behind a proxy every connection comes from it: no per-address cap there.
        let gate = AddressGate(limit: behindProxy ? nil : limits.perAddress)
        var app = Application(
            router: ServerRouter.make(service: service, keepAlive: keepAlive, behindProxy: behindProxy, connections: { gate.openCount }),
            server: try limits.server(gate: gate, tls: tls),
            configuration: .init(
                address: .hostname(host, port: port), serverName: "suite-server",
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections, logger: logger)),
            services: [service.storage],
            onServerRunning: { channel in
                await onServerRunning(channel.localAddress?.port ?? port)
            },
            logger: logger)
        let storage = service.storage
        app.beforeServerStarts {
            try await storage.waitUntilReady()
        }
        return app
    }
}
