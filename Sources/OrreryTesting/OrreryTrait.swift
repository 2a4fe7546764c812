#if canImport(Testing)
    import Foundation
    import OrreryClient
    import Testing

    /// A Swift Testing trait that gives every test its own Orrery session on one shared daemon.
    ///
    /// On a suite, the daemon is started before the suite's first test and stopped after its last; suites (and
    /// tests) with equal options share it. Each test, and each case of a parameterized test, gets a session of its
    /// own, set in ``Orrery/current`` while it runs and ended after, so tests that run in parallel never see each
    /// other's stubs, requests or scenario states. On a single `@Test` it does the same for that test alone.
    ///
    /// A daemon that could not start fails the suite with the reason (and the daemon's standard error); one that
    /// exited abnormally while the suite ran is recorded as an issue when the suite ends.
    public struct OrreryTrait: SuiteTrait, TestTrait, TestScoping {
        /// How the daemon is started (or which one is attached to).
        public var options: OrreryDaemon.Options

        /// Makes the trait for `options`.
        public init(options: OrreryDaemon.Options) {
            self.options = options
        }

        /// The trait reaches every test in the suite, nested suites included, so each gets a session.
        public var isRecursive: Bool { true }

        /// A scope for the suite (its daemon) and for each test case (its session).
        public func scopeProvider(for test: Test, testCase: Test.Case?) -> OrreryTrait? {
            test.isSuite || testCase != nil ? self : nil
        }

        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            if test.isSuite {
                try await provideSuiteScope(performing: function)
            } else {
                _ = try await Orrery.withSession(options, name: test.name) { _ in
                    do {
                        try await function()
                    } catch let error as OrreryClientError {
                        // A failed `verify` is reported at its call, not at the @Test line a thrown error gets.
                        guard let site = error.callSite else { throw error }
                        Issue.record(
                            error,
                            sourceLocation: SourceLocation(
                                fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
                    }
                }
            }
        }

        /// Holds the shared daemon for the whole suite, so it is not stopped and started again between its tests.
        private func provideSuiteScope(performing function: @Sendable () async throws -> Void) async throws {
            let daemon = try await SharedDaemons.shared.acquire(options)
            do {
                try await Orrery.$suiteDaemon.withValue(daemon) { try await function() }
            } catch {
                report(await SharedDaemons.shared.release(options))
                throw error
            }
            report(await SharedDaemons.shared.release(options))
        }

        /// Records an issue when the suite's daemon, stopped as its last user left, had ended some other way.
        private func report(_ released: (daemon: OrreryDaemon, status: OrreryDaemon.ExitStatus?)?) {
            guard let daemon = released?.daemon, let status = released?.status, status != .exited(0) else { return }
            let errors = daemon.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
            let how =
                status == .signalled(SIGKILL)
                ? "did not stop within \(daemon.options.stopTimeout) of SIGTERM and was killed" : "ended with \(status)"
            Issue.record(
                "orrery (pid \(daemon.pid.map(String.init) ?? "?")) \(how).\(errors.isEmpty ? "" : "\n" + errors)")
        }
    }

    extension Trait where Self == OrreryTrait {
        /// Starts an Orrery daemon for the suite (shared with others that ask for the same) and gives each test a
        /// session of its own: `@Suite(.orrery(stubs: "Stubs"))`.
        /// - Parameters:
        ///   - stubs: the stubs folder, relative to the folder of this source file unless absolute; nil serves none
        ///     but what tests add.
        ///   - config: the config folder (`hosts.json`), taken the same way; nil has no host map.
        ///   - isProxying: forward misses to the host map's upstreams (off: `--no-proxy`).
        ///   - arguments: more options for `orrery serve`.
        ///   - binary: the executable; nil follows the lookup rule (`ORRERY_BINARY`, the package's build, `PATH`).
        ///   - filePath: the calling file, which relative `stubs` and `config` folders start from; leave it out.
        public static func orrery(
            stubs: String? = nil, config: String? = nil, isProxying: Bool = false, arguments: [String] = [],
            binary: String? = nil, filePath: String = #filePath
        ) -> Self {
            OrreryTrait(
                options: OrreryDaemon.Options(
                    stubs: stubs, config: config, isProxying: isProxying, binary: binary, arguments: arguments,
                    filePath: filePath))
        }

        /// The same, for options made in full.
        public static func orrery(_ options: OrreryDaemon.Options) -> Self {
            OrreryTrait(options: options)
        }
    }
#endif
