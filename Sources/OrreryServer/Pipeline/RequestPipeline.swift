import Foundation
import Logging
import OrreryCore
import OrreryEvent
import OrreryOpenAPI

/// Where an HTTP/1 connection's requests enter the pipeline: each is framed into a `PipelineRequest`, decided by
/// `Pipeline`, and carried out by `ReplyExecutor` on the request's responder.
///
/// One instance per loop, used only on that loop's thread.
final class RequestPipeline: HTTPRequestHandler {
    private let pipeline: Pipeline
    private let serviceLogger: NetworkServiceLogger
    private let executor: ReplyExecutor
    private let logger: Logger
    private let isDebugLogging: Bool

    init(
        pipeline: Pipeline, proxy: ProxyForwarder?, serviceLogger: NetworkServiceLogger, logger: Logger,
        metrics: LoopMetrics? = nil
    ) {
        self.pipeline = pipeline
        self.serviceLogger = serviceLogger
        executor = ReplyExecutor(serviceLogger: serviceLogger, proxy: proxy, metrics: metrics)
        self.logger = logger
        isDebugLogging = logger.logLevel <= .debug
    }

    func handle(_ request: consuming HTTPRequest, responder: Responder) {
        answer(
            PipelineRequest(
                consume request, scheme: responder.scheme,
                version: responder.context.minorVersion == 0 ? "HTTP/1.0" : "HTTP/1.1",
                peer: responder.remoteAddress, listenerTag: responder.listenerTag,
                intercepted: responder.intercepted),
            responder: responder)
    }

    /// Decides and carries out one request. The request is a parameter it owns, so that the exchange takes it over
    /// at its last use; a local consumed there was copied first.
    private func answer(_ incoming: consuming PipelineRequest, responder: Responder) {
        let startedAt = serviceLogger.isCapturing ? Date() : .distantPast
        let arrivedAt = executor.metrics == nil ? 0 : MetricsLayout.now()
        let decision = pipeline.decide(incoming)
        guard let session = decision.session else {
            // Not traffic of any session: nothing to journal.
            if case .answer(let answer) = decision.reply { responder.send(answer.response) }
            if case .spec(let answer) = decision.reply { responder.send(answer.encoded) }
            return
        }
        let exchange = Exchange(
            incoming, responder: responder, startedAt: startedAt, session: session, arrivedAt: arrivedAt)
        executor.carryOut(decision.reply, for: exchange)
        if isDebugLogging {
            logDecision(decision.reply, for: exchange.request)
        } else if decision.reply.isMiss, case .answer(let answer) = decision.reply {
            // At the default level a miss is still worth its line: it is what a user looks for first.
            logger.info("\(exchange.request.method) \(exchange.request.target) -> \(answer.response.status): no stub matches")
        }
    }

    private func logDecision(_ reply: Reply, for request: HTTPRequest) {
        switch reply {
        case .stub(let entry, let prepared):
            logger.debug("\(request.method) \(request.target) -> \(prepared.status) from stub \(entry.stub.label)")
        case .spec(let answer):
            logger.debug("\(request.method) \(request.target) -> \(answer.status)")
        case .rendered(let entry, let encoded, _, _, _):
            logger.debug("\(request.method) \(request.target) -> \(encoded.status) from stub \(entry.stub.label)")
        case .answer(let answer):
            guard let record = answer.record else { return }
            guard case .stub(let id, let name, let location) = record.outcome else {
                logger.debug("\(request.method) \(request.target) -> \(record.status)")
                return
            }
            // As `Stub.label` names it: the name and where it was written, or what there is of them.
            let label = [name, location.map { name == nil ? "\($0)" : "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            logger.debug("\(request.method) \(request.target) -> \(record.status) from stub \(label.isEmpty ? id : label)")
        case .fault(let fault, _, _):
            logger.debug("\(request.method) \(request.target) -> fault \(fault.rawValue)")
        case .intercept(let target, _):
            logger.debug("CONNECT \(target) intercepted")
        case .webSocket(let entry, _, _), .events(let entry, _, _):
            logger.debug("\(request.method) \(request.target) -> stream from stub \(entry.stub.label)")
        case .forward, .tunnel, .stream:
            break
        }
    }
}
