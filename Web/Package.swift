// swift-tools-version: 6.2
import PackageDescription

// suite-web: the four apps as a web app on a store folder (`suite ui` runs it). Its own package,
// beside the sync server's: it links the four cores and Hummingbird, which neither the root
// package (whose libraries an iOS app imports) nor the sync server (which sees ciphertext only)
// should carry.
let package = Package(
    name: "SuiteWeb",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "suite-web", targets: ["suite-web"]),
    ],
    dependencies: [
        .package(name: "Suite", path: ".."),
        // Off loopback, the sync server's connection limits (connections in all and per address,
        // request head and body timeouts, idle connections): only that small library is built.
        .package(name: "SuiteServer", path: "../Server"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        // The templates (escaping by default).
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The sign-in password's slow hash (scrypt), Web Push's VAPID signatures (P-256) and
        // payload encryption (ECDH, HKDF, AES-GCM): built for sync already.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // The TLS listener (`--tls-cert`, `--tls-key`), under Hummingbird's TLS module.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Test-only: the stores filled quickly (built for the cores already).
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // Connections' addresses; byte buffers in the tests.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        // The pages per app, the guards, live updates and the command line. The executable only
        // calls it.
        .target(
            name: "SuiteWeb",
            dependencies: [
                .product(name: "MotivationCore", package: "Suite"),
                .product(name: "QuoteCore", package: "Suite"),
                .product(name: "BundleCore", package: "Suite"),
                .product(name: "WorkplaceCore", package: "Suite"),
                .product(name: "WorkplaceURLSession", package: "Suite"),
                .product(name: "SuiteSync", package: "Suite"),
                .product(name: "SuitePush", package: "Suite"),
                .product(name: "SuiteURLSession", package: "Suite"),
                .product(name: "SuiteEnvironment", package: "Suite"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "SuiteHTTPLimits", package: "SuiteServer"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            // Templates, style sheet and scripts as files, built into the binary (`PackageResources`):
            // nothing to install beside it.
            resources: [.embedInCode("Resources")]
        ),
        .executableTarget(
            name: "suite-web",
            dependencies: [
                "SuiteWeb",
                .product(name: "Logging", package: "swift-log"),
                // Not linked in: a dependency on an executable product only has SwiftPM build it
                // too. So one `swift build --product suite-web` builds all three binaries that are
                // installed together (`suite ui` starts the suite-web beside it), and the build
                // keeps both cores busy across the three instead of narrowing to one module at
                // the end of each (Scripts/install).
                .product(name: "suite", package: "Suite"),
                .product(name: "suite-server", package: "SuiteServer"),
            ]
        ),
        .testTarget(
            name: "SuiteWebTests",
            dependencies: [
                "SuiteWeb",
                // The pages are tested on stores filled through the cores.
                .product(name: "BundleCore", package: "Suite"),
                .product(name: "QuoteCore", package: "Suite"),
                .product(name: "WorkplaceCore", package: "Suite"),
                .product(name: "SuiteEnvironment", package: "Suite"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
