/// The kind of a WebSocket frame (RFC 6455 section 5.2): data frames carry a message, control frames manage the
/// connection and may come between the fragments of a message.
public enum WebSocketOpcode: UInt8, Sendable, CustomStringConvertible {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 bytes, never fragmented.
    public var isControl: Bool { rawValue & 0x8 != 0 }

    /// The name the journal shows.
    public var description: String {
        switch self {
        case .continuation: "continuation"
        case .text: "text"
        case .binary: "binary"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        }
    }
}
