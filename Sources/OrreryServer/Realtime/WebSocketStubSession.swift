import Foundation
import OrreryCore
import OrreryEvent

/// One WebSocket a stub answers: the upgrade accepted, `onOpen` played, each client message answered by the first
/// `onMessage` rule that takes it, pings answered, and the whole socket journaled with its messages when it ends.
///
/// It reads and writes through an `UpgradedConnection`, which knows nothing of HTTP/1: the framing and the script are
/// the core's, so another connection type that hands over a byte stream serves the same session. Used on its
/// connection's loop only.
final class WebSocketStubSession: UpgradedConnectionHandler {
    private let script: WebSocketScript
    private let exchange: Exchange
    private let serviceLogger: NetworkServiceLogger
    private let outcome: JournalEntry.Outcome
    private let budget: TemplateBudget
    private let head: [UInt8]
    private var parser = WebSocketParser(role: .server)
    private var connection: UpgradedConnection?
    private let openedAt = Date()
    private var messages: [JournalMessage] = []
    private var isCloseSent = false
    private var isJournaled = false

    private init(
        script: WebSocketScript, exchange: Exchange, serviceLogger: NetworkServiceLogger, outcome: JournalEntry.Outcome,
        budget: TemplateBudget, head: [UInt8]
    ) {
        self.script = script
        self.exchange = exchange
        self.serviceLogger = serviceLogger
        self.outcome = outcome
        self.budget = budget
        self.head = head
    }

    /// Accepts the upgrade `exchange` asks for and plays `script` on it: over HTTP/1.1 with a 101, over HTTP/2 (an
    /// extended `CONNECT`, RFC 8441) with a 200 on the stream. A request that is not a valid opening handshake, or
    /// one over an HTTP/2 stream that is not an extended `CONNECT`, gets an error answer instead.
    static func start(
        _ script: WebSocketScript, of entry: IndexedStub, for exchange: Exchange, serviceLogger: NetworkServiceLogger,
        metrics: LoopMetrics?, budget: TemplateBudget
    ) {
        let outcome = JournalEntry.Outcome.stub(entry.stub)
        let overHTTP2 = exchange.responder.httpVersion == "2"
        if let problem = WebSocketHandshake.problem(with: exchange.request, overHTTP2: overHTTP2) {
            refuse(
                .Code400BadRequest, problem, outcome: outcome, for: exchange, serviceLogger: serviceLogger,
                metrics: metrics)
            return
        }
        let head = WebSocketHandshake.acceptingHead(for: exchange.request)
        let session = WebSocketStubSession(
            script: script, exchange: exchange, serviceLogger: serviceLogger, outcome: outcome, budget: budget,
            head: head)
        let accepted = exchange.responder.upgrade(head: head) { connection in
            guard let connection else {
                session.journal()
                return
            }
            session.opened(connection)
        }
        if !accepted {
            let message =
                "WebSocket stubs are served over HTTP/1.1 (ws://, wss://) and over HTTP/2 by an extended CONNECT (RFC 8441); this request cannot be handed over."
            refuse(
                .Code501NotImplemented, message, outcome: outcome, for: exchange, serviceLogger: serviceLogger,
                metrics: metrics)
        } else {
            // Counted as the handshake's answer goes out; the socket is journaled when it ends.
            metrics?.count(outcome, fault: nil, status: session.answer.status, for: exchange)
        }
    }

    private static func refuse(
        _ status: HTTPStatusCode, _ message: String, outcome: JournalEntry.Outcome, for exchange: Exchange,
        serviceLogger: NetworkServiceLogger, metrics: LoopMetrics?
    ) {
        let response = Response(ErrorResponse(status, message: message), kind: "webSocketRefused")
        metrics?.count(outcome, fault: nil, status: response.status.code, for: exchange)
        serviceLogger.log(
            exchange, status: response.status.code, headers: response.headers, body: response.body, outcome: outcome)
        exchange.responder.send(response.encoded)
    }

    private func opened(_ connection: UpgradedConnection) {
        self.connection = connection
        connection.start(self)
        play(script.opening(exchange.request, budget: budget), close: nil)
    }

    // MARK: - Input

    func upgradedConnection(_ connection: UpgradedConnection, received bytes: [UInt8]) {
        let (events, violation) = parser.received(bytes)
        for event in events {
            switch event {
            case .message(let message):
                let answer = script.answer(message, request: exchange.request, budget: budget)
                note("client", message.opcode, message.payload, matched: answer.rule != nil)
                play(answer.messages, close: answer.close)
            case .ping(let payload):
                note("client", .ping, payload)
                write(.pong, payload)
            case .pong(let payload):
                note("client", .pong, payload)
            case .close(let code, let reason):
                note("client", .close, code.map { Self.closePayload($0, reason) } ?? [])
                // The close handshake: the client's code echoed, then the connection ends once it is written.
                sendClose(code: code ?? WebSocketCloseCode.normal, reason: "")
            }
        }
        if let violation { sendClose(code: violation.code, reason: violation.reason) }
    }

    func upgradedConnectionClosed(_ connection: UpgradedConnection) {
        journal()
    }

    // MARK: - Output

    /// Sends the messages in order, each its delay after the one before it, then the close if there is one.
    private func play(_ outgoing: [WebSocketScript.Outgoing], close: WebSocketScript.Close?) {
        guard let first = outgoing.first else {
            if let close { sendClose(code: close.code, reason: close.reason) }
            return
        }
        let rest = Array(outgoing.dropFirst())
        let send = { [self] in
            guard !isCloseSent, connection?.isClosed == false else { return }
            write(first.message.opcode, first.message.payload)
            play(rest, close: close)
        }
        if first.delayMilliseconds > 0, let connection {
            connection.loop.schedule(afterMilliseconds: first.delayMilliseconds, send)
        } else {
            send()
        }
    }

    private func write(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        guard let connection, !isCloseSent else { return }
        note("server", opcode, payload)
        connection.send(WebSocketFrameWriter.frame(opcode, payload))
    }

    private func sendClose(code: UInt16, reason: String) {
        guard let connection, !isCloseSent else { return }
        let frame = WebSocketFrameWriter.close(code: code, reason: reason)
        note("server", .close, Array(frame.dropFirst(2)))
        isCloseSent = true
        connection.send(frame)
        connection.closeAfterWriting()
    }

    private static func closePayload(_ code: UInt16, _ reason: String) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
    }

    // MARK: - Journal

    private func note(_ direction: String, _ opcode: WebSocketOpcode, _ payload: [UInt8], matched: Bool? = nil) {
        guard messages.count < JournalMessage.maximumCount else { return }
        let text: String? =
            switch opcode {
            case .text: String(decoding: payload, as: UTF8.self)
            case .close where payload.count >= 2:
                "\(UInt16(payload[0]) << 8 | UInt16(payload[1])) \(String(decoding: payload[2...], as: UTF8.self))"
                    .trimmingCharacters(in: .whitespaces)
            default: nil
            }
        let milliseconds = Int(Date().timeIntervalSince(openedAt) * 1000)
        messages.append(
            JournalMessage(
                direction: direction, milliseconds: milliseconds, opcode: opcode, size: payload.count, text: text,
                matched: matched))
    }

    /// The answer the client got: the 101 and its fields, or over HTTP/2 the 200 and what of them still applies.
    var answer: (status: Int, headers: HTTPHeaders) {
        if exchange.responder.httpVersion == "2" { return WebSocketHandshake.http2Answer(forHead: head) }
        var headers = HTTPHeaders()
        let text = String(decoding: head, as: UTF8.self)
        for line in text.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        return (101, headers)
    }

    /// Journals the socket once, when it ends: the answer that opened it, and every message that went either way.
    private func journal() {
        guard !isJournaled else { return }
        isJournaled = true
        let answer = answer
        serviceLogger.log(
            exchange, status: answer.status, headers: answer.headers, body: Payload.empty, outcome: outcome,
            messages: messages)
    }
}
