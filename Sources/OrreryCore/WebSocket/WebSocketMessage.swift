/// A whole WebSocket data message (its fragments joined): text or binary.
public struct WebSocketMessage: Sendable, Equatable {
    public var isText: Bool
    public var payload: [UInt8]

    public init(text: String) {
        isText = true
        payload = Array(text.utf8)
    }

    public init(binary: [UInt8]) {
        isText = false
        payload = binary
    }

    public init(isText: Bool, payload: [UInt8]) {
        self.isText = isText
        self.payload = payload
    }

    public var opcode: WebSocketOpcode { isText ? .text : .binary }

    /// The payload as text (a text message's is valid UTF-8; a binary one's may not be).
    public var text: String { String(decoding: payload, as: UTF8.self) }
}
