// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "WeatherApp",
    // OrreryTesting needs what Orrery's own package needs.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "WeatherKit", targets: ["WeatherKit"])
    ],
    dependencies: [
        // The Orrery package this example lives in. A path dependency's identity is its folder's name, which
        // depends on where the repository was cloned; `name:` gives the name `.product(package:)` uses instead.
        // Outside this repository: .package(url: "https://github.com/<your-org>/orrery", from: "0.1.0"), the same
        // package "Orrery" (see docs/testing-from-swift.md).
        .package(name: "Orrery", path: "../..")
    ],
    targets: [
        // The app's API client: what the tests exercise. It knows nothing of Orrery.
        .target(
            name: "WeatherKit",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Needs only OrreryTesting (Foundation only): no libevent, and the daemon is the orrery binary, found
        // through ORRERY_BINARY or PATH.
        .testTarget(
            name: "WeatherKitTests",
            dependencies: ["WeatherKit", .product(name: "OrreryTesting", package: "Orrery")],
            exclude: ["Stubs"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ]
)
