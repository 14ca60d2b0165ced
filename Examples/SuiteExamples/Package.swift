// swift-tools-version: 6.1
// A separate package that uses the Suite libraries the way another project would: by path here,
// by URL elsewhere. `.ci/run` builds and runs it, so a break in the public API fails CI.
import PackageDescription

let package = Package(
    name: "SuiteExamples",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Suite", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "suite-examples",
            dependencies: [
                .product(name: "MotivationCore", package: "Suite"),
                .product(name: "WorkplaceCore", package: "Suite"),
                .product(name: "QuoteCore", package: "Suite"),
                .product(name: "BundleCore", package: "Suite"),
                .product(name: "SuiteSync", package: "Suite"),
                .product(name: "SuiteURLSession", package: "Suite"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
