/// Reads a WebSocket byte stream into messages and control frames (RFC 6455 section 5), as the bytes arrive in
/// pieces of any size. Pure: no socket; the connection feeds it and carries out what it reads.
///
/// It checks what a peer must get right and stops at the first violation with the close code to send: reserved
/// bits (1002), unknown opcodes (1002), a client frame without a mask or a server frame with one (1002), control
/// frames over 125 bytes or fragmented (1002), a continuation with no message begun or a new message inside one
/// (1002), a frame or message over the limits (1009), a text message or close reason that is not UTF-8 (1007), a
/// close frame with an invalid code or one byte of payload (1002).
public struct WebSocketParser: Sendable {
    /// Which side's frames are read: a server reads a client's (masked), a client a server's (unmasked).
    public enum Role: Sendable {
        case server
        case client
    }

    /// What the bytes held.
    public enum Event: Sendable, Equatable {
        case message(WebSocketMessage)
        case ping([UInt8])
        case pong([UInt8])
        /// The peer closes; nil code when its close frame had none.
        case close(code: UInt16?, reason: String)
    }

    /// Why the peer's bytes are refused: the close frame to send, then the connection ends.
    public struct Violation: Error, Sendable, Equatable {
        public var code: UInt16
        public var reason: String

        public init(code: UInt16, reason: String) {
            self.code = code
            self.reason = reason
        }
    }

    public let role: Role
    public let limits: WebSocketLimits
    private var buffer: [UInt8] = []
    private var start = 0
    /// The message whose fragments are being read: its kind and what has arrived of it.
    private var partial: (isText: Bool, payload: [UInt8])?
    /// A close frame was read or a violation found: nothing more is read.
    public private(set) var isDone = false

    public init(role: Role, limits: WebSocketLimits = .standard) {
        self.role = role
        self.limits = limits
    }

    /// Bytes waiting for the rest of their frame.
    public var bufferedBytes: Int { buffer.count - start }

    /// Reads `bytes`: the events of every frame they complete, in order, then the violation if one was found
    /// (nothing after it is read).
    public mutating func received(_ bytes: some Collection<UInt8>) -> (events: [Event], violation: Violation?) {
        guard !isDone else { return ([], nil) }
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        while !isDone {
            do {
                guard let event = try nextFrame() else { break }
                if let event { events.append(event) }
            } catch {
                isDone = true
                buffer = []
                start = 0
                return (events, error)
            }
        }
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        return (events, nil)
    }

    /// Reads one whole frame from the buffer: nil when it is not all there yet; an inner nil for a frame that
    /// completes no event (a fragment).
    private mutating func nextFrame() throws(Violation) -> Event?? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        guard first & 0x70 == 0 else {
            throw Violation(code: WebSocketCloseCode.protocolError, reason: "reserved bits set")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw Violation(code: WebSocketCloseCode.protocolError, reason: "unknown opcode \(first & 0x0F)")
        }
        let fin = first & 0x80 != 0
        let isMasked = second & 0x80 != 0
        switch role {
        case .server where !isMasked:
            throw Violation(code: WebSocketCloseCode.protocolError, reason: "a client's frames must be masked")
        case .client where isMasked:
            throw Violation(code: WebSocketCloseCode.protocolError, reason: "a server's frames must not be masked")
        default:
            break
        }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + index]) }
            guard length >> 63 == 0 else {
                throw Violation(code: WebSocketCloseCode.protocolError, reason: "a frame length with its top bit set")
            }
            headerLength = 10
        }
        if opcode.isControl {
            guard fin else {
                throw Violation(code: WebSocketCloseCode.protocolError, reason: "a fragmented \(opcode) frame")
            }
            guard length <= 125 else {
                throw Violation(code: WebSocketCloseCode.protocolError, reason: "a \(opcode) frame over 125 bytes")
            }
        } else {
            guard length <= UInt64(limits.maximumFrameBytes) else {
                throw Violation(
                    code: WebSocketCloseCode.messageTooBig,
                    reason: "a frame of \(length) bytes, over the limit of \(limits.maximumFrameBytes)")
            }
            if opcode == .continuation {
                guard partial != nil else {
                    throw Violation(
                        code: WebSocketCloseCode.protocolError, reason: "a continuation frame with no message begun")
                }
            } else if partial != nil {
                throw Violation(
                    code: WebSocketCloseCode.protocolError, reason: "a new message before the last one ended")
            }
            let sofar = partial?.payload.count ?? 0
            guard UInt64(sofar) + length <= UInt64(limits.maximumMessageBytes) else {
                throw Violation(
                    code: WebSocketCloseCode.messageTooBig,
                    reason: "a message over the limit of \(limits.maximumMessageBytes) bytes")
            }
        }
        let maskLength = isMasked ? 4 : 0
        let total = headerLength + maskLength + Int(length)
        guard available >= total else { return nil }
        let payloadStart = start + headerLength + maskLength
        var payload = Array(buffer[payloadStart..<(payloadStart + Int(length))])
        if isMasked {
            let key = (
                buffer[start + headerLength], buffer[start + headerLength + 1], buffer[start + headerLength + 2],
                buffer[start + headerLength + 3]
            )
            payload.withUnsafeMutableBufferPointer { bytes in
                for index in bytes.indices {
                    switch index & 3 {
                    case 0: bytes[index] ^= key.0
                    case 1: bytes[index] ^= key.1
                    case 2: bytes[index] ^= key.2
                    default: bytes[index] ^= key.3
                    }
                }
            }
        }
        start += total
        return .some(try event(opcode, fin: fin, payload: payload))
    }

    private mutating func event(_ opcode: WebSocketOpcode, fin: Bool, payload: [UInt8]) throws(Violation) -> Event? {
        switch opcode {
        case .ping:
            return .ping(payload)
        case .pong:
            return .pong(payload)
        case .close:
            isDone = true
            return try Self.close(payload)
        case .text, .binary:
            guard fin else {
                partial = (opcode == .text, payload)
                return nil
            }
            return try Self.message(isText: opcode == .text, payload)
        case .continuation:
            guard var message = partial else { return nil }
            message.payload += payload
            guard fin else {
                partial = message
                return nil
            }
            partial = nil
            return try Self.message(isText: message.isText, message.payload)
        }
    }

    private static func message(isText: Bool, _ payload: [UInt8]) throws(Violation) -> Event {
        if isText, String(validating: payload, as: UTF8.self) == nil {
            throw Violation(code: WebSocketCloseCode.invalidPayload, reason: "a text message that is not UTF-8")
        }
        return .message(WebSocketMessage(isText: isText, payload: payload))
    }

    private static func close(_ payload: [UInt8]) throws(Violation) -> Event {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else {
            throw Violation(code: WebSocketCloseCode.protocolError, reason: "a close frame with a one-byte code")
        }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCode.isValidOnTheWire(code) else {
            throw Violation(
                code: WebSocketCloseCode.protocolError, reason: "close code \(code) is not one a peer may send")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw Violation(code: WebSocketCloseCode.invalidPayload, reason: "a close reason that is not UTF-8")
        }
        return .close(code: code, reason: reason)
    }
}
