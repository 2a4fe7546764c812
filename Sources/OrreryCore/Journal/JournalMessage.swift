import Foundation

/// One WebSocket frame of a journaled exchange: who sent it, when, its kind and size, and its text when it is text.
public struct JournalMessage: Sendable, Equatable {
    /// `client` (to Orrery or, when forwarded, to the upstream) or `server` (to the client).
    public var direction: String
    /// Milliseconds since the socket opened.
    public var milliseconds: Int
    public var opcode: WebSocketOpcode
    public var size: Int
    /// A text message's text, or a close frame's code and reason; nil for binary frames.
    public var text: String?
    /// For a client message on a stub's socket: whether an `onMessage` rule took it.
    public var matched: Bool?

    /// The most kept per message: the journal is not the place for a 16 MiB message.
    public static let maximumTextBytes = 64 * 1024
    /// The most messages kept per socket; the rest are counted, not kept.
    public static let maximumCount = 1000

    public init(
        direction: String, milliseconds: Int, opcode: WebSocketOpcode, size: Int, text: String?, matched: Bool? = nil
    ) {
        self.direction = direction
        self.milliseconds = milliseconds
        self.opcode = opcode
        self.size = size
        self.text = text.map {
            $0.utf8.count > Self.maximumTextBytes
                ? String(decoding: Array($0.utf8.prefix(Self.maximumTextBytes)), as: UTF8.self) : $0
        }
        self.matched = matched
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("direction", .string(direction)), ("time", .int(milliseconds)), ("opcode", .string(opcode.description)),
            ("size", .int(size)),
        ]
        if let text { members.append(("text", .string(text))) }
        if let matched { members.append(("matched", .bool(matched))) }
        return .object(members)
    }
}
