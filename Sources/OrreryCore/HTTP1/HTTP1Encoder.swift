/// Writes HTTP/1.1 heads: the responses the server sends and the requests the upstream client sends. The one place
/// in Orrery where a head becomes bytes.
public enum HTTP1Encoder {
    /// Fields that describe a message's framing on one connection: whatever a stub, an upstream or a handler gave
    /// for them is dropped, and the encoder writes them for the message as it goes out.
    static let framingFields = HeaderNameSet(["Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive"])

    /// The bytes of `HTTP/1.1 100 Continue`.
    public static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The answer to a `CONNECT` that opens a tunnel (RFC 9110 §9.3.6: a 2xx has no body and no framing fields);
    /// what follows on the connection is the tunnel's.
    public static let connectionEstablished = Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)

    /// Whether a response with this status carries a body (RFC 9110 §6.4.1: never 1xx, 204 or 304).
    public static func allowsBody(status: Int) -> Bool {
        status >= 200 && status != 204 && status != 304
    }

    /// The status line and header lines of a response, each ending in CR LF, with `Content-Length` for bodies
    /// that may have one, but without `Date`, `Connection` and the blank line, which depend on the moment and the
    /// connection (see `tail`).
    /// - Parameter contentLength: the body's length; a `HEAD` answer passes on the length its `GET` would have.
    public static func responseHead(status: Int, reason: String, headers: HTTPHeaders, contentLength: Int)
        -> (bytes: Payload, hasDate: Bool, closesConnection: Bool)
    {
        let reason = reason.isEmpty ? HTTPStatusCode.reasonPhrase(for: status) : reason
        let hasLength = allowsBody(status: status)
        var hasDate = false
        var closesConnection = false
        var size = 9 + ByteWriter.decimalLength(status) + 1 + reason.utf8.count + 2
        // Framing fields are counted too: the bound is at least the head, which is written to its length.
        size += ByteWriter.fieldsLength(headers)
        headers.forEachField { name, value in
            guard framingFields.contains(name) else {
                if name.count == 4 && name.equalsIgnoringASCIICase("Date") { hasDate = true }
                return
            }
            if name.equalsIgnoringASCIICase("Connection") {
                HTTP1Parser.forEachListItem(value) { item in
                    if HTTP1Parser.equalsIgnoringCase(item, "close") { closesConnection = true }
                }
            }
        }
        if hasLength { size += 16 + ByteWriter.decimalLength(contentLength) + 2 }
        let bytes = Payload(count: size) { buffer in
            var writer = ByteWriter(buffer)
            writer.write("HTTP/1.1 ")
            writer.writeDecimal(status)
            writer.write(0x20)
            writer.writeLine(reason)
            headers.forEachField { name, value in
                if !framingFields.contains(name) { writer.writeField(name, value) }
            }
            // 1xx and 204 have no length at all; a 304's length would describe a body it does not carry.
            if hasLength {
                writer.write("Content-Length: ")
                writer.writeDecimal(contentLength)
                writer.writeCRLF()
            }
            return writer.count
        }
        return (bytes, hasDate, closesConnection)
    }

    /// A head encoded once for answers whose body is made per request (a template's): the status line and the
    /// fields, with only `Content-Length` left to write for each body.
    public struct PreparedHead: Sendable {
        public let status: Int
        /// The head up to its `Content-Length` line.
        let bytes: [UInt8]
        let hasLength: Bool
        let hasDate: Bool
        let closesConnection: Bool

        public init(status: Int, reason: String = "", headers: HTTPHeaders) {
            self.status = status
            let encoded = responseHead(status: status, reason: reason, headers: headers, contentLength: 0)
            hasLength = allowsBody(status: status)
            var bytes = encoded.bytes.bytes
            if hasLength { bytes.removeLast("Content-Length: 0\r\n".utf8.count) }
            self.bytes = bytes
            hasDate = encoded.hasDate
            closesConnection = encoded.closesConnection
        }

        /// The head for a body of `contentLength` bytes: what `responseHead` writes for the same status and fields.
        public func head(contentLength: Int) -> Payload {
            let size = bytes.count + (hasLength ? 16 + ByteWriter.decimalLength(contentLength) + 2 : 0)
            return Payload(count: size) { buffer in
                bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
                guard hasLength else { return bytes.count }
                var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: buffer[bytes.count...]))
                writer.write("Content-Length: ")
                writer.writeDecimal(contentLength)
                writer.writeCRLF()
                return bytes.count + writer.count
            }
        }
    }

    /// The head of an answer whose body follows in pieces of unknown number (server-sent events): chunked for
    /// HTTP/1.1, running to the end of the connection for HTTP/1.0. Without its end (see `tail`).
    public static func streamHead(status: Int, headers: HTTPHeaders, isChunked: Bool) -> [UInt8] {
        var bytes = responseHead(status: status, reason: "", headers: headers, contentLength: 0).bytes.bytes
        // Drop the Content-Length the head was given: the last line before the end.
        let lengthLine = Array("Content-Length: 0\r\n".utf8)
        if bytes.count >= lengthLine.count, Array(bytes.suffix(lengthLine.count)) == lengthLine {
            bytes.removeLast(lengthLine.count)
        }
        if isChunked { bytes.appendUTF8("Transfer-Encoding: chunked\r\n") }
        return bytes
    }

    /// One piece of a chunked body.
    public static func chunk(_ data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + 12)
        bytes.appendUTF8(String(data.count, radix: 16))
        bytes.append(contentsOf: crlf)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: crlf)
        return bytes
    }

    /// The end of a chunked body.
    public static let lastChunk = Array("0\r\n\r\n".utf8)

    /// The end of a chunked body that carries trailer fields.
    public static func lastChunk(trailers: HTTPHeaders) -> [UInt8] {
        var bytes = Array("0\r\n".utf8)
        for (name, value) in trailers.entries { bytes.appendUTF8("\(name): \(value)\r\n") }
        bytes.append(contentsOf: crlf)
        return bytes
    }

    /// How the end of a response's head speaks of the connection.
    public enum ConnectionField: Sendable, CaseIterable {
        /// HTTP/1.1 keeps the connection by default: nothing to say.
        case none
        case close
        /// An HTTP/1.0 client asked to keep the connection, and it is kept.
        case keepAlive
    }

    /// The end of a response's head: `Date` (unless the response has its own), the `Connection` field, and the
    /// blank line.
    public static func tail(date: String?, connection: ConnectionField) -> [UInt8] {
        var bytes: [UInt8] = []
        if let date { bytes.appendUTF8("Date: \(date)\r\n") }
        switch connection {
        case .none: break
        case .close: bytes.appendUTF8("Connection: close\r\n")
        case .keepAlive: bytes.appendUTF8("Connection: keep-alive\r\n")
        }
        bytes.append(contentsOf: crlf)
        return bytes
    }

    /// A request's head, blank line included: the request line, the fields in order, and `Content-Length` when the
    /// method or the body calls for one.
    public static func requestHead(method: String, target: String, headers: HTTPHeaders, bodyLength: Int) -> [UInt8] {
        let hasLength = bodyLength > 0 || method == "POST" || method == "PUT" || method == "PATCH"
        // Framing fields are counted too: the head is written to its length.
        var size = method.utf8.count + 1 + target.utf8.count + 11 + 2 + ByteWriter.fieldsLength(headers)
        if hasLength { size += 16 + ByteWriter.decimalLength(bodyLength) + 2 }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var writer = ByteWriter(UnsafeMutableRawBufferPointer(buffer))
            writer.write(method)
            writer.write(0x20)
            writer.write(target)
            writer.write(" HTTP/1.1")
            writer.writeCRLF()
            headers.forEachField { name, value in
                if !framingFields.contains(name) { writer.writeField(name, value) }
            }
            if hasLength {
                writer.write("Content-Length: ")
                writer.writeDecimal(bodyLength)
                writer.writeCRLF()
            }
            writer.writeCRLF()
            count = writer.count
        }
    }

    private static let crlf: [UInt8] = [0x0D, 0x0A]

}

extension [UInt8] {
    /// Appends the string's UTF-8 bytes in one copy.
    @inline(__always)
    public mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}
