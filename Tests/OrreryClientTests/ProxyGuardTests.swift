import Foundation
import Testing

@testable import OrreryClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client never sends its calls through a proxy named in the environment.
@Suite struct ProxyGuardTests {
    @Test func loopbackIsAddedToWhatNoProxyHad() {
        let hosts = ["127.0.0.1", "localhost", "::1"]
        #expect(LoopbackProxyGuard.noProxyValue(environment: [:], adding: hosts) == "127.0.0.1,localhost,::1")
        #expect(
            LoopbackProxyGuard.noProxyValue(environment: ["no_proxy": "corp.example, localhost"], adding: hosts)
                == "corp.example,localhost,127.0.0.1,::1")
        #expect(
            LoopbackProxyGuard.noProxyValue(environment: ["NO_PROXY": "corp.example"], adding: hosts + ["[::1]"])
                == "corp.example,127.0.0.1,localhost,::1")
        #expect(LoopbackProxyGuard.noProxyValue(environment: ["no_proxy": "*"], adding: hosts) == nil)
        #expect(
            LoopbackProxyGuard.noProxyValue(environment: ["no_proxy": "127.0.0.1,LOCALHOST,::1"], adding: hosts) == nil)
        // libcurl falls back on the upper-case variable when the lower-case one is not set.
        #expect(LoopbackProxyGuard.noProxyValue(environment: ["NO_PROXY": "127.0.0.1,localhost,::1"], adding: hosts) == nil)
        // ... but not when it is: then only the lower-case one counts.
        #expect(
            LoopbackProxyGuard.noProxyValue(environment: ["no_proxy": "", "NO_PROXY": "127.0.0.1"], adding: hosts)
                == "127.0.0.1,localhost,::1")
    }

    /// Runs `ProxyProbe` in a child process of this test binary, alone, so that changing its environment cannot
    /// disturb the tests running in parallel here: there, `http_proxy` and `all_proxy` name a port that refuses.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/exe")))
    func aProxyInTheEnvironmentDoesNotCaptureTheClient() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let deadProxy = try ClosedPort()
        var environment = ProcessInfo.processInfo.environment
        for name in ["no_proxy", "NO_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"] {
            environment[name] = nil
        }
        environment[ProxyProbe.proxyVariable] = "http://127.0.0.1:\(deadProxy.port)"
        environment[ProxyProbe.daemonVariable] = daemon.baseURL.absoluteString

        let output = daemon.folder.appendingPathComponent("probe.log")
        try Data().write(to: output)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", "ProxyProbe"]
        child.environment = environment
        child.standardOutput = try FileHandle(forWritingTo: output)
        child.standardError = child.standardOutput
        try child.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while child.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        let log = try String(contentsOf: output, encoding: .utf8)
        #expect(child.terminationReason == .exit && child.terminationStatus == 0, "\(log)")
        #expect(log.contains("Test proxyProbe() passed"), "\(log)")
    }
}

/// Runs only in the child process started above, where nothing else shares the environment.
@Suite struct ProxyProbe {
    static let proxyVariable = "ORRERY_CLIENT_PROXY_PROBE"
    static let daemonVariable = "ORRERY_CLIENT_PROXY_PROBE_DAEMON"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[proxyVariable] != nil))
    func proxyProbe() async throws {
        let environment = ProcessInfo.processInfo.environment
        let proxy = try #require(environment[Self.proxyVariable])
        let daemonURL = try #require(environment[Self.daemonVariable].flatMap(URL.init(string:)))
        // Before anything in this process makes a request.
        setenv("http_proxy", proxy, 1)
        setenv("all_proxy", proxy, 1)
        unsetenv("no_proxy")
        unsetenv("NO_PROXY")

        let health = try #require(URL(string: daemonURL.absoluteString + "/__admin/health"))
        let plain = URLSession(configuration: .ephemeral)
        #if canImport(FoundationNetworking)
            // The trap is real here: without the guard, URLSession goes to the dead proxy even for loopback.
            await #expect(throws: (any Error).self) { _ = try await plain.data(from: health) }
        #endif

        let client = OrreryClient(baseURL: daemonURL)
        #expect(try await client.health().status == "ok")
        try await stubRequest(.get, "/through").andReturn(200).withBody("direct").install(on: client)
        #expect(try await client.count(.get, "/through") == 0)
        // The guard works for the whole process: the app's own URLSession goes direct too.
        let (data, _) = try await plain.data(from: try #require(URL(string: daemonURL.absoluteString + "/through")))
        #expect(String(decoding: data, as: UTF8.self) == "direct")
        #expect(String(cString: getenv("http_proxy")) == proxy)
        #expect(String(cString: getenv("no_proxy")).split(separator: ",").contains("127.0.0.1"))
    }
}
