import Foundation
import Logging
import OrreryCore
import OrreryEvent
import Synchronization

/// Where every exchange goes once it is answered (Astro's NetworkServiceLogger, grown up): redacted once, then kept
/// in the journal and written to the traffic log when one is on; proxied answers also go to the recorder during a
/// recording session. Shared by all event loops.
final class NetworkServiceLogger: Sendable {
    let journal: Journal
    let redactor: Redactor
    let recorder: Recorder
    /// Exchanges as they are journaled, for the dashboard's live view.
    let feed = ExchangeFeed()
    private let logger: Logger
    private let trafficLog = Mutex<TrafficLog?>(nil)
    /// The settings of the last traffic log started, so a restart without a file reuses them.
    private let lastTrafficLog = Mutex<TrafficLogSettings?>(nil)
    /// Mirrors `trafficLog != nil`, so the request path can skip the lock when there is none.
    private let isTrafficLogging = Atomic<Bool>(false)

    /// `--validate-against`: every exchange is checked against a spec.
    let contract: ContractMonitor?

    init(
        journal: Journal, redactor: Redactor, registry: StubRegistry, isProxying: Bool, logger: Logger,
        contract: ContractMonitor? = nil
    ) {
        self.contract = contract
        self.journal = journal
        self.redactor = redactor
        recorder = Recorder(registry: registry, redactor: redactor, isProxying: isProxying, logger: logger)
        self.logger = logger
    }

    /// Whether exchanges are captured at all; when false the request path skips building entries (sessions'
    /// journals have the main one's limits).
    var isCapturing: Bool { journal.limits.isEnabled || isTrafficLogging.load(ordering: .relaxed) }

    /// Captures an answered exchange: the response about to be sent for `exchange`, in its session's journal, the
    /// traffic log and the live view. Call before handing the response to the server, so that a client that has
    /// its answer finds the exchange in the journal. Costs one check when nothing captures.
    /// - Parameter fault: the fault carried out instead of an answer; `status`, `headers` and `body` are then what
    ///   went out.
    /// - Parameter bodySize: the whole body's size when `body` is only its start (a relayed answer's).
    func log(
        _ exchange: Exchange, status: Int, headers: HTTPHeaders, body: @autoclosure () -> Payload, bodySize: Int? = nil,
        outcome: @autoclosure () -> JournalEntry.Outcome, fault: String? = nil, messages: [JournalMessage] = [],
        contractViolations: JSONValue? = nil, trailers: HTTPHeaders? = nil
    ) {
        let journal = exchange.session.journal
        // Counted for the drift report even when nothing is journaled.
        let checked =
            status == 0
            ? nil
            : contract?.record(exchange.request, status: status, headers: headers, body: body(), bodySize: bodySize)
        guard journal.limits.isEnabled || isTrafficLogging.load(ordering: .relaxed) else { return }
        let request = exchange.request
        // Built on the heap where it stays: the journal keeps this very object, the traffic log reads it. The entry
        // goes in as a temporary and is finished in place: a named one is copied on the way in, and each read of a
        // class's struct property from another module copies its dozen fields, so `kept.entry` is read only by those
        // that want it.
        let limit = journal.limits.maximumBodyBytes
        let scheme = exchange.scheme
        let session = exchange.session.id
        let httpVersion = exchange.responder.httpVersion
        let kept = Journal.Kept(
            JournalEntry(
                startedAt: exchange.startedAt,
                durationMicroseconds: max(0, Int(Date().timeIntervalSince(exchange.startedAt) * 1_000_000)),
                request: request, requestBodySize: request.body.count, clientAddress: exchange.incoming.peer,
                response: Self.captured(
                    status: status, headers: headers, body: body(), bodySize: bodySize, limit: limit),
                outcome: outcome())
        ) { entry in
            entry.scheme = scheme
            entry.httpVersion = httpVersion
            // Set only when there is something to set: setting one replaces the default, which is destroyed through
            // the type's metadata (some 100 instructions for a `nil`), and nearly every exchange has none of these.
            if trailers != nil { entry.response.trailers = trailers }
            if session != nil { entry.session = session }
            if fault != nil { entry.fault = fault }
            if !messages.isEmpty { entry.messages = messages }
            if let violations = contractViolations ?? checked { entry.contractViolations = violations }
            if entry.request.body.count > limit { entry.request.body = Array(entry.request.body.prefix(limit)) }
            redactor.redact(&entry)
        }
        journal.record(kept)
        feed.publish(kept)
        if isTrafficLogging.load(ordering: .relaxed), let log = trafficLog.withLock({ $0 }) { log.write(kept.entry) }
    }

    private static func captured(status: Int, headers: HTTPHeaders, body: Payload, bodySize: Int?, limit: Int) -> CapturedResponse {
        var response = CapturedResponse(status: status, headers: headers, body: body, limit: limit)
        if let bodySize { response.bodySize = max(bodySize, response.bodySize) }
        return response
    }

    /// Empties a session's journal, telling the live view.
    func clearJournal(of session: Session) {
        session.journal.clear()
        feed.publishCleared(session: session.id)
    }

    // MARK: - Traffic log

    /// Starts (or restarts with new settings) the traffic log; throws when the file cannot be opened.
    func startTrafficLog(_ settings: TrafficLogSettings) throws {
        let log = try TrafficLog(settings: settings, logger: logger)
        let previous = trafficLog.withLock { current in
            defer { current = log }
            return current
        }
        isTrafficLogging.store(true, ordering: .relaxed)
        lastTrafficLog.withLock { $0 = settings }
        previous?.close()
        logger.info(
            "traffic log on: \(settings.path) (headers \(settings.includeHeaders ? "on" : "off"), bodies \(settings.includeBody ? "on" : "off"))")
    }

    /// Stops the traffic log, writing what is queued first; returns it (for its totals), or nil if none was on.
    @discardableResult
    func stopTrafficLog() -> TrafficLog? {
        let log = trafficLog.withLock { current in
            defer { current = nil }
            return current
        }
        isTrafficLogging.store(false, ordering: .relaxed)
        log?.close()
        if let log { logger.info("traffic log off: \(log.settings.path)") }
        return log
    }

    var currentTrafficLog: TrafficLog? { trafficLog.withLock { $0 } }

    var lastTrafficLogSettings: TrafficLogSettings? { lastTrafficLog.withLock { $0 } }
}
