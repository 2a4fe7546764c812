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
    /// Whether misses are forwarded at all: without the proxy there is nothing to record (mode `none` only replays).
    private let isProxying: Bool
    let logger: Logger
    private let queue = DispatchQueue(label: "orrery.recorder")
    /// Mirrors "a session is on", so that a proxied request costs one load when none is.
    private let isActive = Atomic<Bool>(false)
    private let state = Mutex<State>(State())
    /// The writer of the newest session, by its id; taken only on `queue` (and when a session starts), so that
    /// the event loops never wait on a write.
    private let writer = Mutex<(session: Int, writer: FixtureWriter)?>(nil)
    /// Exchanges queued for writing and the bytes they hold: over `backlogLimit` or `backlogBytesLimit`, an
    /// exchange is not recorded (and counted) rather than queued, so a disk slower than the traffic costs
    /// fixtures, never the daemon's memory.
    private let backlog = Mutex<(exchanges: Int, bytes: Int, skipped: Int)>((0, 0, 0))
    /// Who records, as the folder's lock names it (`pid 12, port 8080`); the port is known once the daemon listens.
    private let holder = Mutex("pid \(getpid())")

    private struct State {
        var session: Session?
        /// The last session, once it stopped: `GET /__admin/recordings` shows it, and an answer it was waiting for
        /// when it stopped is still written to it.
        var last: Session?
        var nextID = 1
    }

    private struct Session {
        var id: Int
        var settings: RecordingSettings
        var startedAt: Date
        /// The registry's pin of the folder's fixtures, released when the session ends.
        var pin: Int
        /// The folder's lock, held until the session ends; none in mode `none`, which writes nothing.
        var lock: FolderLock?
        /// Routes with a fixture when the session started: what `once` replays instead of recording.
        var routesWithFixtures: Set<Route>
        var exchangesRecorded = 0
        /// Exchanges not recorded because the write queue was full, and because their body was over
        /// `--record-body-limit`.
        var skippedBacklog = 0
        var skippedBodyLimit = 0
        /// The route files written, the first `listedFileLimit` of them by name.
        var filesWritten: Set<String> = []
        /// Whether files were written past those named.
        var isFileListCut = false
        /// What redaction took out of the recorded exchanges (`JSON field password`), for the summary.
        var redacted: Set<String> = []
        var failure: String?
    }

    /// A route as `once` sees it: method, the host a fixture requires (nil for any) and the decoded path.
    private struct Route: Hashable {
        var method: String
        var host: String?
        var path: String
    }

    init(registry: StubRegistry, redactor: Redactor, isProxying: Bool, logger: Logger) {
        self.registry = registry
        self.redactor = redactor
        self.isProxying = isProxying
        self.logger = logger
    }

    // MARK: - Sessions

    /// Names this daemon in the lock of the folders it records into, once it knows its port.
    func listening(port: Int) {
        holder.withLock { $0 = "pid \(getpid()), port \(port)" }
    }

    /// Starts a session: makes the folder, loads its fixtures (throwing their errors) and pins them for the session.
    func start(_ settings: RecordingSettings) throws(RecordingError) {
        guard isProxying || settings.mode == .none else {
            throw RecordingError(
                "recording needs the proxy to record from, and misses are not forwarded (no host map, --no-proxy or --offline); mode none only replays")
        }
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
            // Taken before anything in the folder is touched: another daemon's session there is left alone.
            let lock = settings.mode == .none ? nil : try FolderLock(folder: settings.folder, holder: holder.withLock { $0 })
            AtomicFile.removeLeftovers(in: settings.folder)
            if lock == nil { FolderLock.removeStale(in: settings.folder) }
            let pinned: (fixtures: [Stub], pin: Int)
            do {
                pinned = try registry.pinFixtures(folder: settings.folder, serving: settings.mode != .all)
            } catch {
                lock?.release()
                throw RecordingError("the fixtures in \(settings.folder) do not load:\n\(error)", sourceErrors: error as? SourceErrors)
            }
            let routes = Set(
                pinned.fixtures.compactMap { stub in
                    stub.request.url.exactPath.map { Route(method: stub.request.method ?? "", host: stub.request.host, path: $0) }
                })
            let id = state.nextID
            state.nextID += 1
            writer.withLock {
                $0 = (
                    id,
                    FixtureWriter(
                        folder: settings.folder, isReplacing: settings.mode == .all, matchHeaders: settings.matchHeaders,
                        origin: "a recording")
                )
            }
            state.session = Session(
                id: id, settings: settings, startedAt: Date(), pin: pinned.pin, lock: lock, routesWithFixtures: routes)
            isActive.store(true, ordering: .releasing)
        }
        logger.info(
            "recording into \(settings.folder) (mode \(settings.mode.rawValue)\(settings.matchHeaders.isEmpty ? "" : ", matching headers \(settings.matchHeaders.joined(separator: ", "))"))")
    }

    /// Stops the session after writing what is queued, and serves what it recorded from then on. Returns the
    /// session's account, or nil when none was on. An answer the session was still waiting for is written when it
    /// comes.
    @discardableResult
    func stop() -> JSONValue? {
        guard state.withLock({ $0.session != nil }) else { return nil }
        isActive.store(false, ordering: .releasing)
        queue.sync {}
        let session = state.withLock { state -> Session? in
            defer { state.session = nil }
            if let session = state.session { state.last = session }
            return state.session
        }
        guard let session else { return nil }
        release(session)
        let redacted = session.redacted.isEmpty ? "nothing redacted" : "redacted: " + session.redacted.sorted().joined(separator: ", ")
        let skipped = session.skippedBacklog + session.skippedBodyLimit
        let notRecorded =
            skipped == 0
            ? ""
            : "; \(skipped) not recorded (\(session.skippedBacklog) with the write queue full, "
                + "\(session.skippedBodyLimit) over --record-body-limit)"
        let files = "\(session.filesWritten.count)\(session.isFileListCut ? " or more" : "") files"
        let summary =
            "recording stopped: \(session.exchangesRecorded) exchanges into \(files) in \(session.settings.folder)"
            + "\(notRecorded); \(redacted)"
        logger.info("\(summary)")
        return describe(session, isRecording: false)
    }

    /// `GET /__admin/recordings`: the session on, or the last one, once what is queued is written.
    var status: JSONValue {
        queue.sync {}
        return state.withLock { state in
            if let session = state.session { return describe(session, isRecording: true) }
            if let last = state.last { return describe(last, isRecording: false) }
            return .object([("recording", .bool(false))])
        }
    }

    /// The session's fixtures answer again, read anew from the folder (unless a newer session pinned it since).
    private func release(_ session: Session) {
        session.lock?.release()
        do {
            try registry.unpinFixtures(pin: session.pin)
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
            (
                "notRecorded",
                .object([
                    ("writeQueueFull", .int(session.skippedBacklog)), ("overBodyLimit", .int(session.skippedBodyLimit)),
                ])
            ),
            ("files", .array(session.filesWritten.sorted().map { .string($0) })),
            ("filesListed", .bool(!session.isFileListCut)),
            ("redacted", .array(session.redacted.sorted().map { .string($0) })),
            ("error", .string(session.failure)),
        ])
    }

    // MARK: - Recording

    /// How many exchanges may wait for their write, and how many bytes of bodies they may hold in all.
    static let backlogLimit = 2_048
    static let backlogBytesLimit = 32 * 1024 * 1024
    /// How many route files the status names; past that it says the list is cut (`filesListed: false`).
    static let listedFileLimit = 1_000

    /// A compressed body that would decode to more than this (a zip bomb from an upstream) is recorded as it came.
    static let maximumDecodedBody = 256 * 1024 * 1024

    /// Whether a session is on (one atomic load).
    var isRecording: Bool { isActive.load(ordering: .acquiring) }

    /// The session that records the proxy's answer to this request, or nil when it is not recorded. `host` is the
    /// host its fixture would require.
    func shouldRecord(_ request: HTTPRequest, host: String?) -> Int? {
        guard isActive.load(ordering: .acquiring) else { return nil }
        return state.withLock { state in
            guard let session = state.session, session.failure == nil else { return nil }
            switch session.settings.mode {
            case .none: return nil
            case .newEpisodes, .all: return session.id
            case .once:
                // A fixture written without a host, or for any method, holds the route too.
                let routes = session.routesWithFixtures
                for method in [request.method, ""] {
                    if routes.contains(Route(method: method, host: host, path: request.path))
                        || routes.contains(Route(method: method, host: nil, path: request.path))
                    {
                        return nil
                    }
                }
                return session.id
            }
        }
    }

    /// Queues an answered exchange for its fixture file in `session`'s folder. `folder` is the upstream's name (the
    /// fixture's folder within it).
    /// - Parameters:
    ///   - bodySize: the whole body's size; over `body`'s (the relay kept only the first bytes) or over `bodyLimit`
    ///     (`--record-body-limit`), the exchange is not written, and the log says why.
    ///   - reads: when the body came in reads, each one's end in the body and its time (milliseconds since the
    ///     head): an event stream is then written as an `events` stub with the delays it came with.
    func record(
        _ request: HTTPRequest, session: Int, host: String?, folder: String, status: Int, headers: HTTPHeaders,
        body: Payload, bodySize: Int? = nil, bodyLimit: Int = .max, reads: [(end: Int, milliseconds: Int)] = [],
        trailers: HTTPHeaders? = nil
    ) {
        let size = bodySize ?? body.count
        guard size <= body.count, size <= bodyLimit else {
            count(session) { $0.skippedBodyLimit += 1 }
            logger.warning(
                "not recorded: \(request.method) \(request.target): its answer's body (\(size) bytes) is over --record-body-limit (\(bodyLimit) bytes)")
            return
        }
        let bytes = body.count + request.body.count + 1024
        let isQueued = backlog.withLock { backlog in
            // One exchange is always taken into an empty queue, however large (up to --record-body-limit).
            let hasRoom = backlog.exchanges < Self.backlogLimit && backlog.bytes + bytes <= Self.backlogBytesLimit
            guard backlog.exchanges == 0 || hasRoom else {
                backlog.skipped += 1
                return (queued: false, isFirstSkip: backlog.skipped == 1)
            }
            backlog.exchanges += 1
            backlog.bytes += bytes
            return (queued: true, isFirstSkip: false)
        }
        guard isQueued.queued else {
            count(session) { $0.skippedBacklog += 1 }
            if isQueued.isFirstSkip {
                let message =
                    "not recorded: \(request.method) \(request.target): the recording's write queue is full "
                    + "(\(Self.backlogLimit) exchanges or \(Self.backlogBytesLimit / 1024 / 1024) MiB waiting for a disk "
                    + "slower than the traffic); exchanges are not recorded until it drains, counted in "
                    + "GET /__admin/recordings (notRecorded.writeQueueFull)"
                logger.warning("\(message)")
            }
            return
        }
        queue.async { [self] in
            defer { dequeued(bytes) }
            // The session may have stopped since it chose to record (its answer is still written), but not failed.
            let isWritable = state.withLock { state in
                [state.session, state.last].contains { $0?.id == session && $0?.failure == nil }
            }
            guard isWritable else { return }
            // The body is decoded before redaction, so that a secret echoed inside gzip is found too.
            var coding: ContentCoding?
            var decoded = body
            if let value = headers["Content-Encoding"], let named = ContentCoding(headerValue: value), named != .identity,
                let bytes = Zlib.decompress(body.bytes, named, maximumSize: Self.maximumDecodedBody)
            {
                coding = named
                decoded = Payload(bytes)
            }
            var redactions: [String] = []
            let result = writer.withLock { slot -> Result<String?, any Error>? in
                guard var current = slot, current.session == session else { return nil }
                // Taken out and put back, so that the file's episodes are not copied for the write.
                slot = nil
                defer { slot = current }
                var exchange = RecordedExchange.redacted(
                    request: request, host: host, folder: folder, matchHeaders: current.writer.matchHeaders,
                    status: status, responseHeaders: headers, decodedBody: decoded, encoding: coding, redactor: redactor)
                if coding == nil, Self.isEventStream(headers) {
                    let arrivals = EventStreamScript.arrivals(body.bytes, reads: reads)
                    exchange.events = EventStreamScript.parse(exchange.responseBody, arrivals: arrivals)
                }
                exchange.trailers = trailers
                redactions = exchange.redactions
                do {
                    return .success(try current.writer.write(exchange))
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(let written):
                state.withLock { state in
                    func count(_ recorded: inout Session?) {
                        guard recorded?.id == session else { return }
                        recorded?.exchangesRecorded += 1
                        recorded?.redacted.formUnion(redactions)
                        if let written, recorded?.filesWritten.contains(written) == false {
                            if (recorded?.filesWritten.count ?? 0) < Self.listedFileLimit {
                                recorded?.filesWritten.insert(written)
                            } else {
                                recorded?.isFileListCut = true
                            }
                        }
                    }
                    count(&state.session)
                    count(&state.last)
                }
            case .failure(let error):
                fail(session, "\(error)")
            case nil:
                break
            }
        }
    }

    /// Whether an answer is a server-sent event stream (`text/event-stream`, any parameters).
    static func isEventStream(_ headers: HTTPHeaders) -> Bool {
        guard let type = headers["Content-Type"] else { return false }
        let media = type.split(separator: ";", maxSplits: 1).first ?? ""
        return media.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }

    /// Writes a whole fixture file of its own (a recorded WebSocket's stub) at `relativePath` in `session`'s folder,
    /// on the recorder's queue; a file already there is replaced.
    func recordFile(session: Int, relativePath: String, text: String) {
        queue.async { [self] in
            let folder = writer.withLock { slot in slot?.session == session ? slot?.writer.folder : nil }
            guard let folder else { return }
            let path = folder + "/" + relativePath
            do {
                try AtomicFile.makeFolder((path as NSString).deletingLastPathComponent)
                try AtomicFile.write(Array(text.utf8), to: path)
            } catch {
                fail(session, "\(error)")
                return
            }
            state.withLock { state in
                if state.session?.id == session {
                    state.session?.exchangesRecorded += 1
                    state.session?.filesWritten.insert(relativePath)
                }
            }
        }
    }

    /// Counts something in the session `id`, on or stopped.
    private func count(_ id: Int, _ change: (inout Session) -> Void) {
        state.withLock { state in
            if state.session?.id == id, var session = state.session {
                change(&session)
                state.session = session
            } else if state.last?.id == id, var last = state.last {
                change(&last)
                state.last = last
            }
        }
    }

    /// An exchange left the write queue; once the queue is empty after exchanges were not recorded, the log says
    /// how many.
    private func dequeued(_ bytes: Int) {
        let skipped = backlog.withLock { backlog -> Int in
            backlog.exchanges -= 1
            backlog.bytes -= bytes
            guard backlog.exchanges == 0, backlog.skipped > 0 else { return 0 }
            defer { backlog.skipped = 0 }
            return backlog.skipped
        }
        if skipped > 0 {
            let note =
                "recording caught up: \(skipped) exchanges were not recorded while its write queue was full"
                + " (notRecorded.writeQueueFull in GET /__admin/recordings)"
            logger.warning("\(note)")
        }
    }

    /// Ends a session on a write that failed: nothing more is recorded, what was written stays, serving goes on.
    private func fail(_ id: Int, _ error: String) {
        let message = "recording stopped: \(error); the fixtures written so far are whole, and serving goes on"
        let ended = state.withLock { state -> Session? in
            if state.last?.id == id { state.last?.failure = message }
            guard var session = state.session, session.id == id else { return nil }
            session.failure = message
            state.last = session
            state.session = nil
            isActive.store(false, ordering: .releasing)
            return session
        }
        logger.error("\(message)")
        if let ended { release(ended) }
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
