/// Hears what happens on an `UpstreamSocket`: connected, bytes from the upstream, and its end.
public protocol UpstreamSocketHandler: AnyObject {
    /// The upstream accepted the connection; bytes may be sent now.
    func upstreamSocketConnected(_ socket: UpstreamSocket)
    func upstreamSocket(_ socket: UpstreamSocket, received bytes: [UInt8])
    /// The connection failed (`failure` says why) or ended (nil), however it ended; nothing follows.
    func upstreamSocketClosed(_ socket: UpstreamSocket, failure: UpstreamFailure?)
}
