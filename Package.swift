// swift-tools-version:6.1
import PackageDescription

// One settings list for every Swift target, so the language mode and checks never drift apart.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Orrery",
    // iOS: only OrreryClient and OrreryTesting build there, for UI tests that use a daemon running on the Mac.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "orrery", targets: ["orrery"]),
        .library(name: "OrreryCore", targets: ["OrreryCore"]),
        .library(name: "OrreryClient", targets: ["OrreryClient"]),
        .library(name: "OrreryTesting", targets: ["OrreryTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        // Metrics: swift-metrics' factory for any library that records through it, swift-prometheus for the registry
        // and the text format; swift-atomics for the per-loop counters the request path bumps without a lock.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        // `swift package generate-documentation` (scripts/docs.sh): a command plugin, linked into no target.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // OpenAPI documents: 3.1 (OpenAPIKit), 3.0 (OpenAPIKit30) and Swagger 2.0 (OpenAPIKitCompat). Without its
        // default trait, ExternalLoading: Orrery resolves references across files itself, and the trait slows the build.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0", traits: []),
    ],
    targets: [
        // C libraries, as system-library targets found through pkg-config.
        .systemLibrary(
            name: "CLibevent",
            pkgConfig: "libevent_openssl",
            providers: [.apt(["libevent-dev", "libssl-dev"]), .brew(["libevent", "openssl@3"])]
        ),
        // HTTP/2 framing, HPACK and flow control (Debian 12's 1.52 with its security backports, or 1.61 and newer).
        .systemLibrary(
            name: "CNghttp2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // Pure domain: stubs, matching, the route index, status codes. No I/O, no C.
        .target(
            name: "OrreryCore",
            dependencies: [.product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        // OpenAPI documents (3.0, 3.1, Swagger 2.0) read into operations with compiled JSON Schemas.
        .target(
            name: "OrreryOpenAPI",
            dependencies: [
                "OrreryCore",
                .product(name: "Yams", package: "Yams"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
            ],
            swiftSettings: swiftSettings
        ),
        // The only Swift target that touches C: event loops, the HTTP listener (HTTP/1 and HTTP/2), zlib.
        .target(
            name: "OrreryEvent",
            dependencies: ["OrreryCore", "CLibevent", "CZlib", "CNghttp2"],
            swiftSettings: swiftSettings
        ),
        // Composition: the daemon, the request pipeline, the admin API.
        .target(
            name: "OrreryServer",
            dependencies: [
                "OrreryCore", "OrreryEvent", "OrreryOpenAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            // The dashboard's files are compiled in through Dashboard/DashboardFiles.swift, generated from them by
            // scripts/embed-dashboard-assets.py: no resource bundle to ship beside the binary.
            exclude: ["Dashboard/Assets"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "orrery",
            dependencies: [
                "OrreryServer", "OrreryCore", "OrreryEvent", "OrreryOpenAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The admin API typed and the Nocilla-style DSL, for an app's tests: Foundation only, so a test target
        // that uses it needs neither libevent nor any other C library.
        .target(name: "OrreryClient", swiftSettings: swiftSettings),
        // Starts the orrery binary for a test or a suite and gives each test a session: a Swift Testing trait and an
        // XCTest base class. Foundation and OrreryClient only; it runs the binary, it never links the daemon.
        .target(name: "OrreryTesting", dependencies: ["OrreryClient"], swiftSettings: swiftSettings),

        .testTarget(
            name: "OrreryCoreTests",
            dependencies: ["OrreryCore", .product(name: "Yams", package: "Yams")],  // Yams: the oracle for YAML scalars
            swiftSettings: swiftSettings
        ),
        // Real specs from public repositories, loaded; instances judged beside a second validator (Python).
        .testTarget(
            name: "OrreryOpenAPITests",
            dependencies: ["OrreryOpenAPI", "OrreryCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OrreryServerTests",
            dependencies: [
                "OrreryServer", "OrreryCore", "OrreryEvent", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The request pipeline as values: requests in, replies out, no port opened (the fast tier; the live tests
        // in OrreryServerTests are the other).
        .testTarget(
            name: "OrreryPipelineTests",
            dependencies: [
                "OrreryServer", "OrreryCore", "OrreryEvent", "OrreryOpenAPI",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Runs the real orrery binary; depending on it makes `swift test` build it first.
        .testTarget(
            name: "OrreryEndToEndTests", dependencies: ["orrery", "OrreryOpenAPI", "OrreryCore"],
            swiftSettings: swiftSettings),
        // The client against the real binary, which depending on `orrery` builds first.
        .testTarget(name: "OrreryClientTests", dependencies: ["OrreryClient", "orrery"], swiftSettings: swiftSettings),
        // The kit against the real binary. The probe is a process that starts a daemon through the kit and is then
        // killed, to show that the daemon does not outlive it.
        .executableTarget(
            name: "OrreryTestingProbe", dependencies: ["OrreryTesting"], path: "Tests/OrreryTestingProbe",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "OrreryTestingTests", dependencies: ["OrreryTesting", "OrreryTestingProbe", "orrery"],
            exclude: ["Stubs"], swiftSettings: swiftSettings),
    ]
)
