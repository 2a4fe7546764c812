/// How large a WebSocket frame and a whole message may be; a peer that sends more is closed with 1009.
public struct WebSocketLimits: Sendable, Equatable {
    /// The payload of one frame.
    public var maximumFrameBytes: Int
    /// The payloads of a message's frames together.
    public var maximumMessageBytes: Int

    /// 16 MiB each: Autobahn's largest cases (9.x) fit, and a peer cannot make Orrery hold more per connection.
    public static let standard = WebSocketLimits(maximumFrameBytes: 16 << 20, maximumMessageBytes: 16 << 20)

    public init(maximumFrameBytes: Int, maximumMessageBytes: Int) {
        self.maximumFrameBytes = maximumFrameBytes
        self.maximumMessageBytes = maximumMessageBytes
    }
}
