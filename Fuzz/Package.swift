// swift-tools-version: 6.1
// libFuzzer targets for every parser that reads outside input. Built and run by Fuzz/run with
// -sanitize=fuzzer (a separate build: instrumentation is not for the shipped binary).
import PackageDescription

let package = Package(
    name: "SuiteFuzz",
    dependencies: [
        .package(name: "Suite", path: ".."),
        // The same ArgumentParser Suite uses: the cli target reads each command's options from it.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "suite-fuzz",
            dependencies: [
                .product(name: "MotivationCore", package: "Suite"),
                .product(name: "WorkplaceCore", package: "Suite"),
                .product(name: "QuoteCore", package: "Suite"),
                .product(name: "BundleCore", package: "Suite"),
                .product(name: "SuiteCLI", package: "Suite"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
