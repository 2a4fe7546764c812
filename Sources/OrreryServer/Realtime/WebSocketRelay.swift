import Foundation
import Logging
import OrreryCore
import OrreryEvent

/// A WebSocket no stub answers, forwarded to the upstream the host map gives: the upgrade request sent on, the
/// upstream's 101 handed back, then every byte relayed unchanged both ways while a parser on each side reads the
/// frames for the journal. Journaled with its messages when either side ends it. Used on its loop only.
final class WebSocketRelay: UpstreamSocketHandler, UpgradedConnectionHandler {
    private let exchange: Exchange
    private let upstream: Upstream
    private let serviceLogger: NetworkServiceLogger
    private let metrics: LoopMetrics?
    private var socket: UpstreamSocket?
    private var requestHead: [UInt8] = []
    private var client: UpgradedConnection?
    /// The upstream's answer until its head is whole.
    private var answer: [UInt8] = []
    private var responseStatus = 0
    private var responseHeaders = HTTPHeaders()
    private var isOpen = false
    private var clientFrames = WebSocketParser(role: .server)
    private var upstreamFrames = WebSocketParser(role: .client)
    private var messages: [JournalMessage] = []
    private var openedAt = Date()
    private var isJournaled = false
    /// Where the socket is recorded, when a recording takes it: the session, the host the fixture requires and its
    /// folder; and the frames so far (data messages only, at most `JournalMessage.maximumCount`).
    private var recording: (session: Int, host: String?, folder: String)?
    private var recordedFrames: [RealtimeFixture.Frame] = []
    private var recordedBytes = 0
    private var recordBodyLimit = 0

    /// An upgrade answer larger than this is not a WebSocket's.
    private static let maximumHeadBytes = 64 * 1024

    private init(exchange: Exchange, upstream: Upstream, serviceLogger: NetworkServiceLogger, metrics: LoopMetrics?) {
        self.exchange = exchange
        self.upstream = upstream
        self.serviceLogger = serviceLogger
        self.metrics = metrics
    }

    static func start(
        _ plan: ProxyForwarder.Plan, for exchange: Exchange, proxy: ProxyForwarder, serviceLogger: NetworkServiceLogger,
        metrics: LoopMetrics?
    ) {
        let relay = WebSocketRelay(
            exchange: exchange, upstream: plan.upstream, serviceLogger: serviceLogger, metrics: metrics)
        guard plan.upstream.scheme == "http" || plan.upstream.scheme == "https" else {
            relay.refuse(
                .Code502BadGateway,
                "WebSockets are forwarded to http (ws://) and https (wss://) upstreams; \(plan.upstream.origin) is \(plan.upstream.scheme)",
                kind: "unsupportedUpstream")
            return
        }
        let (socket, head) = proxy.openSocket(
            to: plan.upstream, for: exchange.request, clientAddress: exchange.responder.remoteAddress, handler: relay)
        relay.socket = socket
        relay.requestHead = head
        let recorder = serviceLogger.recorder
        if recorder.isRecording {
            let target = proxy.recordingTarget(for: exchange.request, plan)
            if let session = recorder.shouldRecord(exchange.request, host: target.host) {
                relay.recording = (session, target.host, target.folder)
                relay.recordBodyLimit = proxy.recordBodyLimit
            }
        }
    }

    private var outcome: JournalEntry.Outcome {
        .proxied(environment: upstream.environmentKey, upstream: upstream.origin, error: nil)
    }

    private func refuse(_ status: HTTPStatusCode, _ message: String, kind: String) {
        let error = ErrorResponse(
            status, message: message, details: [("kind", .string(kind)), ("upstream", .string(upstream.origin))])
        let response = Response(error, kind: kind)
        let outcome = JournalEntry.Outcome.proxied(
            environment: upstream.environmentKey, upstream: upstream.origin, error: kind)
        metrics?.count(outcome, fault: nil, status: response.status.code, for: exchange)
        serviceLogger.log(
            exchange, status: response.status.code, headers: response.headers, body: response.body, outcome: outcome)
        isJournaled = true
        exchange.responder.send(response.encoded)
    }

    // MARK: - Upstream

    func upstreamSocketConnected(_ socket: UpstreamSocket) {
        socket.send(requestHead)
    }

    func upstreamSocket(_ socket: UpstreamSocket, received bytes: [UInt8]) {
        guard isOpen else {
            readHead(bytes)
            return
        }
        client?.send(bytes)
        read(bytes, from: "server")
    }

    func upstreamSocketClosed(_ socket: UpstreamSocket, failure: UpstreamFailure?) {
        guard isOpen else {
            if !isJournaled {
                let reason = failure?.message ?? "the upstream closed the connection before answering the upgrade"
                refuse(
                    failure?.kind == .timeout ? .Code504GatewayTimeout : .Code502BadGateway, reason,
                    kind: failure?.kind.rawValue ?? "hostConnectionError")
            }
            return
        }
        client?.closeAfterWriting()
        journal()
    }

    /// Collects the upstream's answer to the upgrade; a 101 opens the relay, anything else is a 502 saying what came.
    private func readHead(_ bytes: [UInt8]) {
        answer += bytes
        guard let end = Self.endOfHead(answer) else {
            if answer.count > Self.maximumHeadBytes {
                refuse(
                    .Code502BadGateway, "the upstream's answer to the WebSocket upgrade has no end to its head",
                    kind: "invalidResponse")
                socket?.close()
            }
            return
        }
        let head = Array(answer[..<(end + 4)])
        let rest = Array(answer[(end + 4)...])
        answer = []
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
        let statusLine = lines.first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ")
        responseStatus = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            responseHeaders.add(
                String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        guard responseStatus == 101 else {
            refuse(
                .Code502BadGateway, "the upstream answered \(statusLine) to the WebSocket upgrade, not 101",
                kind: "upgradeRefused")
            socket?.close()
            return
        }
        isOpen = true
        openedAt = Date()
        let accepted = exchange.responder.upgrade(head: head) { [self] connection in
            guard let connection else {
                socket?.close()
                journal()
                return
            }
            client = connection
            connection.start(self)
            if !rest.isEmpty {
                connection.send(rest)
                read(rest, from: "server")
            }
        }
        if accepted {
            if exchange.responder.httpVersion == "2" {
                // The client opened it with an extended CONNECT: it got a 200 and the fields that still apply.
                (responseStatus, responseHeaders) = WebSocketHandshake.http2Answer(forHead: head)
            }
            // Counted as the answer goes out to the client; the socket is journaled when it ends.
            metrics?.count(outcome, fault: nil, status: responseStatus, for: exchange)
        } else {
            isOpen = false
            refuse(
                .Code501NotImplemented, "this connection cannot be handed over to a WebSocket",
                kind: "unsupportedConnection")
            socket?.close()
        }
    }

    /// Where the blank line that ends a head starts.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
            return index
        }
        return nil
    }

    // MARK: - Client

    func upgradedConnection(_ connection: UpgradedConnection, received bytes: [UInt8]) {
        socket?.send(bytes)
        read(bytes, from: "client")
    }

    func upgradedConnectionClosed(_ connection: UpgradedConnection) {
        socket?.closeAfterWriting()
        journal()
    }

    // MARK: - Journal

    /// Reads the frames that went by for the journal; what a parser refuses is still relayed, and no longer read.
    private func read(_ bytes: [UInt8], from direction: String) {
        let events =
            direction == "client" ? clientFrames.received(bytes).events : upstreamFrames.received(bytes).events
        for event in events {
            switch event {
            case .message(let message):
                note(direction, message.opcode, message.payload)
                keep(message, fromClient: direction == "client")
            case .ping(let payload): note(direction, .ping, payload)
            case .pong(let payload): note(direction, .pong, payload)
            case .close(let code, let reason):
                note(direction, .close, code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] + Array(reason.utf8) } ?? [])
                if recording != nil, let code {
                    recordedFrames.append(
                        RealtimeFixture.Frame(
                            fromClient: direction == "client",
                            milliseconds: Int(Date().timeIntervalSince(openedAt) * 1000),
                            isText: true, payload: Array(reason.utf8), closeCode: code))
                }
            }
        }
    }

    private func note(_ direction: String, _ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        guard messages.count < JournalMessage.maximumCount else { return }
        let text: String? =
            switch opcode {
            case .text: String(decoding: payload, as: UTF8.self)
            case .close where payload.count >= 2:
                "\(UInt16(payload[0]) << 8 | UInt16(payload[1])) \(String(decoding: payload[2...], as: UTF8.self))"
                    .trimmingCharacters(in: .whitespaces)
            default: nil
            }
        messages.append(
            JournalMessage(
                direction: direction, milliseconds: Int(Date().timeIntervalSince(openedAt) * 1000), opcode: opcode,
                size: payload.count, text: text))
    }

    /// Keeps a data message for the recording, up to `--record-body-limit` bytes in all; past it the socket is not
    /// recorded.
    private func keep(_ message: WebSocketMessage, fromClient: Bool) {
        guard recording != nil else { return }
        recordedBytes += message.payload.count
        guard recordedBytes <= recordBodyLimit, recordedFrames.count < JournalMessage.maximumCount else {
            let message =
                "not recorded: the WebSocket \(exchange.request.target): its messages are over --record-body-limit "
                + "or \(JournalMessage.maximumCount) messages"
            serviceLogger.recorder.logger.warning("\(message)")
            recording = nil
            recordedFrames = []
            return
        }
        recordedFrames.append(
            RealtimeFixture.Frame(
                fromClient: fromClient, milliseconds: Int(Date().timeIntervalSince(openedAt) * 1000),
                isText: message.isText,
                payload: message.payload))
    }

    private func journal() {
        guard !isJournaled else { return }
        isJournaled = true
        if let recording, isOpen {
            let stub = RealtimeFixture.webSocketStub(
                path: exchange.request.path, host: recording.host, frames: recordedFrames)
            serviceLogger.recorder.recordFile(
                session: recording.session,
                relativePath: RealtimeFixture.webSocketFile(folder: recording.folder, path: exchange.request.path),
                text: stub.prettyEncoded + "\n")
        }
        serviceLogger.log(
            exchange, status: responseStatus, headers: responseHeaders, body: Payload.empty, outcome: outcome,
            messages: messages)
    }
}
