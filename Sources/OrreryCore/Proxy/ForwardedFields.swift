/// The fields of a forwarded request kept as their parts (the client's fields, the upstream's `Host`, the client's
/// address, this daemon's `Via` entry) rather than as a list made from them: an HTTP/1.1 upstream's head is written
/// straight from the client's fields in one walk (`HTTP1Encoder.withRequestHead`), and the list, which an HTTP/2
/// upstream needs, is made only then. The rules are `ProxyHeaders`'s.
public struct ForwardedFields: Sendable {
    public let client: HTTPHeaders
    /// The upstream's `Host`, sent first.
    public let hostHeader: String
    /// Added to `X-Forwarded-For`; empty adds nothing.
    public let clientAddress: String
    /// This daemon's `Via` entry.
    public let via: String

    public init(_ client: HTTPHeaders, hostHeader: String, clientAddress: String, via: String) {
        self.client = client
        self.hostHeader = hostHeader
        self.clientAddress = clientAddress
        self.via = via
    }

    /// Hands `field` each field sent, in order.
    @inline(__always)
    public func forEachField(_ field: (String, String) -> Void) {
        ProxyHeaders.forEachUpstreamField(
            client, hostHeader: hostHeader, clientAddress: clientAddress, via: via, field)
    }

    /// The fields as a list, as `ProxyHeaders.upstreamRequest` gives them.
    public var list: HTTPHeaders {
        var result = HTTPHeaders()
        result.entries.reserveCapacity(client.count + 3)
        forEachField { result.entries.append(($0, $1)) }
        return result
    }

    /// At least the bytes the field lines take, each `Name: value` and CR LF: every client field is counted, the
    /// dropped ones too, and the client's first `X-Forwarded-For` and `Via`, whose values the new ones carry on.
    var fieldBytesBound: Int {
        var bound = ByteWriter.fieldLength("Host", hostHeader)
        for (name, value) in client.entries { bound += ByteWriter.fieldLength(name, value) }
        // ", " and the address after the client's value, or the whole field when the client sent none.
        bound += ByteWriter.fieldLength("X-Forwarded-For", clientAddress) + 2
        return bound + ByteWriter.fieldLength("Via", via) + 2
    }
}
