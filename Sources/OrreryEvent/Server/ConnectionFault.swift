import OrreryCore

/// A way for an answer to go wrong on purpose, carried out at the socket: what a stub's `fault` asks for.
public enum ConnectionFault: Sendable {
    /// A TCP reset (SO_LINGER 0), nothing sent.
    case reset
    /// The connection closed (FIN), nothing sent.
    case close
    /// These bytes, which are not HTTP, then the connection closed.
    case garbage([UInt8])
    /// The answer's head, with its full `Content-Length`, and only the first `bodyBytes` of its body (at
    /// `bytesPerSecond` when given); then closed.
    case truncated(EncodedResponse, bodyBytes: Int, bytesPerSecond: Int?)
    /// No answer at all: the connection stays open until the client closes it (or the server stops).
    case hold
}
