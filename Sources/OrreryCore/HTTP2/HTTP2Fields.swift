/// A header block for HTTP/2 (RFC 9113 §8.2): names lower-cased, the fields HTTP/2 forbids (`Connection` and the
/// ones it names) left out, all of it in one byte buffer that a submission points into.
///
/// Made from what is sent over HTTP/1 (a stub's encoded head) or from fields (a relayed answer's, trailers), so
/// every answer reads the same over both protocols.
public struct HTTP2Fields: Sendable {
    /// Where one field's name and value lie in `bytes`.
    public struct Field: Sendable, Equatable {
        public var nameStart: Int
        public var nameCount: Int
        public var valueStart: Int
        public var valueCount: Int
    }

    /// The answer's status (`:status`); 0 for trailers.
    public let status: Int
    public private(set) var bytes: [UInt8] = []
    public private(set) var fields: [Field] = []

    /// Fields that HTTP/2 forbids (connection-specific), compared lower-cased.
    static let forbidden: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
    ]

    /// From fields as written; `status` nil makes a trailer block (no `:status`).
    public init(status: Int?, headers: HTTPHeaders) {
        self.status = status ?? 0
        if let status { append(name: Array(":status".utf8), value: Array(String(status).utf8)) }
        for (name, value) in headers.entries {
            let lower = Self.lowercased(Array(name.utf8))
            guard !Self.forbidden.contains(String(decoding: lower, as: UTF8.self)) else { continue }
            append(name: lower, value: Array(value.utf8))
        }
    }

    /// An answer no client accepts: its `:status` is not three digits. A client resets the stream it came on, and
    /// only that stream (the `malformedResponse` fault over HTTP/2).
    public init(malformedWith headers: HTTPHeaders) {
        status = 0
        append(name: Array(":status".utf8), value: Array("orrery".utf8))
        for (name, value) in headers.entries {
            append(name: Self.lowercased(Array(name.utf8)), value: Array(value.utf8))
        }
    }

    /// From an HTTP/1 response head (`HTTP/1.1 200 OK\r\nName: value\r\n...`, with or without its blank line), as
    /// `HTTP1Encoder` writes one. Nil when it is not one.
    public init?(http1Head head: UnsafeRawBufferPointer) {
        let lines = Self.lines(head)
        guard let statusLine = lines.first, statusLine.count >= 12,
            statusLine.starts(with: "HTTP/1.".utf8),
            let status = Int(
                String(decoding: statusLine[statusLine.startIndex + 9..<statusLine.startIndex + 12], as: UTF8.self))
        else { return nil }
        self.status = status
        append(name: Array(":status".utf8), value: Array(String(status).utf8))
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = Self.lowercased(Array(line[line.startIndex..<colon]))
            guard !Self.forbidden.contains(String(decoding: name, as: UTF8.self)) else { continue }
            var value = line[(colon + 1)...]
            while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
            while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
            append(name: name, value: Array(value))
        }
    }

    /// The fields as name and value strings, in order (`:status` first for an answer).
    public var pairs: [(name: String, value: String)] {
        fields.map { field in
            (
                String(decoding: bytes[field.nameStart..<field.nameStart + field.nameCount], as: UTF8.self),
                String(decoding: bytes[field.valueStart..<field.valueStart + field.valueCount], as: UTF8.self)
            )
        }
    }

    private mutating func append(name: [UInt8], value: [UInt8]) {
        let field = Field(
            nameStart: bytes.count, nameCount: name.count, valueStart: bytes.count + name.count, valueCount: value.count
        )
        bytes += name
        bytes += value
        fields.append(field)
    }

    private static func lowercased(_ name: [UInt8]) -> [UInt8] {
        name.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
    }

    /// The head's lines without their CRLF, up to the blank line.
    private static func lines(_ head: UnsafeRawBufferPointer) -> [Slice<UnsafeRawBufferPointer>] {
        var lines: [Slice<UnsafeRawBufferPointer>] = []
        var start = head.startIndex
        var index = head.startIndex
        while index < head.endIndex {
            if head[index] == 0x0A {
                var end = index
                if end > start, head[end - 1] == 0x0D { end -= 1 }
                if end == start { break }
                lines.append(head[start..<end])
                start = index + 1
            }
            index += 1
        }
        if start < head.endIndex { lines.append(head[start..<head.endIndex]) }
        return lines
    }
}
