/// The fields of a forwarded request kept as their parts (the client's fields, the upstream's `Host`, the client's
/// address, this daemon's `Via` entry) rather than as a list made from them: an HTTP/1.1 upstream's head is written
/// straight from the client's fields in one walk (`withRequestHead`), and the list, which an HTTP/2
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

    /// Hands each field sent, in order, to `made` (those this hop makes, as strings) or `field` (the client's, as
    /// bytes lent for the call).
    @inline(__always)
    public func forEachField(
        made: (String, String) -> Void, _ field: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void
    ) {
        ProxyHeaders.forEachUpstreamField(
            client, hostHeader: hostHeader, clientAddress: clientAddress, via: via, made: made, field)
    }

    /// The fields as a list, as `ProxyHeaders.upstreamRequest` gives them.
    public var list: HTTPHeaders {
        var entries: [(name: String, value: String)] = []
        entries.reserveCapacity(client.count + 3)
        forEachField(made: { entries.append(($0, $1)) }) {
            entries.append((String(decoding: $0, as: UTF8.self), String(decoding: $1, as: UTF8.self)))
        }
        return HTTPHeaders(entries)
    }

    /// The request's head, blank line included, written from the client's fields in one walk into memory lent to
    /// `body` for the call: no field list is made, and nothing is allocated on the heap for a usual head. The same
    /// bytes as `HTTP1Encoder.requestHead` writes for `list`. (Here rather than in the encoder, so that HTTP/1.1
    /// framing does not depend on the proxy's rules.) Not generic: called from another module, a generic function
    /// would not be specialized for its caller.
    public func withRequestHead(
        method: String, target: String, bodyLength: Int, _ body: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        let hasLength = bodyLength > 0 || method == "POST" || method == "PUT" || method == "PATCH"
        let requestLine = method.utf8.count + 1 + target.utf8.count + 11 + 2
        let length = hasLength ? 16 + ByteWriter.decimalLength(bodyLength) + 2 : 0
        // One byte to spare: a writer that fills the memory shows the bound was short (it writes no further).
        let bound = requestLine + fieldBytesBound + length + 2 + 1
        return withUnsafeTemporaryAllocation(byteCount: bound, alignment: 1) { buffer in
            var writer = ByteWriter(buffer)
            writer.write(method)
            writer.write(0x20)
            writer.write(target)
            writer.write(" HTTP/1.1")
            writer.writeCRLF()
            // A forwarded request carries no framing field: the rules drop them all (they are hop-by-hop, or
            // `Content-Length`), so no field is tested again here.
            forEachField(made: { writer.writeField($0, $1) }) { name, value in writer.writeField(name, value) }
            if hasLength {
                writer.write("Content-Length: ")
                writer.writeDecimal(bodyLength)
                writer.writeCRLF()
            }
            writer.writeCRLF()
            guard writer.count < bound else {
                assertionFailure("the bound on a forwarded head was short")
                return HTTP1Encoder.requestHead(method: method, target: target, headers: list, bodyLength: bodyLength)
                    .withUnsafeBytes(body)
            }
            return body(UnsafeRawBufferPointer(rebasing: buffer[..<writer.count]))
        }
    }

    /// At least the bytes the field lines take, each `Name: value` and CR LF: every client field is counted, the
    /// dropped ones too, and the client's first `X-Forwarded-For` and `Via`, whose values the new ones carry on.
    var fieldBytesBound: Int {
        var bound = ByteWriter.fieldLength("Host", hostHeader)
        bound += ByteWriter.fieldsLength(client)
        // ", " and the address after the client's value, or the whole field when the client sent none.
        bound += ByteWriter.fieldLength("X-Forwarded-For", clientAddress) + 2
        return bound + ByteWriter.fieldLength("Via", via) + 2
    }
}
