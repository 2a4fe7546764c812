import Glibc

/// Reads an HTTP/1.x response from bytes as they arrive: status line, headers, and a body framed by
/// Content-Length, chunked transfer coding, or the end of the connection (RFC 9112 §6.3).
///
/// The proxy's upstream client feeds it whatever the socket delivered; it takes what it can use and says how much.
/// Interim answers (100 Continue, 103 Early Hints) are read and skipped.
public struct HTTPResponseParser {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case headTooLarge(limit: Int)
        /// The connection ended before the response did.
        case truncated

        public var description: String {
            switch self {
            case .malformed(let what): "a malformed response (\(what))"
            case .headTooLarge(let limit): "a response head over \(limit) bytes"
            case .truncated: "the connection closed before the response was complete"
            }
        }
    }

    private enum State {
        case statusLine, headers, body(remaining: Int), chunkSize, chunkData(remaining: Int), chunkEnd, trailers
        case untilClose, complete
    }

    public private(set) var status = 0
    public private(set) var reason = ""
    public private(set) var headers = HTTPHeaders()
    public private(set) var body: [UInt8] = []
    /// HTTP/1.0 or `Connection: close`, or a body that ends with the connection: not to be used again.
    public private(set) var closesConnection = false
    /// The status line has been read: a failure after it broke a response in the middle.
    public private(set) var sawStatusLine = false

    private var state = State.statusLine
    private var isHTTP10 = false
    private var headBytes = 0
    private let hasNoBody: Bool
    private let maximumHeadBytes: Int

    /// - Parameters:
    ///   - requestMethod: a `HEAD` request's answer has headers only.
    ///   - maximumHeadBytes: the most the status line and headers may take together.
    public init(requestMethod: String, maximumHeadBytes: Int = 64 * 1024) {
        hasNoBody = requestMethod == "HEAD"
        self.maximumHeadBytes = maximumHeadBytes
    }

    public var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Reads as much of `bytes` as it can; returns how many it used. Bytes after a complete response are not used.
    public mutating func parse(_ raw: UnsafeRawBufferPointer) throws(Failure) -> Int {
        // Typed bytes: copies out of them are memcpy, where raw ones would go a byte at a time.
        let bytes = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
        var offset = 0
        while offset < bytes.count {
            switch state {
            case .statusLine, .headers, .chunkSize, .chunkEnd, .trailers:
                guard let line = try nextLine(bytes, from: offset) else { return offset }
                offset = line.next
                try take(line: UnsafeBufferPointer(rebasing: bytes[line.start..<line.end]))
            case .body(let remaining):
                let count = min(remaining, bytes.count - offset)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]))
                offset += count
                state = remaining == count ? .complete : .body(remaining: remaining - count)
            case .chunkData(let remaining):
                let count = min(remaining, bytes.count - offset)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]))
                offset += count
                state = remaining == count ? .chunkEnd : .chunkData(remaining: remaining - count)
            case .untilClose:
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset...]))
                offset = bytes.count
            case .complete:
                return offset
            }
        }
        return offset
    }

    /// The connection ended: completes a body that runs to the end of the connection, else the response is cut.
    public mutating func finishAtEndOfInput() throws(Failure) {
        switch state {
        case .untilClose: state = .complete
        case .complete: break
        default: throw .truncated
        }
    }

    // MARK: - Lines

    /// The next line (without its CR LF, or a bare LF) from `offset`, or nil when it has not fully arrived.
    private mutating func nextLine(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) throws(Failure)
        -> (start: Int, end: Int, next: Int)?
    {
        let isHead: Bool
        switch state {
        case .statusLine, .headers, .trailers: isHead = true
        default: isHead = false
        }
        var index = bytes.count
        if let base = bytes.baseAddress, let found = memchr(base + offset, 0x0A, bytes.count - offset) {
            index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        let length = index - offset
        if isHead, headBytes + length > maximumHeadBytes { throw .headTooLarge(limit: maximumHeadBytes) }
        if !isHead, length > 4096 { throw .malformed("a chunk line over 4096 bytes") }
        guard index < bytes.count else { return nil }
        if isHead { headBytes += length + 1 }
        let end = index > offset && bytes[index - 1] == 0x0D ? index - 1 : index
        return (offset, end, index + 1)
    }

    private mutating func take(line: UnsafeBufferPointer<UInt8>) throws(Failure) {
        switch state {
        case .statusLine:
            // Some servers send a blank line before the status line after a body; RFC 9112 §2.2 allows skipping it.
            guard !line.isEmpty else { return }
            try readStatusLine(line)
            state = .headers
        case .headers:
            if line.isEmpty {
                try headersEnded()
            } else {
                try readHeader(line)
            }
        case .chunkSize:
            var size = 0
            var digits = 0
            for byte in line {
                guard let value = Self.hexValue(byte) else {
                    // A chunk extension (`;name=value`) or the spaces before it end the size.
                    guard byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") else {
                        throw .malformed("a chunk size that is not hexadecimal")
                    }
                    break
                }
                guard digits < 15 else { throw .malformed("a chunk size too large") }
                size = size << 4 | value
                digits += 1
            }
            guard digits > 0 else { throw .malformed("a chunk without a size") }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
        case .chunkEnd:
            guard line.isEmpty else { throw .malformed("a chunk longer than its size") }
            state = .chunkSize
        case .trailers:
            // Trailer fields are not passed on: the body is relayed whole, with its length.
            if line.isEmpty { state = .complete }
        default:
            break
        }
    }

    private mutating func readStatusLine(_ line: UnsafeBufferPointer<UInt8>) throws(Failure) {
        // HTTP/1.1 200 OK, read on bytes: this runs for every proxied request.
        let prefix = "HTTP/1.".utf8
        guard line.count >= 12, line.starts(with: prefix), line[7] == 0x30 || line[7] == 0x31, line[8] == 0x20,
            line[9...11].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), line[9] != 0x30, line.count == 12 || line[12] == 0x20
        else { throw .malformed("status line '\(String(decoding: line.prefix(80), as: UTF8.self))'") }
        isHTTP10 = line[7] == 0x30
        status = line[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        reason = line.count > 13 ? String(decoding: UnsafeBufferPointer(rebasing: line[13...]), as: UTF8.self) : ""
        headers = HTTPHeaders()
        headers.entries.reserveCapacity(12)
        sawStatusLine = true
    }

    private mutating func readHeader(_ line: UnsafeBufferPointer<UInt8>) throws(Failure) {
        // An obsolete line folding (a line that starts with a space) continues the previous field: a client
        // reads it as one space (RFC 9112 §5.2).
        if line[0] == 0x20 || line[0] == 0x09 {
            guard let last = headers.entries.indices.last else { throw .malformed("a folded line before any header") }
            var start = 0
            while start < line.count, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
            headers.entries[last].value += " " + String(decoding: UnsafeBufferPointer(rebasing: line[start...]), as: UTF8.self)
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            throw .malformed("header line without a name")
        }
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        guard !name.contains(where: { $0 == 0x20 || $0 == 0x09 }) else {
            throw .malformed("space in a header name")
        }
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        headers.add(String(decoding: name, as: UTF8.self), String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
    }

    private mutating func headersEnded() throws(Failure) {
        // 1xx answers are interim, except 101, which hands the connection over to another protocol.
        if status < 200 && status != 101 {
            state = .statusLine
            return
        }
        var connectionClose = false
        var connectionKeepAlive = false
        var lastCoding: String?
        var length: Int?
        for (name, value) in headers.entries {
            // Told apart by length first (10, 17, 14 bytes): most fields are none of the three.
            let count = name.utf8.count
            guard count == 10 || count == 17 || count == 14 else { continue }
            if name.equalsIgnoringASCIICase("Connection") {
                for token in Self.tokens(value) {
                    if token.equalsIgnoringASCIICase("close") { connectionClose = true }
                    if token.equalsIgnoringASCIICase("keep-alive") { connectionKeepAlive = true }
                }
            } else if name.equalsIgnoringASCIICase("Transfer-Encoding") {
                lastCoding = Self.tokens(value).last ?? lastCoding
            } else if name.equalsIgnoringASCIICase("Content-Length") {
                guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let parsed = Int(value), length == nil || length == parsed
                else { throw .malformed("Content-Length '\(value)'") }
                length = parsed
            }
        }
        closesConnection = isHTTP10 ? !connectionKeepAlive : connectionClose
        if hasNoBody || status == 204 || status == 304 || status == 101 {
            if status == 101 { closesConnection = true }
            state = .complete
            return
        }
        if let lastCoding {
            // Not chunked last: the body runs to the end of the connection (RFC 9112 §6.3).
            guard lastCoding.equalsIgnoringASCIICase("chunked") else {
                closesConnection = true
                state = .untilClose
                return
            }
            state = .chunkSize
            return
        }
        if let length {
            body.reserveCapacity(min(length, 16 * 1024 * 1024))
            state = length == 0 ? .complete : .body(remaining: length)
            return
        }
        closesConnection = true
        state = .untilClose
    }

    /// The comma-separated items of a header value, without the spaces around them.
    private static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { item in
            var token = item[...]
            while token.first == " " || token.first == "\t" { token.removeFirst() }
            while token.last == " " || token.last == "\t" { token.removeLast() }
            return String(token)
        }.filter { !$0.isEmpty }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }
}
