import Foundation
import OrreryCore
import OrreryEvent

/// Carries out the pipeline's replies on one event loop: journals each exchange (before its answer goes out, so a
/// client that has its answer finds it in the journal) and sends the answer once, or carries out the stub's delay,
/// bandwidth limit, template, page or fault.
struct ReplyExecutor {
    let serviceLogger: NetworkServiceLogger
    /// Nil when the proxy is off.
    let proxy: ProxyForwarder?
    /// What rendering a stub's templates may cost per request.
    var templateBudget = TemplateBudget()

    func carryOut(_ reply: Reply, for exchange: Exchange) {
        switch reply {
        case .stub(let entry, let prepared):
            let outcome = JournalEntry.Outcome.stub(id: entry.stub.id, name: entry.stub.name, location: entry.stub.location)
            if let dynamic = prepared.dynamic {
                carryOut(dynamic, of: entry, prepared: prepared, outcome: outcome, for: exchange)
                return
            }
            // The journal keeps the body as the stub gives it, whichever encoding goes out.
            serviceLogger.log(exchange, status: prepared.status, headers: prepared.headers, body: prepared.body, outcome: outcome)
            let encoded = prepared.encoded(for: exchange.request.headers)
            if prepared.delayMilliseconds > 0 {
                exchange.responder.send(afterMilliseconds: prepared.delayMilliseconds, encoded)
            } else {
                exchange.responder.send(encoded)
            }
        case .made(let response, let outcome):
            if let outcome {
                serviceLogger.log(exchange, status: response.status, headers: response.headers, body: response.body, outcome: outcome)
            }
            exchange.responder.send(response.encoded)
        case .forward(let plan):
            guard let proxy else { return }
            let journalLimit = serviceLogger.isCapturing ? exchange.session.journal.limits.maximumBodyBytes : 0
            proxy.forward(
                plan, exchange.request, responder: exchange.responder, journalBodyLimit: journalLimit,
                answered: { response, outcome in carryOut(.made(response, outcome: outcome), for: exchange) },
                journal: { [serviceLogger] status, headers, body, bodySize, outcome in
                    serviceLogger.log(exchange, status: status, headers: headers, body: body, bodySize: bodySize, outcome: outcome)
                })
        case .intercept(let target, let context):
            exchange.responder.intercept(target, using: context)
        case .tunnel(let target):
            guard let proxy else { return }
            proxy.tunnel(to: target, responder: exchange.responder) { error in
                carryOut(.made(error, outcome: nil), for: exchange)
            }
        }
    }

    // MARK: - Dynamic responses

    /// In order: the delay (drawn per request), then the fault or the answer (rendered when it has a template or
    /// a page, else the prepared one), at the bandwidth limit if there is one.
    private func carryOut(
        _ dynamic: DynamicResponse, of entry: IndexedStub, prepared: PreparedResponse, outcome: JournalEntry.Outcome,
        for exchange: Exchange
    ) {
        var generator = SystemRandomNumberGenerator()
        let delay = dynamic.delay == nil ? prepared.delayMilliseconds : dynamic.sampleDelay(using: &generator)
        let answer = {
            if let fault = dynamic.fault, fault != .truncatedBody {
                self.carryOut(fault, outcome: outcome, for: exchange)
                return
            }
            let (encoded, journaled) = self.answer(dynamic, of: entry, prepared: prepared, for: exchange, using: &generator)
            if dynamic.fault == .truncatedBody {
                // The answer it would have been, cut: the head with the full length, half the body.
                let sent = Fault.truncatedLength(of: encoded.body.count)
                let cut = encoded.body.withUnsafeBytes { Payload($0.prefix(sent)) }
                self.serviceLogger.log(
                    exchange, status: journaled.status, headers: journaled.headers, body: cut, outcome: outcome,
                    fault: Fault.truncatedBody.rawValue)
                exchange.responder.fail(.truncated(encoded, bodyBytes: sent, bytesPerSecond: dynamic.throttle?.bytesPerSecond))
                return
            }
            self.serviceLogger.log(
                exchange, status: journaled.status, headers: journaled.headers, body: journaled.body, outcome: outcome)
            if let throttle = dynamic.throttle {
                exchange.responder.send(encoded, bytesPerSecond: throttle.bytesPerSecond)
            } else {
                exchange.responder.send(encoded)
            }
        }
        if delay > 0 {
            exchange.responder.after(milliseconds: delay, answer)
        } else {
            answer()
        }
    }

    /// The answer to send, and what the journal keeps of it.
    private func answer(
        _ dynamic: DynamicResponse, of entry: IndexedStub, prepared: PreparedResponse, for exchange: Exchange,
        using generator: inout SystemRandomNumberGenerator
    ) -> (EncodedResponse, (status: Int, headers: HTTPHeaders, body: Payload)) {
        guard dynamic.rendersBody else {
            return (prepared.encoded(for: exchange.request.headers), (prepared.status, prepared.headers, prepared.body))
        }
        let rendered = dynamic.render(
            exchange.request, parameters: entry.parameters(for: exchange.request), scheme: exchange.scheme, using: &generator,
            budget: templateBudget)
        let body = Payload(rendered.body)
        return (
            EncodedResponse(status: rendered.status, headers: rendered.headers, body: body),
            (rendered.status, rendered.headers, body)
        )
    }

    /// Carries out a fault that sends no answer, journaling what went out: nothing, or bytes that are not HTTP. A
    /// request never answered is journaled when its connection ends.
    private func carryOut(_ fault: Fault, outcome: JournalEntry.Outcome, for exchange: Exchange) {
        let responder = exchange.responder
        let nothing = (status: 0, headers: HTTPHeaders(), body: Payload.empty)
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
            break  // carried out with the answer it cuts
        case .noResponse:
            responder.fail(.hold)
            responder.whenClosed { [serviceLogger] in
                serviceLogger.log(exchange, status: 0, headers: nothing.headers, body: nothing.body, outcome: outcome, fault: fault.rawValue)
            }
        }
    }
}
