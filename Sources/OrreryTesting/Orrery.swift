import Foundation

// One import for a test: the DSL (`stubRequest`), the client and its types come with the kit.
@_exported import OrreryClient

/// The Orrery a test talks to, as the `.orrery` trait (or `withSession`) sets it for the test's task.
///
/// ```swift
/// @Suite(.orrery(stubs: "Stubs"))
/// struct ForecastTests {
///     @Test func today() async throws {
///         try await stubRequest(.get, "/v1/today").andReturn(.ok).withJSON(["celsius": 21]).install(on: Orrery.client)
///         #expect(try await WeatherClient(baseURL: Orrery.url).today().celsius == 21)
///     }
/// }
/// ```
///
/// The values are task-local: a test's child tasks and `Task { }` see them; `Task.detached` does not (read them
/// before, and pass them in). Reading one outside a scope throws an ``OrreryTestingError`` of kind `.noScope`.
public enum Orrery {
    /// The current test's session: set for each test by the trait, by `OrreryTestCase`'s helpers and by
    /// ``withSession(_:name:_:)``; bind your own with `Orrery.$current.withValue(session) { ... }`.
    @TaskLocal public static var current: OrreryTestSession?

    /// The suite's daemon, for code that runs in the suite's scope but outside a test (a suite's `init`).
    @TaskLocal static var suiteDaemon: OrreryDaemon?

    /// The current test's session.
    public static var session: OrreryTestSession {
        get throws {
            guard let current else { throw OrreryTestingError.noScope("Orrery.session") }
            return current
        }
    }

    /// The base URL the code under test should call: the current session's own port.
    public static var url: URL {
        get throws {
            guard let current else { throw OrreryTestingError.noScope("Orrery.url") }
            return current.url
        }
    }

    /// A client for the current session's admin API: stubs, verification, journal, reset.
    public static var client: OrreryClient {
        get throws {
            guard let current else { throw OrreryTestingError.noScope("Orrery.client") }
            return current.client
        }
    }

    /// The daemon behind the current session (or the suite's daemon, in a suite's `init`).
    public static var daemon: OrreryDaemon {
        get throws {
            if let daemon = current?.daemon ?? suiteDaemon { return daemon }
            throw OrreryTestingError.noScope("Orrery.daemon")
        }
    }

    /// Runs `body` with a session of its own on the daemon shared for `options`, started if no one holds it; ends
    /// the session afterwards, and stops the daemon if no one else holds it, whether `body` returns or throws.
    ///
    /// This is what the trait does for each test; call it yourself in XCTest or elsewhere.
    public static func withSession<Result: Sendable>(
        _ options: OrreryDaemon.Options = OrreryDaemon.Options(), name: String? = nil,
        _ body: (OrreryTestSession) async throws -> Result
    ) async throws -> Result {
        try await withSharedDaemon(options) { daemon in
            let session = try await daemon.openSession(name: name)
            let result: Result
            do {
                result = try await $current.withValue(session) { try await body(session) }
            } catch {
                try? await session.end()
                throw error
            }
            try await session.end()
            return result
        }
    }

    /// Runs `body` with a daemon of its own, and stops it afterwards, whether `body` returns or throws.
    public static func withDaemon<Result: Sendable>(
        _ options: OrreryDaemon.Options = OrreryDaemon.Options(), _ body: (OrreryDaemon) async throws -> Result
    ) async throws -> Result {
        let daemon = try await OrreryDaemon.start(options)
        let result: Result
        do {
            result = try await body(daemon)
        } catch {
            await daemon.shutdown()
            throw error
        }
        await daemon.shutdown()
        return result
    }

    /// Runs `body` with the daemon shared for `options`, released afterwards.
    static func withSharedDaemon<Result: Sendable>(
        _ options: OrreryDaemon.Options, _ body: (OrreryDaemon) async throws -> Result
    ) async throws -> Result {
        let daemon = try await SharedDaemons.shared.acquire(options)
        let result: Result
        do {
            result = try await body(daemon)
        } catch {
            _ = await SharedDaemons.shared.release(options)
            throw error
        }
        _ = await SharedDaemons.shared.release(options)
        return result
    }
}
