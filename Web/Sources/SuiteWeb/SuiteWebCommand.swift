import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import SuiteEnvironment

extension ListenAddress: @retroactive ExpressibleByArgument {
    public var defaultValueDescription: String { description }
}

/// `suite-web [--store-dir DIR] [--listen 127.0.0.1:PORT] [--tile-url TEMPLATE]`: the four apps in
/// a browser, on the local stores, for the person who started it (`suite ui` runs it).
package struct SuiteWebCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "suite-web",
        abstract: "Serve the four apps as a local web app on the store folder, until SIGTERM or SIGINT.",
        discussion: """
            The first line on standard output is the URL to open, with this run's random token \
            (`http://127.0.0.1:PORT/?token=…`); the token becomes a cookie on the first visit. Only \
            loopback addresses are allowed; requests naming another host are refused. The store \
            folder is the one the suite command uses: --store-dir, else $SUITE_HOME, else \
            $XDG_DATA_HOME/suite, else ~/.local/share/suite. Both may run at once. The places map \
            shows streets with Debian's Leaflet (libjs-leaflet, libjs-leaflet.markercluster) when \
            it is installed, over tiles from --tile-url (OpenStreetMap's by default: light use, \
            "© OpenStreetMap contributors" shown on the map); without it, the map is a picture.

            Exit codes: 0 stopped, 64 usage, 74 the store folder or a store cannot be opened.
            """,
        version: SuiteEnvironment.version)

    @Option(name: .customLong("store-dir"), help: ArgumentHelp("The store folder.", valueName: "dir"))
    package var storeDirectory: String?

    @Option(name: .customLong("listen"), help: ArgumentHelp("A loopback address to listen on; port 0 picks a free port.", valueName: "host:port"))
    package var listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8422)

    @Option(name: .customLong("tile-url"), help: ArgumentHelp(
        "Where the places map's tiles come from: https, or http from this machine only; with {z}, {x} and {y}.", valueName: "template"))
    package var tileURL: String = TileSource.openStreetMap

    package init() {}

    package func validate() throws {
        guard ["127.0.0.1", "::1", "localhost"].contains(listen.host) else {
            throw ValidationError("--listen: the web app listens on loopback only (127.0.0.1 or [::1]), not \(listen.host)")
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
        let web: WebApp
        do {
            web = try await WebApp(folder: folder, map: WebMap(tiles: try TileSource(tileURL)))
        } catch {
            throw SuiteWebFailure(message: "\(error)", exitCode: 74)
        }
        let host = listen.host == "localhost" ? "127.0.0.1" : listen.host
        let bound = BoundPort()
        let app = Application(
            router: web.router(hosts: { bound.port.map { WebApp.hosts(host: host, port: $0) } ?? [] }),
            configuration: .init(address: .hostname(host, port: listen.port), serverName: "suite-ui"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                bound.port = port
                let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
                FileHandle.standardOutput.write(Data("http://\(authority)/?token=\(web.secrets.token)\n".utf8))
            },
            logger: logger)
        var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        try await ServiceGroup(configuration: configuration).run()
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
