import Foundation
import Logging
import OrreryCore
import OrreryEvent

/// Relays one upstream answer to the client as it arrives, holding a few buffers, never the whole body.
///
/// An answer that arrives whole in the first read (the usual small one) goes out as one prepared response, as a
/// stub's does. Otherwise the head goes out with what came so far, and each later read is written on as it comes;
/// when the client has more than `maximumQueuedBytes` unread, the upstream is not read until the client catches up
/// (back-pressure), so an upstream that streams forever costs what a small answer does; a client that reads nothing
/// for the send timeout is closed by its connection, which cancels the upstream exchange. The journal and the
/// recorder get the first bytes of the body up to their limits, and its full size, once the answer is complete
/// (before its last bytes are written, so a client that has its answer finds it in the journal).
final class ProxyRelay: UpstreamReceiver, ResponseStreamObserver {
    /// What the client may leave unread before the upstream is paused: a few socket buffers.
    static let maximumQueuedBytes = 256 * 1024

    /// What the relay hands back, to the executor that forwarded the exchange: it journals and sends a whole
    /// answer, journals a streamed one, and records either. Held in the relay itself, so that relaying an answer
    /// allocates nothing beyond the relay (closures over a shared object cost that object and their contexts).
    struct Hooks {
        let exchange: Exchange
        let executor: ReplyExecutor
        /// Record it (the body whole), or say why not (`bodySize` over what was kept); `reads` time the body's
        /// reads for an event stream (empty for other answers). Nil when no recording takes the exchange.
        let record: Record?

        /// What records an answer: its head, its body (whole, or the first bytes) and the body's reads' timing.
        typealias Record = (
            _ status: Int, _ headers: HTTPHeaders, _ trailers: HTTPHeaders?, _ body: Payload, _ bodySize: Int,
            _ reads: [(end: Int, milliseconds: Int)]
        ) -> Void

        /// A whole answer, or the error for a failure before the head was sent: journaled and sent.
        func answered(_ response: Response, _ outcome: JournalEntry.Outcome) {
            executor.send(response, outcome: outcome, for: exchange)
        }

        /// A streamed answer ended (or was cut): journaled with `body` (its first bytes) and `bodySize`.
        func journal(
            _ status: Int, _ headers: HTTPHeaders, _ trailers: HTTPHeaders?, _ body: Payload, _ bodySize: Int,
            _ outcome: JournalEntry.Outcome
        ) {
            executor.journal(status, headers, trailers, body, bodySize: bodySize, outcome: outcome, for: exchange)
        }
    }

    private enum Stage {
        case awaitingHead
        /// The head is here and the body so far is collected, in case it all comes in this read. The head's own
        /// fields were made the client's (the second value).
        case collecting(UpstreamResponseHead, HTTPHeaders)
        case streaming(ResponseStream, UpstreamResponseHead, HTTPHeaders)
        case done
    }

    private let upstream: Upstream
    /// unowned: the forwarder belongs to the loop and outlives every exchange on it.
    private unowned let forwarder: ProxyForwarder
    private let hooks: Hooks
    /// How much of the body the journal and the recorder keep.
    private let captureLimit: Int
    private var stage = Stage.awaitingHead
    /// The body as collected (whole, while collecting; its first `captureLimit` bytes once streaming).
    private var captured: [UInt8] = []
    /// The body, when it came whole in the read that brought the head (the usual small answer): copied once, into
    /// the payload that is sent and journaled, rather than collected first and copied again.
    private var whole: Payload?
    private var bodySize = 0
    /// The `Content-Length` an answer to `HEAD` declared, for the client's head.
    private var declaredLength: Int?
    /// For a recorded event stream: when its head came (uptime nanoseconds), and each read of the body kept, as
    /// its end in the body and its milliseconds since the head, so that the recording keeps the events' timing.
    private var headAt: UInt64?
    private var reads: [(end: Int, milliseconds: Int)] = []
    /// The exchange, while it runs: to pause, resume and cancel it.
    private var exchange: UpstreamExchange?

    init(upstream: Upstream, forwarder: ProxyForwarder, captureLimit: Int, hooks: consuming Hooks) {
        self.upstream = upstream
        self.forwarder = forwarder
        self.captureLimit = captureLimit
        self.hooks = hooks
    }

    func start(_ request: UpstreamRequest, on client: UpstreamClient) {
        exchange = client.send(request, to: self)
        if case .done = stage { exchange = nil }
    }

    // MARK: - Upstream

    func upstream(_ exchange: UpstreamExchange, receivedHead head: consuming UpstreamResponseHead) {
        if hooks.record != nil, Recorder.isEventStream(head.headers) { headAt = DispatchTime.now().uptimeNanoseconds }
        // A HEAD answer's length is the upstream's to state; the client's fields drop it with the other framing.
        if hooks.exchange.request.method == "HEAD" {
            declaredLength = head.headers["Content-Length"].flatMap { Int($0) }
        }
        // The upstream's fields become the client's in place; the head keeps none of its own.
        var fields = HTTPHeaders()
        swap(&fields, &head.headers)
        stage = .collecting(head, ProxyHeaders.clientResponse(fields))
    }

    func upstream(_ exchange: UpstreamExchange, receivedBody raw: UnsafeRawBufferPointer) {
        // Typed bytes: appending them is one memcpy, where raw ones would go a byte at a time.
        let bytes = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
        bodySize += bytes.count
        if let headAt, bodySize <= captureLimit {
            reads.append((bodySize, Int((DispatchTime.now().uptimeNanoseconds - headAt) / 1_000_000)))
        }
        switch stage {
        case .collecting(let head, _):
            if whole == nil, captured.isEmpty, head.contentLength == bytes.count {
                whole = Payload(bytes)
                return
            }
            takeWhole()
            if captured.isEmpty, let length = head.contentLength { captured.reserveCapacity(min(length, 64 * 1024)) }
            captured.append(contentsOf: bytes)
        case .streaming(let stream, _, _):
            let room = captureLimit - captured.count
            if room > 0 { captured.append(contentsOf: UnsafeBufferPointer(rebasing: bytes.prefix(room))) }
            stream.append(raw)
        case .awaitingHead, .done:
            break
        }
    }

    /// A read ended with more to come: the answer is streamed from here on.
    func upstreamPaused(_ exchange: UpstreamExchange) {
        switch stage {
        case .collecting(let head, let headers):
            takeWhole()
            guard
                let stream = hooks.exchange.responder.startRelay(
                    status: head.status, reason: head.reason, headers: headers, contentLength: head.contentLength),
                // The head is written as the stream starts: a client gone by then closed it before it had an
                // observer, and nothing would end the upstream's read for it.
                stream.isOpen
            else {
                cancel()
                return
            }
            stream.observer = self
            stage = .streaming(stream, head, headers)
            captured.withUnsafeBytes { stream.append($0) }
            if captured.count > captureLimit { captured.removeLast(captured.count - captureLimit) }
            write(stream)
        case .streaming(let stream, _, _):
            write(stream)
        case .awaitingHead, .done:
            break
        }
    }

    /// A whole body kept as a payload goes back to being collected: more came after all.
    private func takeWhole() {
        guard let whole else { return }
        self.whole = nil
        whole.withUnsafeBytes { captured.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    private func write(_ stream: ResponseStream) {
        stream.flush()
        if stream.queuedBytes > Self.maximumQueuedBytes { exchange?.pauseReading() }
    }

    func upstreamFinished(_ exchange: UpstreamExchange) {
        defer { finish() }
        // An HTTP/2 upstream's trailers (gRPC's status); nil from HTTP/1.1 upstreams.
        let trailers = exchange.trailers
        switch takeStage() {
        case .collecting(let head, let headers):
            // Whole in one read: one prepared answer.
            let length = declaredLength
            let body = whole ?? (captured.isEmpty ? Payload.empty : Payload(captured))
            if let record = hooks.record {
                var recorded = headers
                if let length { recorded.add("Content-Length", String(length)) }
                record(head.status, recorded, trailers, body, body.count, reads)
            }
            forwarder.relayed(
                hooks.exchange.request, upstream, status: head.status, bodySize: body.count, streamed: false)
            var response = Response(
                status: HTTPStatus(head.status), reason: head.reason, headers: headers, body: body,
                contentLength: length)
            response.trailers = trailers
            hooks.answered(response, outcome(error: nil))
        case .streaming(let stream, let head, let headers):
            let body = Payload(captured)
            hooks.record?(head.status, headers, trailers, body, bodySize, reads)
            hooks.journal(head.status, headers, trailers, body, bodySize, outcome(error: nil))
            forwarder.relayed(hooks.exchange.request, upstream, status: head.status, bodySize: bodySize, streamed: true)
            stream.finish(trailers: trailers)
        case .awaitingHead, .done:
            break
        }
    }

    func upstream(_ exchange: UpstreamExchange, failed failure: UpstreamFailure) {
        defer { finish() }
        switch takeStage() {
        case .awaitingHead, .collecting:
            let (response, outcome) = forwarder.failed(failure, hooks.exchange.request, upstream)
            hooks.answered(response, outcome)
        case .streaming(let stream, let head, let headers):
            // Part of the answer is out: the client sees it cut, and the journal says why.
            let (_, failed) = forwarder.failed(failure, hooks.exchange.request, upstream)
            hooks.journal(head.status, headers, nil, Payload(captured), bodySize, failed)
            stream.abort()
        case .done:
            break
        }
    }

    // MARK: - Client

    func responseStreamDrained(_ stream: ResponseStream) {
        exchange?.resumeReading()
    }

    func responseStreamClosed(_ stream: ResponseStream) {
        guard case .streaming(_, let head, let headers) = stage else { return }
        hooks.journal(head.status, headers, nil, Payload(captured), bodySize, outcome(error: "clientClosed"))
        cancel()
    }

    private func outcome(error: String?) -> JournalEntry.Outcome {
        .proxied(environment: upstream.environmentKey, upstream: upstream.origin, error: error)
    }

    private func cancel() {
        let exchange = self.exchange
        finish()
        exchange?.cancel()
    }

    /// The stage as it was, leaving `.done`, for the exchange's last look at it: taken, so that its head and
    /// fields are not retained for the look and released after.
    private func takeStage() -> Stage {
        var taken = Stage.done
        swap(&taken, &stage)
        return taken
    }

    private func finish() {
        stage = .done
        exchange = nil
        captured = []
        whole = nil
        reads = []
    }
}
