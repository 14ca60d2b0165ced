// swift-tools-version: 6.2
import PackageDescription

// suite-server: the sync server. Its own package because Hummingbird needs swift-tools 6.2 and
// macOS 14, while the root package's libraries target iOS 16; it shares only the wire format
// (the root package's SuiteSyncProtocol product) and how times and addresses are written
// (SuiteEnvironment). It never links the four apps: the web app is the Web package, which takes
// the connection limits from here (SuiteHTTPLimits) when it faces the network.
let package = Package(
    name: "SuiteServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "suite-server", targets: ["suite-server"]),
        // Connections and request timeouts of a Hummingbird server facing the internet: the sync
        // server's, and the web app's off loopback.
        .library(name: "SuiteHTTPLimits", targets: ["SuiteHTTPLimits"]),
    ],
    dependencies: [
        .package(name: "Suite", path: ".."),
        // Without the ConfigurationSupport trait: the server reads its settings from flags.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // Request parts as HTTP types, for the connection limits' handlers (Hummingbird's own dependency).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // /metrics in Prometheus's text format.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Header names the proxy sets (Hummingbird's own dependency).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "SuiteHTTPLimits",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Everything the server does: storage (SQLite, PostgreSQL), accounts, the HTTP API,
        // events, and the command line. The executable only calls it.
        .target(
            name: "SuiteServer",
            dependencies: [
                "SuiteHTTPLimits",
                .product(name: "SuiteSyncProtocol", package: "Suite"),
                .product(name: "SuiteMarkup", package: "Suite"),
                .product(name: "SuiteEnvironment", package: "Suite"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "suite-server",
            dependencies: [
                "SuiteServer",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SuiteServerTests",
            dependencies: [
                "SuiteServer",
                "SuiteHTTPLimits",
                // Built for the tests that run the executable.
                "suite-server",
                .product(name: "SuiteSyncProtocol", package: "Suite"),
                .product(name: "SuiteEnvironment", package: "Suite"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
