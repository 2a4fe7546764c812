#if canImport(XCTest)
    import Foundation
    import OrreryClient
    import XCTest

    /// An XCTest base class that starts one daemon for the class and gives each test method a session of its own.
    ///
    /// ```swift
    /// final class ForecastTests: OrreryTestCase {
    ///     override class var orreryOptions: OrreryDaemon.Options { .init(stubs: "Stubs") }
    ///     func testToday() async throws {
    ///         let session = try orrery
    ///         try await stubRequest(.get, "/v1/today").andReturn(.ok).withJSON(["celsius": 21]).install(on: session.client)
    ///         let today = try await WeatherClient(baseURL: session.url).today()
    ///         XCTAssertEqual(today.celsius, 21)
    ///     }
    /// }
    /// ```
    ///
    /// The daemon starts in `class func setUp()` and stops in `class func tearDown()`; each test's session opens in
    /// `setUp() async throws` and ends in `tearDown() async throws`, failing or not (call `super` when you override
    /// them). A daemon that cannot start fails each test with the reason instead of stopping the run. With
    /// `swift test --parallel`, XCTest runs each test method in a process of its own, so each gets a daemon of its
    /// own (about 40 ms); in Swift Testing the trait shares one daemon across parallel tests.
    open class OrreryTestCase: XCTestCase {
        /// How the class's daemon is started; override to name the stubs folder and other options.
        open class var orreryOptions: OrreryDaemon.Options { OrreryDaemon.Options() }

        /// Each test class's daemon, or why it could not start.
        private static let daemons = LockedValue<[ObjectIdentifier: Result<OrreryDaemon, any Error>]>([:])

        /// The running test's session, between `setUp` and `tearDown`.
        private var session: OrreryTestSession?

        override open class func setUp() {
            super.setUp()
            let options = orreryOptions
            let result = Result { try OrreryDaemon.launch(options) }
            daemons.withLock { $0[ObjectIdentifier(self)] = result }
        }

        override open class func tearDown() {
            let result = daemons.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
            if case .success(let daemon)? = result { daemon.stop() }
            super.tearDown()
        }

        override open func setUp() async throws {
            try await super.setUp()
            session = try await orreryDaemon.openSession(name: name)
        }

        override open func tearDown() async throws {
            let ending = session
            session = nil
            try await ending?.end()
            try await super.tearDown()
        }

        /// This test's session: its `url` for the code under test, its `client` for stubs and verification.
        public var orrery: OrreryTestSession {
            get throws {
                guard let session else { throw OrreryTestingError.noScope("OrreryTestCase.orrery (outside setUp/tearDown)") }
                return session
            }
        }

        /// The class's daemon, or the error that kept it from starting.
        public var orreryDaemon: OrreryDaemon {
            get throws {
                let result = Self.daemons.withLock { $0[ObjectIdentifier(Self.self)] }
                guard let result else {
                    throw OrreryTestingError.noScope("OrreryTestCase.orreryDaemon (class setUp has not run)")
                }
                return try result.get()
            }
        }
    }
#endif
