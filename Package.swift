// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Suite",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "MotivationCore", targets: ["MotivationCore"]),
        .library(name: "WorkplaceCore", targets: ["WorkplaceCore"]),
        .library(name: "QuoteCore", targets: ["QuoteCore"]),
        .library(name: "BundleCore", targets: ["BundleCore"]),
        // URLSession as WorkplaceCore's HTTP client, for apps (kept apart so a program that does not
        // fetch does not link FoundationNetworking and libcurl on Linux).
        .library(name: "WorkplaceURLSession", targets: ["WorkplaceURLSession"]),
        // Sync as a library: SyncClient syncs the stores an app hands it through any HTTPClient.
        .library(name: "SuiteSync", targets: ["SuiteSync"]),
        // URLSession as an HTTPClient (for SuiteSync and WorkplaceCore's providers), apart so that
        // a program that does not fetch does not link FoundationNetworking on Linux.
        .library(name: "SuiteURLSession", targets: ["SuiteURLSession"]),
        // HTTP values and the client protocol the providers take (WorkplaceCore re-exports it).
        .library(name: "SuiteHTTP", targets: ["SuiteHTTP"]),
        .executable(name: "suite", targets: ["suite"]),
        // The sync protocol's wire format, for the server package.
        .library(name: "SuiteSyncProtocol", targets: ["SuiteSyncProtocol"]),
        // Escaping user text into HTML, XML, Markdown and plain text: the cores' renderers and
        // the sync server's shared-list pages use the same one.
        .library(name: "SuiteMarkup", targets: ["SuiteMarkup"]),
        // The commands as a library, for the in-process CLI fuzz target (Fuzz/); not an API.
        .library(name: "SuiteCLI", targets: ["SuiteCLI"]),
        // What the suite command and the web app read from their environment (Foundation only).
        .library(name: "SuiteEnvironment", targets: ["SuiteEnvironment"]),
        // Web Push (RFC 8030, 8291, 8292): the subscribed browsers of a store folder and the sender,
        // shared by the suite command (deliveries) and the web app (subscriptions).
        .library(name: "SuitePush", targets: ["SuitePush"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Sync's end-to-end encryption (ChaCha20-Poly1305, HKDF, HMAC, PBKDF2) and Web Push's
        // (P-256, HKDF, AES-GCM); only SuiteSyncCrypto and SuitePush use it, so no core builds it.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Test-only: a real HTTP server on loopback for the provider tests.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        // Test-only: property-based tests of every output format against independent readers.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // The wire format of sync, shared with the server package (Server/).
        .target(name: "SuiteSyncProtocol"),
        .target(name: "SuiteMarkup"),
        // The store folder, user, providers and version, as the CLI and the web app read them.
        .target(name: "SuiteEnvironment"),
        // Internal plumbing: opening a SQLite store safely. `package` access only, not a product.
        .target(
            name: "SuiteStorage",
            dependencies: [
                "SuiteSyncProtocol", "SuiteMarkup",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // Sync's account keys and the encrypting codec (client side; SuiteSync uses them).
        .target(
            name: "SuiteSyncCrypto",
            dependencies: [
                "SuiteStorage", "SuiteSyncProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SuiteSyncCryptoTests",
            dependencies: ["SuiteSyncCrypto", "SuiteStorage", "SuiteSyncProtocol", "SuiteTestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto")]
        ),
        .target(
            name: "MotivationCore",
            dependencies: ["SuiteStorage", "SuiteMarkup", "SuiteSyncProtocol", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // HTTP requests and answers as plain values, and the client protocol providers take.
        .target(name: "SuiteHTTP"),
        .target(
            name: "WorkplaceCore",
            dependencies: ["SuiteStorage", "SuiteMarkup", "SuiteSyncProtocol", "SuiteHTTP", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "WorkplaceURLSession",
            dependencies: ["WorkplaceCore", "SuiteURLSession"]
        ),
        .target(
            name: "SuiteURLSession",
            dependencies: ["SuiteHTTP"]
        ),
        // Sync for apps and the CLI: account, keys, session, transport (any HTTPClient), watch.
        .target(
            name: "SuiteSync",
            dependencies: [
                "SuiteStorage", "SuiteSyncProtocol", "SuiteSyncCrypto", "SuiteHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SuiteSyncTests",
            dependencies: ["SuiteSync", "BundleCore", "QuoteCore", "SuiteStorage", "SuiteSyncProtocol", "SuiteHTTP", "SuiteURLSession", "SuiteTestSupport"]
        ),
        .target(
            name: "QuoteCore",
            dependencies: ["SuiteStorage", "SuiteMarkup", "SuiteSyncProtocol", "SuiteHTTP", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "BundleCore",
            dependencies: ["SuiteStorage", "SuiteMarkup", "SuiteSyncProtocol", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // libcurl opened with dlopen when `suite places` fetches (see CurlHTTPClient).
        .target(
            name: "CSuiteCurl",
            path: "Sources/Tools/CSuiteCurl",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // Web Push: subscriptions (in the store folder's push.sqlite), VAPID, aes128gcm, the sender.
        .target(
            name: "SuitePush",
            dependencies: [
                "SuiteStorage", "SuiteHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "SuitePushTests",
            dependencies: ["SuitePush", "SuiteHTTP", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "SuiteCLI",
            dependencies: [
                "MotivationCore", "WorkplaceCore", "QuoteCore", "BundleCore", "SuiteStorage", "CSuiteCurl",
                "SuiteSyncCrypto", "SuiteSyncProtocol", "SuiteSync", "SuiteEnvironment", "SuitePush",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Tools/SuiteCLI"
        ),
        .executableTarget(
            name: "suite",
            dependencies: ["SuiteCLI"],
            path: "Sources/Tools/suite"
        ),
        .testTarget(name: "SuiteEnvironmentTests", dependencies: ["SuiteEnvironment"]),
        .testTarget(
            name: "SuiteStorageTests",
            dependencies: ["SuiteStorage", "SuiteSyncProtocol", "SuiteTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "MotivationCoreTests",
            dependencies: ["MotivationCore", "SuiteStorage", "SuiteTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Test helpers: a scripted HTTP server on loopback; a recorder of observations.
        .target(
            name: "SuiteTestSupport",
            dependencies: ["SuiteStorage", "SuiteSyncProtocol", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "FlyingFox", package: "FlyingFox")],
            path: "Tests/Support/SuiteTestSupport"
        ),
        .testTarget(
            name: "WorkplaceCoreTests",
            dependencies: ["WorkplaceCore", "WorkplaceURLSession", "SuiteStorage", "SuiteTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "QuoteCoreTests",
            dependencies: ["QuoteCore", "SuiteStorage", "SuiteTestSupport"]
        ),
        .testTarget(
            name: "BundleCoreTests",
            dependencies: ["BundleCore", "SuiteStorage", "SuiteTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Every output format written from hostile text, read back by parsers nobody here wrote.
        .testTarget(
            name: "FormatTests",
            dependencies: [
                "MotivationCore", "QuoteCore", "BundleCore", "WorkplaceCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "SuiteCLITests",
            dependencies: ["SuiteCLI", "suite", "SuiteSync", "SuiteTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
