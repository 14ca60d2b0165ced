import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL
import ServiceLifecycle
import SuiteEnvironment
import SuiteHTTPLimits

extension ListenAddress: @retroactive ExpressibleByArgument {
    public var defaultValueDescription: String { description }
}

/// `suite-web [--store-dir DIR] [--listen HOST:PORT] [--tls-cert FILE --tls-key FILE | --behind-proxy]
/// [--tile-url TEMPLATE]`: the four apps in a browser, on the local stores, for the person who
/// started it (`suite ui` runs it); `suite-web password` sets the sign-in password used off loopback.
package struct SuiteWebCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "suite-web",
        abstract: "Serve the four apps as a local web app on the store folder, until SIGTERM or SIGINT.",
        discussion: """
            The first line on standard output is the URL to open. On loopback it carries this run's \
            random token (`http://127.0.0.1:PORT/?token=…`), which becomes a cookie on the first \
            visit, and requests naming another host are refused. To be reached from other machines \
            (a phone on your network, the internet) it needs the store folder's password \
            (`suite-web password`) and either --tls-cert and --tls-key (this process speaks TLS, on \
            any address) or --behind-proxy (it listens on loopback, and a proxy on this machine, \
            such as Caddy or nginx, speaks TLS and forwards here; its X-Forwarded-* headers are \
            trusted from loopback only); browsers then sign in. The store \
            folder is the one the suite command uses: --store-dir, else $SUITE_HOME, else \
            $XDG_DATA_HOME/suite, else ~/.local/share/suite. Both may run at once. The places map \
            shows streets with Debian's Leaflet (libjs-leaflet, libjs-leaflet.markercluster) when \
            it is installed, over tiles from --tile-url (OpenStreetMap's by default: light use, \
            "© OpenStreetMap contributors" shown on the map); without it, the map is a picture.

            Exit codes: 0 stopped, 64 usage (a listener that is not allowed, no password set), \
            66 the certificate or key cannot be read, 74 the store folder or a store cannot be opened.
            """,
        version: SuiteEnvironment.version,
        subcommands: [SuiteWebPasswordCommand.self])

    @Option(name: .customLong("store-dir"), help: ArgumentHelp("The store folder.", valueName: "dir"))
    package var storeDirectory: String?

    @Option(name: .customLong("listen"), help: ArgumentHelp(
        "The address to listen on; port 0 picks a free port. Off loopback it needs a password and --tls-cert and --tls-key.", valueName: "host:port"))
    package var listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8422)

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("The TLS certificate chain (PEM) to serve https with.", valueName: "file"))
    package var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The TLS certificate's private key (PEM).", valueName: "file"))
    package var tlsKey: String?

    @Flag(name: .customLong("behind-proxy"), help: "A proxy on this machine speaks TLS to browsers and forwards here.")
    package var behindProxy = false

    @Flag(name: .customLong("deliver"), help: ArgumentHelp(
        "Every minute, push the quote and the reminders that are due to the subscribed browsers (for a machine without suite's timers)."))
    package var deliver = false

    @Option(name: .customLong("tile-url"), help: ArgumentHelp(
        "Where the places map's tiles come from: https, or http from this machine only; with {z}, {x} and {y}.", valueName: "template"))
    package var tileURL: String = TileSource.openStreetMap

    package init() {}

    /// Whether `host` is this machine only.
    static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "::1", "localhost"].contains(host)
    }

    /// How browsers reach this app: nil for this run's token on loopback.
    package var transport: WebSignIn.Transport? {
        if tlsCertificate != nil || tlsKey != nil { return .tls }
        if behindProxy { return .proxy }
        return nil
    }

    package func validate() throws {
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw ValidationError(tlsCertificate == nil ? "--tls-key needs --tls-cert, the certificate it belongs to" : "--tls-cert needs --tls-key, the certificate's private key")
        }
        if tlsCertificate != nil && behindProxy {
            throw ValidationError("--behind-proxy and --tls-cert: either this process speaks TLS or the proxy in front does, not both")
        }
        if behindProxy && !Self.isLoopback(listen.host) {
            throw ValidationError("--behind-proxy: listen on loopback (127.0.0.1 or [::1]), where the proxy on this machine forwards; off loopback use --tls-cert and --tls-key")
        }
        if !Self.isLoopback(listen.host) && transport == nil {
            throw ValidationError("--listen \(listen.host): off loopback the web app needs --tls-cert and --tls-key, or --behind-proxy (and a password: suite ui password)")
        }
        if storeDirectory?.isEmpty == true { throw ValidationError("--store-dir is empty") }
        do {
            _ = try TileSource(tileURL)
        } catch {
            throw ValidationError("--tile-url: \(error)")
        }
    }

    /// `--store-dir`, else `$SUITE_HOME`, else `$XDG_DATA_HOME/suite`, else `~/.local/share/suite`,
    /// with `~` expanded: ``SuiteEnvironment``'s rule, the one the `suite` command follows.
    package static func folder(storeDirectory: String?, environment: [String: String]) throws -> URL {
        do {
            return try SuiteEnvironment(environment).storeFolder(option: storeDirectory)
        } catch {
            throw ValidationError(error.description)
        }
    }

    package func run() async throws {
        var logger = Logger(label: "suite-web")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let folder = try Self.folder(storeDirectory: storeDirectory, environment: ProcessInfo.processInfo.environment)
        let access: WebAccess
        do {
            access = try transport.map { .signIn(try WebSignIn(folder: folder, transport: $0)) } ?? .token
        } catch {
            throw SuiteWebFailure(message: "\(error)", exitCode: 64)
        }
        // Off loopback, what anyone who can connect may hold is bounded as on the sync server:
        // connections in all and per address (not behind a proxy, where all come from it), the
        // time to send a request's head and body, and idle connections.
        let limits = ConnectionLimits()
        var server = HTTPServerBuilder.http1()
        var connections: (any AvailableConnectionsDelegate)?
        if transport != nil {
            let tls = try tlsCertificate.flatMap { certificate in try tlsKey.map { try Self.tls(certificate: certificate, key: $0) } }
            do {
                server = try limits.server(gate: AddressGate(limit: behindProxy ? nil : limits.perAddress), tls: tls)
            } catch {
                throw SuiteWebFailure(message: "--tls-cert and --tls-key do not make a TLS server (is the key the certificate's?): \(error)", exitCode: 66)
            }
            connections = MaximumAvailableConnections(limits.maximumConnections)
        }
        let web: WebApp
        do {
            web = try await WebApp(folder: folder, access: access, map: WebMap(tiles: try TileSource(tileURL)))
        } catch {
            throw SuiteWebFailure(message: "\(error)", exitCode: 74)
        }
        let host = listen.host == "localhost" ? "127.0.0.1" : listen.host
        let bound = BoundPort()
        let scheme = transport == .tls ? "https" : "http"
        let app = Application(
            router: web.router(hosts: { bound.port.map { WebApp.hosts(host: host, port: $0) } ?? [] }),
            server: server,
            configuration: .init(address: .hostname(host, port: listen.port), serverName: "suite-ui", availableConnectionsDelegate: connections),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                bound.port = port
                let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
                // Off loopback the address has no secret in it: browsers sign in.
                let url = access.signIn == nil ? "http://\(authority)/?token=\(web.secrets.token)" : "\(scheme)://\(authority)/"
                FileHandle.standardOutput.write(Data((url + "\n").utf8))
            },
            logger: logger)
        let services: [any Service] = deliver ? [app, WebDeliveries(app: web)] : [app]
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        try await ServiceGroup(configuration: configuration).run()
    }
}

extension SuiteWebCommand {
    /// The TLS configuration of `certificate` (a PEM chain) and `key` (PEM).
    static func tls(certificate: String, key: String) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        let privateKey: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
            guard !chain.isEmpty else { throw SuiteWebFailure(message: "", exitCode: 66) }
        } catch {
            throw SuiteWebFailure(message: "--tls-cert \(certificate): not a readable PEM certificate", exitCode: 66)
        }
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw SuiteWebFailure(message: "--tls-key \(key): not a readable PEM private key", exitCode: 66)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        // Made here once so that a key of another certificate is refused before anything starts.
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw SuiteWebFailure(message: "--tls-cert and --tls-key do not make a TLS server (is the key the certificate's?): \(error)", exitCode: 66)
        }
        return configuration
    }
}

/// `suite-web password [--stdin]`: sets the sign-in password of the store folder's web app.
package struct SuiteWebPasswordCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "password",
        abstract: "Set the password browsers sign in with when the web app is reached off loopback.",
        discussion: """
            Kept only as a slow hash (scrypt) in the store folder's web-password file (0600). At \
            least \(WebPassword.minimumCharacters) characters. Setting it signs every browser out. \
            With --stdin the password is read from standard input (one line); otherwise it is asked \
            twice on the terminal.

            Exit codes: 0 set, 64 usage, 65 refused (too short, too long, not the same twice), \
            74 the store folder cannot be written.
            """)

    /// `suite-web`'s own options (`--store-dir`), wherever they stand.
    @ParentCommand var web: SuiteWebCommand

    @Flag(name: .customLong("stdin"), help: "Read the password from standard input.")
    package var fromStandardInput = false

    package init() {}

    package func run() throws {
        let folder = try SuiteWebCommand.folder(storeDirectory: web.storeDirectory, environment: ProcessInfo.processInfo.environment)
        let password: String
        if fromStandardInput {
            let data = FileHandle.standardInput.readData(ofLength: WebPassword.maximumBytes + 3)
            var text = String(decoding: data, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            if text.hasSuffix("\r") { text.removeLast() }
            password = text
        } else {
            guard isatty(0) == 1 else {
                throw SuiteWebFailure(message: "standard input is not a terminal: pass the password with --stdin", exitCode: 64)
            }
            let first = Self.ask("New password: ")
            guard Self.ask("Again: ") == first else { throw SuiteWebFailure(message: "the two passwords differ; nothing was changed", exitCode: 65) }
            password = first
        }
        let made: WebPassword
        do {
            made = try WebPassword.make(password)
        } catch {
            throw SuiteWebFailure(message: "\(error); nothing was changed", exitCode: 65)
        }
        do {
            try made.write(folder: folder)
        } catch {
            throw SuiteWebFailure(message: "\(error)", exitCode: 74)
        }
        FileHandle.standardOutput.write(Data("Password set for \(folder.path); every browser signs in again.\n".utf8))
    }

    /// Asks on the terminal without echoing.
    private static func ask(_ prompt: String) -> String {
        guard let line = getpass(prompt) else { return "" }
        return String(cString: line)
    }
}

/// A failure `suite-web` reports in one line, with its exit code.
package struct SuiteWebFailure: Error {
    package let message: String
    package let exitCode: Int32
}

/// The `suite-web` executable: runs the command, and reports any refusal or failure in one line
/// (`suite-web: …`) with its exit code.
package enum SuiteWebMain {
    /// Runs `suite-web` with arguments.
    ///
    /// - Parameter arguments: The arguments after the program name.
    /// - Returns: The exit code: 0, 64 usage, 74 store folder.
    package static func run(_ arguments: [String]) async -> Int32 {
        do {
            var command = try SuiteWebCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch let failure as SuiteWebFailure {
            writeError(failure.message)
            return failure.exitCode
        } catch {
            let code = SuiteWebCommand.exitCode(for: error)
            if code == .success {
                FileHandle.standardOutput.write(Data((SuiteWebCommand.fullMessage(for: error) + "\n").utf8))
                return 0
            }
            let message = SuiteWebCommand.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "invalid arguments"
            writeError(message + " (see suite-web --help)")
            return code.rawValue
        }
    }

    private static func writeError(_ message: String) {
        FileHandle.standardError.write(Data("suite-web: \(message)\n".utf8))
    }
}

/// The port the server bound, once it did.
final class BoundPort: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int?

    var port: Int? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
