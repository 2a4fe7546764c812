import Foundation
import Testing

@testable import OrreryTesting

/// The lookup rule, on folders of stand-in executables: the first place that has one wins, in the documented order.
@Suite struct BinaryLocatorTests {
    /// A folder laid out like a package with a test bundle built into `.build/x86_64/debug`, and two PATH folders.
    struct Layout {
        let root: URL
        var bundleDirectory: URL { root.appendingPathComponent("package/.build/x86_64/debug") }
        var releaseDirectory: URL { root.appendingPathComponent("package/.build/x86_64/release") }
        var packageRoot: URL { root.appendingPathComponent("package") }
        var pathDirectories: [URL] { [root.appendingPathComponent("bin1"), root.appendingPathComponent("bin2")] }
        var explicit: URL { root.appendingPathComponent("explicit/orrery") }
        var fromEnvironment: URL { root.appendingPathComponent("environment/orrery") }

        init() throws {
            root = try Support.temporaryFolder()
            for directory in [bundleDirectory, releaseDirectory, packageRoot] + pathDirectories {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
        }

        func makeExecutable(_ url: URL) throws {
            try Support.script("#!/bin/sh\nexit 0\n", at: url)
        }

        func locator(explicit: String? = nil, binaryVariable: String? = nil) -> BinaryLocator {
            var environment = ["PATH": pathDirectories.map(\.path).joined(separator: ":")]
            environment["ORRERY_BINARY"] = binaryVariable
            return BinaryLocator(
                explicitPath: explicit, environment: environment, bundleDirectories: [bundleDirectory],
                currentDirectory: packageRoot)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test func eachPlaceWinsOverTheOnesAfterIt() throws {
        let layout = try Layout()
        defer { layout.remove() }
        // Fill every place, from the last to the first, checking each time that the newest one wins.
        let places: [(URL, String?, String?)] = [
            (layout.pathDirectories[1].appendingPathComponent("orrery"), nil, nil),
            (layout.pathDirectories[0].appendingPathComponent("orrery"), nil, nil),
            (layout.packageRoot.appendingPathComponent(".build/release/orrery"), nil, nil),
            (layout.packageRoot.appendingPathComponent(".build/debug/orrery"), nil, nil),
            (layout.releaseDirectory.appendingPathComponent("orrery"), nil, nil),
            (layout.bundleDirectory.appendingPathComponent("orrery"), nil, nil),
            (layout.fromEnvironment, nil, layout.fromEnvironment.path),
            (layout.explicit, layout.explicit.path, layout.fromEnvironment.path),
        ]
        for (place, explicit, variable) in places {
            try layout.makeExecutable(place)
            let found = try layout.locator(explicit: explicit, binaryVariable: variable).locate()
            #expect(found.standardizedFileURL.path == place.standardizedFileURL.path)
        }
    }

    @Test func aNamedBinaryThatIsMissingIsAnErrorEvenWhenOthersExist() throws {
        let layout = try Layout()
        defer { layout.remove() }
        try layout.makeExecutable(layout.bundleDirectory.appendingPathComponent("orrery"))

        let fromVariable = #expect(throws: OrreryTestingError.self) {
            try layout.locator(binaryVariable: layout.fromEnvironment.path).locate()
        }
        #expect(fromVariable?.kind == .binaryNotFound)
        #expect(fromVariable?.message.contains("ORRERY_BINARY") == true)
        #expect(fromVariable?.message.contains("does not exist") == true)

        try Data("not a program".utf8).write(to: layout.root.appendingPathComponent("plain"))
        let notExecutable = #expect(throws: OrreryTestingError.self) {
            try layout.locator(explicit: layout.root.appendingPathComponent("plain").path).locate()
        }
        #expect(notExecutable?.message.contains("is not an executable file") == true)
    }

    @Test func aRelativeNamedBinaryIsTakenFromTheCurrentDirectory() throws {
        let layout = try Layout()
        defer { layout.remove() }
        try layout.makeExecutable(layout.packageRoot.appendingPathComponent("tools/orrery"))
        let found = try layout.locator(explicit: "tools/orrery").locate()
        #expect(found.path == layout.packageRoot.appendingPathComponent("tools/orrery").path)
    }

    @Test func nothingFoundListsEveryPlaceLookedAt() throws {
        let layout = try Layout()
        defer { layout.remove() }
        // A folder named orrery is not an executable.
        try FileManager.default.createDirectory(
            at: layout.pathDirectories[0].appendingPathComponent("orrery"), withIntermediateDirectories: true)

        let error = #expect(throws: OrreryTestingError.self) { try layout.locator().locate() }
        #expect(error?.kind == .binaryNotFound)
        let text = error?.description ?? ""
        for place in [
            layout.bundleDirectory.appendingPathComponent("orrery"),
            layout.releaseDirectory.appendingPathComponent("orrery"),
            layout.packageRoot.appendingPathComponent(".build/debug/orrery"),
            layout.pathDirectories[0].appendingPathComponent("orrery"),
            layout.pathDirectories[1].appendingPathComponent("orrery"),
        ] {
            #expect(text.contains(place.path), "\(place.path) is not in: \(text)")
        }
        #expect(text.contains("Recovery suggestion: Build it"))
    }
}
