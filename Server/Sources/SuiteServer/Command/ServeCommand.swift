import ArgumentParser
import HummingbirdTLS
import Foundation
import Logging
import ServiceLifecycle
import SuiteEnvironment
import SuiteHTTPLimits

/// `suite-server serve [--data-dir DIR | --database URL] [--listen HOST:PORT]`.
package struct ServeCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the sync API until SIGTERM or SIGINT.",
        discussion: """
            The first line on standard output is `listening on http://HOST:PORT` (https with \
            --tls-cert), with the port \
            really bound. Storage is SQLite in the data folder unless --database names a \
            PostgreSQL database (postgres://USER[:PASSWORD]@HOST[:PORT]/DB, or \
            postgres://USER@/DB?host=/socket/dir for a Unix socket).
            """ + "\n\n" + EnvironmentOptions.help(for: "serve"))

    /// Exit codes: 64 usage, 69 database unreachable, 74 data folder or stored data.
    @OptionGroup package var place: StorageOptions

    @Option(name: .customLong("listen"), help: ArgumentHelp("The address to listen on; port 0 picks a free port.", valueName: "host:port"))
    package var listen: ListenAddress = .standard

    @Option(name: .customLong("compaction-grace-days"), help: ArgumentHelp(
        "Keep the ids of operations compactions removed for this many days (see `compact`).", valueName: "days"))
    package var compactionGraceDays: Double = CompactionService.defaultGraceDays

    @Option(name: .customLong("max-connections"), help: ArgumentHelp(
        "Connections open at once; past them new ones wait. Default: the descriptor limit less \(ConnectionLimits.reservedDescriptors).", valueName: "n"))
    package var maximumConnections: Int?

    @Option(name: .customLong("connections-per-address"), help: ArgumentHelp(
        "Connections one client address (an IPv6 /64) may hold; 0 for no limit.", valueName: "n"))
    package var connectionsPerAddress: Int = 128

    @Option(name: .customLong("header-timeout"), help: ArgumentHelp("Seconds a new connection has to send its request head.", valueName: "seconds"))
    package var headerTimeout: Double = 10

    @Option(name: .customLong("body-timeout"), help: ArgumentHelp("Seconds a request has to send its whole body.", valueName: "seconds"))
    package var bodyTimeout: Double = 60

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds a connection may wait between requests.", valueName: "seconds"))
    package var idleTimeout: Double = 60

    @Option(name: .customLong("signup"), help: ArgumentHelp(
        "Who may sign up: invite (a code from 'suite-server invite'), open (anyone, a few an hour per address), closed.", valueName: "policy"))
    package var signup: SignupPolicy = .invite

    @Option(name: .customLong("signups-per-address"), help: ArgumentHelp(
        "Sign-ups one client address may make at once, and then an hour.", valueName: "n"))
    package var signupsPerAddress: Int = 5

    @Option(name: .customLong("quota-mb"), help: ArgumentHelp(
        "The most an account may store, in MiB (operations and shared lists); 0 for no limit.", valueName: "MiB"))
    package var quotaMegabytes: Int = ServerPolicy.defaultQuotaMegabytes

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (leaf first).", valueName: "file"))
    package var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    package var tlsKey: String?

    @Flag(name: .customLong("behind-proxy"), help: ArgumentHelp(
        "A proxy on this machine terminates TLS: take the client's address from X-Forwarded-For and refuse what it got over plain HTTP (X-Forwarded-Proto); such headers from elsewhere are ignored."))
    package var behindProxy = false

    package init() {}

    package func validate() throws {
        guard (tlsCertificate == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        if tlsCertificate == nil && !behindProxy && !listen.isLoopback {
            throw ValidationError("listening on \(listen) in plain HTTP would send tokens over the network: give --tls-cert and --tls-key, or --behind-proxy with a proxy that terminates TLS")
        }
        guard quotaMegabytes >= 0, quotaMegabytes <= 1 << 30 else { throw ValidationError("--quota-mb must be 0 or more") }
        guard signupsPerAddress >= 1 else { throw ValidationError("--signups-per-address must be at least 1") }
        guard compactionGraceDays >= 0, compactionGraceDays.isFinite else { throw ValidationError("--compaction-grace-days must be 0 or more") }
        if let maximumConnections, maximumConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
        guard connectionsPerAddress >= 0 else { throw ValidationError("--connections-per-address must be 0 or more") }
        for (name, value) in [("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout)] {
            guard value.isFinite, value >= 0.1, value <= 86_400 else { throw ValidationError("\(name) must be 0.1 to 86400 seconds") }
        }
    }

    /// The connection limits the options set.
    package var connectionLimits: ConnectionLimits {
        ConnectionLimits(
            maximumConnections: maximumConnections ?? ConnectionLimits.defaultMaximum(),
            perAddress: connectionsPerAddress == 0 ? nil : connectionsPerAddress,
            headTimeout: .milliseconds(Int64(headerTimeout * 1000)), bodyTimeout: .milliseconds(Int64(bodyTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)))
    }

    /// Where the SQLite storage lives when no flag says.
    ///
    /// - Parameter environment: The process environment.
    /// - Returns: `$SUITE_SERVER_HOME`, else `~/.local/share/suite-server`.
    package static func defaultDataDirectory(environment: [String: String]) -> URL {
        if let home = environment["SUITE_SERVER_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".local/share/suite-server", isDirectory: true)
    }

    /// The TLS configuration of `--tls-cert` and `--tls-key`, or nil.
    ///
    /// - Throws: ``ServerFailure`` (exit 66) when a file cannot be read or is not PEM.
    func loadTLS() throws -> TLSConfiguration? {
        guard let tlsCertificate, let tlsKey else { return nil }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tlsCertificate)
        } catch {
            throw ServerFailure("cannot read the certificate \(tlsCertificate): \(error)", exitCode: ServerFailure.noInput)
        }
        guard !chain.isEmpty else { throw ServerFailure("\(tlsCertificate) holds no PEM certificate", exitCode: ServerFailure.noInput) }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: tlsKey, format: .pem)
        } catch {
            throw ServerFailure("cannot read the private key \(tlsKey): \(error)", exitCode: ServerFailure.noInput)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }

    package func run() async throws {
        var logger = Logger(label: "suite-server")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info

        let storage: any ServerStorage
        do {
            if let database = place.database {
                storage = try await PostgresServerStorage(url: try PostgresURL(database), logger: logger)
            } else {
                let directory = place.sqliteDirectory
                storage = try SQLiteServerStorage(directory: directory)
            }
        } catch let error as ServerStorageError {
            throw ServerFailure(error)
        }

        let tls = try loadTLS()
        let listen = self.listen
        let scheme = tls == nil ? "http" : "https"
        let app = try ServerApplication.make(
            service: SyncService(storage: storage, policy: ServerPolicy(signup: signup, quotaBytes: quotaMegabytes == 0 ? nil : Int64(quotaMegabytes) << 20, signupBurst: Double(signupsPerAddress))),
            host: listen.host,
            port: listen.port,
            limits: connectionLimits,
            tls: tls,
            behindProxy: behindProxy,
            logger: logger,
            onServerRunning: { port in
                StandardOutput.writeLine("listening on \(scheme)://\(listen.authority(port: port))")
            })
        var configuration = ServiceGroupConfiguration(
            services: [app, CompactionService(storage: storage, grace: compactionGraceDays * 86_400, logger: logger)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        // SIGTERM or SIGINT ends the process within 12 s even when a request or the database
        // client does not stop: postgres-nio 1.33 keeps reconnecting to a database that went
        // away and does not give that up on cancellation, which would keep the server running.
        let stopSignals: [Int32] = [SIGTERM, SIGINT]
        let watchdogs = stopSignals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                DispatchQueue.global().asyncAfter(deadline: .now() + 12) {
                    FileHandle.standardError.write(Data("suite-server: shutdown did not finish within 12 s (a request or the database connection is stuck); exiting\n".utf8))
                    Foundation.exit(ServerFailure.failure)
                }
            }
            source.resume()
            return source
        }
        defer { watchdogs.forEach { $0.cancel() } }
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch let error as ServerStorageError {
            throw ServerFailure(error)
        } catch {
            throw ServerFailure("the server stopped: \(String(describing: error))", exitCode: ServerFailure.failure)
        }
    }
}

extension SignupPolicy: ExpressibleByArgument {}
