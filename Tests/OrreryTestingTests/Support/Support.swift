import Foundation
import OrreryClient
import Synchronization
import Testing

@testable import OrreryTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Helpers shared by the kit's tests.
enum Support {
    /// The stubs folder beside these tests: one file stub, `GET /hello`.
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Stubs").path

    /// Options for a daemon no other test shares: the tag makes them unequal to every other test's.
    static func privateOptions(
        stubs: String? = Support.stubs, binary: String? = nil, readyTimeout: Duration = .seconds(30),
        stopTimeout: Duration = .seconds(5)
    ) -> OrreryDaemon.Options {
        OrreryDaemon.Options(
            stubs: stubs, binary: binary, threads: 1, environment: ["ORRERY_TESTING_TAG": UUID().uuidString],
            readyTimeout: readyTimeout, stopTimeout: stopTimeout)
    }

    /// Whether no process has `pid` any more. A zombie counts as gone: it has exited, and an orphan's zombie waits
    /// for whichever process adopted it (in some containers, one that never reaps).
    static func isGone(_ pid: Int32) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        #if os(Linux)
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            return status.split(separator: "\n").contains { $0.hasPrefix("State:") && $0.contains("Z") }
        #else
            return false
        #endif
    }

    /// Waits up to `limit` for `pid` to be gone; returns how long that took, or nil if it was still there.
    static func waitUntilGone(_ pid: Int32, within limit: Duration) async -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < limit {
            if isGone(pid) { return clock.now - start }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return isGone(pid) ? clock.now - start : nil
    }

    /// A GET of `path` at `base`, as the code under test would send it: status and body text.
    static func get(_ path: String, at base: URL) async throws -> (status: Int, body: String) {
        let url = try #require(URL(string: base.absoluteString + path))
        let (data, response) = try await session.data(for: URLRequest(url: url, timeoutInterval: 10))
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, String(decoding: data, as: UTF8.self))
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    /// A folder of its own under the temporary directory, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-testing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes an executable shell script.
    static func script(_ text: String, at url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }

    /// The probe executable, built beside the test bundle because the tests depend on it.
    static func probe() throws -> URL {
        for directory in BinaryLocator.testBundleDirectories() {
            let candidate = directory.appendingPathComponent("OrreryTestingProbe")
            if BinaryLocator.isExecutableFile(candidate.path) { return candidate }
        }
        throw ProbeMissing()
    }

    struct ProbeMissing: Error, CustomStringConvertible {
        var description: String { "OrreryTestingProbe is not beside the test bundle; build the tests first." }
    }
}

/// The error tests throw on purpose, to see that the kit cleans up after a failing test.
struct DeliberateFailure: Error {}

/// A value that closures running at once may share.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func update(_ change: @Sendable (inout Value) -> Void) { mutex.withLock { change(&$0) } }
}
