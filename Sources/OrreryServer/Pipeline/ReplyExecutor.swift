import Foundation
import OrreryCore
import OrreryEvent
import OrreryOpenAPI

/// Carries out the pipeline's replies on one event loop: journals each exchange (before its answer goes out, so a
/// client that has its answer finds it in the journal) and sends the answer once, after its delay, at its bandwidth
/// limit, or goes wrong on purpose as its fault says.
struct ReplyExecutor {
    let serviceLogger: NetworkServiceLogger
    /// Nil when the proxy is off.
    let proxy: ProxyForwarder?
    /// This loop's counters; nil with `--no-metrics`.
    var metrics: LoopMetrics?

    func carryOut(_ reply: Reply, for exchange: Exchange) {
        switch reply {
        case .stub(let entry, let prepared):
            // The journal keeps the body as the stub gives it, whichever encoding goes out.
            send(
                prepared.encoded(for: exchange.request.headers), journaling: prepared.status, prepared.headers,
                prepared.body, of: entry, after: prepared.delayMilliseconds, for: exchange)
        case .spec(let answer):
            metrics?.answered(.spec, status: answer.status, kind: exchange.sessionKind, startedAt: exchange.arrivedAt)
            serviceLogger.log(
                exchange, status: answer.status, headers: answer.headers, body: answer.body,
                outcome: .spec(operationId: answer.operationId, source: answer.source),
                contractViolations: answer.violations.isEmpty ? nil : .array(answer.violations.map(\.json)))
            exchange.responder.send(answer.encoded)
        case .rendered(let entry, let encoded, let headers, let body, let delay):
            send(encoded, journaling: encoded.status, headers, body, of: entry, after: delay, for: exchange)
        case .answer(let answer):
            if answer.delayMilliseconds > 0 {
                exchange.responder.after(milliseconds: answer.delayMilliseconds) { send(answer, for: exchange) }
            } else {
                send(answer, for: exchange)
            }
        case .fault(let fault, let delay, let outcome):
            if delay > 0 {
                exchange.responder.after(milliseconds: delay) { carryOut(fault, outcome: outcome, for: exchange) }
            } else {
                carryOut(fault, outcome: outcome, for: exchange)
            }
        case .forward(let plan):
            guard let proxy else { return }
            if plan.delayMilliseconds > 0 {
                var now = plan
                now.delayMilliseconds = 0
                exchange.responder.after(milliseconds: plan.delayMilliseconds) {
                    carryOut(.forward(now), for: exchange)
                }
                return
            }
            if WebSocketHandshake.isUpgrade(exchange.request) {
                WebSocketRelay.start(
                    plan, for: exchange, proxy: proxy, serviceLogger: serviceLogger, metrics: metrics)
                return
            }
            var captureLimit = serviceLogger.isCapturing ? exchange.session.journal.limits.maximumBodyBytes : 0
            let record = recording(exchange.request, plan, proxy: proxy, captureLimit: &captureLimit)
            // Made before the call: made among its arguments, it had the request lent beside it copied.
            let hooks = ProxyRelay.Hooks(exchange: exchange, executor: self, record: record)
            proxy.forward(
                plan, exchange.request, responder: exchange.responder, captureLimit: captureLimit, hooks: hooks)
        case .intercept(let target, let context):
            exchange.responder.intercept(target, using: context)
        case .tunnel(let target):
            guard let proxy else { return }
            proxy.tunnel(to: target, responder: exchange.responder) { error in
                carryOut(.made(error, outcome: nil), for: exchange)
            }
        case .stream(let start):
            start(exchange.responder)
        case .webSocket(let entry, let script, let budget):
            WebSocketStubSession.start(
                script, of: entry, for: exchange, serviceLogger: serviceLogger, metrics: metrics, budget: budget)
        case .events(let entry, let prepared, let script):
            EventStreamPlayer.start(
                script, prepared: prepared, of: entry, for: exchange, serviceLogger: serviceLogger, metrics: metrics)
        }
    }

    /// What records a forwarded exchange, when a recording session takes it: the body kept for it is then up to
    /// `--record-body-limit`. The recorder's question costs one atomic load when no session is on.
    private func recording(
        _ request: HTTPRequest, _ plan: ProxyForwarder.Plan, proxy: ProxyForwarder, captureLimit: inout Int
    ) -> ProxyRelay.Hooks.Record? {
        let recorder = serviceLogger.recorder
        guard recorder.isRecording else { return nil }
        let target = proxy.recordingTarget(for: request, plan)
        guard let session = recorder.shouldRecord(request, host: target.host) else { return nil }
        let limit = proxy.recordBodyLimit
        captureLimit = max(captureLimit, limit)
        return { status, headers, trailers, body, bodySize, reads in
            recorder.record(
                request, session: session, host: target.host, folder: target.folder, status: status, headers: headers,
                body: body, bodySize: bodySize, bodyLimit: limit, reads: reads, trailers: trailers)
        }
    }

    /// A stub's answer, prepared or rendered, journaled (`status`, `headers` and `body` as the stub gave or
    /// rendered them) and sent after its delay.
    private func send(
        _ encoded: EncodedResponse, journaling status: Int, _ headers: HTTPHeaders, _ body: Payload,
        of entry: IndexedStub, after delay: Int, for exchange: Exchange
    ) {
        func answer() {
            metrics?.answered(.stub, status: status, kind: exchange.sessionKind, startedAt: exchange.arrivedAt)
            serviceLogger.log(
                exchange, status: status, headers: headers, body: body,
                outcome: .stub(entry.stub))
            exchange.responder.send(encoded)
        }
        if delay > 0 {
            exchange.responder.after(milliseconds: delay, answer)
        } else {
            answer()
        }
    }

    /// A made answer that goes out at once, whole (an upstream's relayed, or the proxy's own error): journaled,
    /// then sent, as `.made` would be, without the `Answer` object the general path builds for delays, bandwidth
    /// limits and faults, which a proxied exchange never has.
    func send(_ response: Response, outcome: JournalEntry.Outcome, for exchange: Exchange) {
        journal(
            response.status.code, response.headers, response.trailers, response.body, bodySize: nil, outcome: outcome,
            for: exchange)
        exchange.responder.send(response.encoded)
    }

    /// Counts and journals an answer that is made here or relayed: `bodySize` is the whole body's when `body` is
    /// only its first bytes (a streamed one's).
    func journal(
        _ status: Int, _ headers: HTTPHeaders, _ trailers: HTTPHeaders?, _ body: Payload, bodySize: Int?,
        outcome: JournalEntry.Outcome, for exchange: Exchange
    ) {
        metrics?.count(outcome, fault: nil, status: status, for: exchange)
        serviceLogger.log(
            exchange, status: status, headers: headers, body: body, bodySize: bodySize, outcome: outcome,
            trailers: trailers)
    }

    /// Journals the answer, then sends it: whole, at its bandwidth limit, or cut.
    private func send(_ answer: Answer, for exchange: Exchange) {
        if answer.record != nil {
            // Read in place: binding the record copied it whole for one call.
            metrics?.count(
                answer.record!.outcome, fault: answer.record!.fault, status: answer.record!.status.code, for: exchange)
            serviceLogger.log(
                exchange, status: answer.record!.status.code, headers: answer.record!.headers,
                body: answer.record!.body,
                outcome: answer.record!.outcome, fault: answer.record!.fault,
                contractViolations: answer.record!.contractViolations, trailers: answer.record!.trailers)
        }
        if let sent = answer.truncatedBodyBytes {
            exchange.responder.fail(.truncated(answer.response, bodyBytes: sent, bytesPerSecond: answer.bytesPerSecond))
        } else if let bytesPerSecond = answer.bytesPerSecond {
            exchange.responder.send(answer.response, bytesPerSecond: bytesPerSecond)
        } else {
            exchange.responder.send(answer.response)
        }
    }

    /// Carries out a fault that sends no answer, journaling what went out: nothing, or bytes that are not HTTP. A
    /// request never answered is journaled when its connection ends.
    private func carryOut(_ fault: Fault, outcome: JournalEntry.Outcome, for exchange: Exchange) {
        let responder = exchange.responder
        let nothing = (status: 0, headers: HTTPHeaders(), body: Payload.empty)
        if fault != .truncatedBody { metrics?.count(outcome, fault: fault.rawValue, status: 0, for: exchange) }
        switch fault {
        case .connectionReset:
            serviceLogger.log(exchange, status: 0, headers: nothing.headers, body: nothing.body, outcome: outcome, fault: fault.rawValue)
            responder.fail(.reset)
        case .emptyResponse:
            serviceLogger.log(exchange, status: 0, headers: nothing.headers, body: nothing.body, outcome: outcome, fault: fault.rawValue)
            responder.fail(.close)
        case .malformedResponse:
            serviceLogger.log(
                exchange, status: 0, headers: nothing.headers, body: Payload(Fault.malformedBytes), outcome: outcome,
                fault: fault.rawValue)
            responder.fail(.garbage(Fault.malformedBytes))
        case .truncatedBody:
            break  // an answer, cut: see `Answer.truncatedBodyBytes`
        case .noResponse:
            responder.fail(.hold)
            responder.whenClosed { [serviceLogger] in
                serviceLogger.log(exchange, status: 0, headers: nothing.headers, body: nothing.body, outcome: outcome, fault: fault.rawValue)
            }
        }
    }
}
