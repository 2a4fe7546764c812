// swift-tools-version:6.0
import PackageDescription

// A benchmark of response template rendering: Orrery's compiled templates against swift-mustache, on the same
// template and request. It is a package of its own so that the main package never depends on swift-mustache.
let package = Package(
    name: "TemplateBench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/swift-mustache", exact: "2.1.1"),
        // Only OrreryCore is built: it needs neither libevent nor zlib.
        .package(name: "Orrery", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "template-bench",
            dependencies: [
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "OrreryCore", package: "Orrery"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        )
    ]
)
