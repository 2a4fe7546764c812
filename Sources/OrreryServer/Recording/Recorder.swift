import Foundation
import Logging
import OrreryCore
import OrreryEvent
import Synchronization

/// Turns proxied exchanges into fixture files as they happen (WireMock's recorder: the proxy, plus the traffic it
/// carried made into stubs, with no second code path).
///
/// Event loops ask `shouldRecord` on a miss and hand each recorded answer to `record`, which returns at once: the
/// decoding, redaction and writing happen on a queue of its own, so a slow disk never holds up a response. Every
/// file is written whole (a temporary file, then a rename), so a process killed mid-recording leaves only whole
/// fixtures. A write that fails (a full disk) ends the session with the reason; serving goes on.
final class Recorder: Sendable {
    private let registry: StubRegistry
    private let redactor: Redactor
    private let logger: Logger
    private let queue = DispatchQueue(label: "orrery.recorder")
    /// Mirrors "a session is on", so that a proxied request costs one load when none is.
    private let isActive = Atomic<Bool>(false)
    private let state = Mutex<State>(State())
    /// The current session's writer, touched only on `queue`.
    private let writer = Mutex<FixtureWriter?>(nil)

    private struct State {
        var session: Session?
        /// The last session, once it stopped, for `GET /__admin/recordings`.
        var last: Session?
    }

    private struct Session {
        var settings: RecordingSettings
        var startedAt: Date
        /// Routes with a fixture when the session started: what `once` replays instead of recording.
        var routesWithFixtures: Set<Route>
        var exchangesRecorded = 0
        var filesWritten: Set<String> = []
        var failure: String?
    }

    /// A route as `once` sees it: method, the host a fixture requires (nil for any) and the decoded path.
    private struct Route: Hashable {
        var method: String
        var host: String?
        var path: String
    }

    init(registry: StubRegistry, redactor: Redactor, logger: Logger) {
        self.registry = registry
        self.redactor = redactor
        self.logger = logger
    }

    // MARK: - Sessions

    /// Starts a session: makes the folder, loads its fixtures (throwing their errors) and pins them for the session.
    func start(_ settings: RecordingSettings) throws(RecordingError) {
        // Holding the lock across the start keeps two starts from both succeeding.
        try state.withLock { state throws(RecordingError) in
            if let session = state.session {
                throw RecordingError("a recording into \(session.settings.folder) is already on; stop it first")
            }
            do {
                try AtomicFile.makeFolder(settings.folder)
            } catch {
                throw RecordingError("\(error)")
            }
            AtomicFile.removeLeftovers(in: settings.folder)
            let fixtures: [Stub]
            do {
                fixtures = try registry.pinFixtures(folder: settings.folder, serving: settings.mode != .all)
            } catch {
                throw RecordingError("the fixtures in \(settings.folder) do not load:\n\(error)", sourceErrors: error as? SourceErrors)
            }
            let routes = Set(
                fixtures.compactMap { stub in
                    stub.request.url.exactPath.map { Route(method: stub.request.method ?? "", host: stub.request.host, path: $0) }
                })
            writer.withLock {
                $0 = FixtureWriter(
                    folder: settings.folder, isReplacing: settings.mode == .all, matchHeaders: settings.matchHeaders,
                    origin: "a recording")
            }
            state.session = Session(settings: settings, startedAt: Date(), routesWithFixtures: routes)
            isActive.store(true, ordering: .releasing)
        }
        logger.info(
            "recording into \(settings.folder) (mode \(settings.mode.rawValue)\(settings.matchHeaders.isEmpty ? "" : ", matching headers \(settings.matchHeaders.joined(separator: ", "))"))")
    }

    /// Stops the session after writing what is queued, and serves what it recorded from then on. Returns the
    /// session's account, or nil when none was on.
    @discardableResult
    func stop() -> JSONValue? {
        guard state.withLock({ $0.session != nil }) else { return nil }
        isActive.store(false, ordering: .releasing)
        queue.sync {}
        let session = state.withLock { state -> Session? in
            defer { state.session = nil }
            state.last = state.session
            return state.session
        }
        writer.withLock { $0 = nil }
        guard let session else { return nil }
        release(session)
        logger.info("recording stopped: \(session.exchangesRecorded) exchanges into \(session.filesWritten.count) files in \(session.settings.folder)")
        return describe(session, isRecording: false)
    }

    /// `GET /__admin/recordings`: the session on, or the last one.
    var status: JSONValue {
        queue.sync {}
        return state.withLock { state in
            if let session = state.session { return describe(session, isRecording: true) }
            if let last = state.last { return describe(last, isRecording: false) }
            return .object([("recording", .bool(false))])
        }
    }

    /// The session's fixtures answer again, read anew from the folder.
    private func release(_ session: Session) {
        do {
            try registry.unpinFixtures()
        } catch {
            logger.error("the fixtures recorded into \(session.settings.folder) do not load; the previous stubs stay:\n\(error)")
        }
    }

    private func describe(_ session: Session, isRecording: Bool) -> JSONValue {
        .object([
            ("recording", .bool(isRecording)),
            ("folder", .string(session.settings.folder)),
            ("mode", .string(session.settings.mode.rawValue)),
            ("matchHeaders", .array(session.settings.matchHeaders.map { .string($0) })),
            ("startedAt", .string(JournalEntry.timestamp(session.startedAt))),
            ("exchangesRecorded", .int(session.exchangesRecorded)),
            ("files", .array(session.filesWritten.sorted().map { .string($0) })),
            ("error", .string(session.failure)),
        ])
    }

    // MARK: - Recording

    /// Whether a session is on (one atomic load).
    var isRecording: Bool { isActive.load(ordering: .acquiring) }

    /// Whether the proxy's answer to this request is recorded. `host` is the host its fixture would require.
    func shouldRecord(_ request: HTTPRequest, host: String?) -> Bool {
        guard isActive.load(ordering: .acquiring) else { return false }
        return state.withLock { state in
            guard let session = state.session, session.failure == nil else { return false }
            switch session.settings.mode {
            case .none: return false
            case .newEpisodes, .all: return true
            case .once:
                return !session.routesWithFixtures.contains(Route(method: request.method, host: host, path: request.path))
                    && !session.routesWithFixtures.contains(Route(method: "", host: host, path: request.path))
            }
        }
    }

    /// Queues an answered exchange for its fixture file. `folder` is the upstream's name (the fixture's folder).
    func record(
        _ request: HTTPRequest, host: String?, folder: String, status: Int, headers: HTTPHeaders, body: Payload
    ) {
        queue.async { [self] in
            // A session that stopped still writes what was queued before; one that failed writes nothing more.
            guard var writer = writer.withLock({ $0 }), state.withLock({ $0.session.map { $0.failure == nil } ?? false }) else {
                return
            }
            // The body is decoded before redaction, so that a secret echoed inside gzip is found too.
            var coding: ContentCoding?
            var decoded = body
            if let value = headers["Content-Encoding"], let named = ContentCoding(headerValue: value), named != .identity,
                let bytes = body.withUnsafeBytes({ Zlib.decompress(Array($0), named) })
            {
                coding = named
                decoded = Payload(bytes)
            }
            let exchange = RecordedExchange.redacted(
                request: request, host: host, folder: folder, matchHeaders: writer.matchHeaders, status: status,
                responseHeaders: headers, decodedBody: decoded, encoding: coding, redactor: redactor)
            do {
                let written = try writer.write(exchange)
                self.writer.withLock { $0 = writer }
                state.withLock { state in
                    state.session?.exchangesRecorded += 1
                    if let written { state.session?.filesWritten.insert(written) }
                }
            } catch {
                fail("\(error)")
            }
        }
    }

    /// Ends the session on a write that failed: nothing more is recorded, what was written stays, serving goes on.
    private func fail(_ error: String) {
        let message = "recording stopped: \(error); the fixtures written so far are whole, and serving goes on"
        let session = state.withLock { state -> Session? in
            state.session?.failure = message
            state.last = state.session
            defer { state.session = nil }
            return state.session
        }
        isActive.store(false, ordering: .releasing)
        logger.error("\(message)")
        if let session { release(session) }
    }
}

/// Why a recording could not start.
struct RecordingError: Error, CustomStringConvertible {
    var description: String
    /// The fixture files' own errors, when they are why.
    var sourceErrors: SourceErrors?

    init(_ description: String, sourceErrors: SourceErrors? = nil) {
        self.description = description
        self.sourceErrors = sourceErrors
    }
}
