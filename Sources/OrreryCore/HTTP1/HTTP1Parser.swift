/// Reads HTTP/1.x messages from bytes as they arrive (RFC 9112): the server's requests and the upstream client's
/// responses, with one grammar and one body framing.
///
/// The caller feeds what the socket delivered; the parser takes what it can use and says how much. Bytes it does not
/// use (a line that has not fully arrived, or what follows the message) must be given again, with more, next time.
/// `parse` returns after the head (so a server can answer `Expect: 100-continue` or refuse a body before it comes)
/// and after the whole message.
///
/// Requests are read strictly: whatever two implementations could read differently (two lengths, a length and a
/// chunked coding, a folded line, whitespace before a colon, a bare CR) is an error, so that Orrery never forwards
/// a request an upstream would split differently. Responses are read as leniently as is safe: a proxy passes on
/// what real servers send.
public struct HTTP1Parser {
    public enum Role: Sendable, Equatable {
        case request
        /// The answer to a request with this method (a `HEAD` answer has headers only).
        case response(requestMethod: String)
    }

    /// How much of a message is accepted.
    public struct Limits: Sendable, Equatable {
        /// Longest request target (414 beyond).
        public var maximumTargetLength: Int
        /// Largest head: the header lines together, and the trailer lines of a chunked body (431 beyond).
        public var maximumHeadBytes: Int
        /// Largest body (413 beyond).
        public var maximumBodyBytes: Int

        public init(maximumTargetLength: Int = 8 * 1024, maximumHeadBytes: Int = 64 * 1024, maximumBodyBytes: Int = 64 << 20) {
            self.maximumTargetLength = maximumTargetLength
            self.maximumHeadBytes = maximumHeadBytes
            self.maximumBodyBytes = maximumBodyBytes
        }
    }

    @usableFromInline enum State: Equatable {
        case startLine, headers, body(remaining: Int), chunkSize, chunkData(remaining: Int), chunkDataEnd, trailers
        case untilClose, complete
    }

    public let role: Role
    public let limits: Limits

    // The start line.
    public private(set) var method = ""
    public private(set) var target = ""
    public private(set) var status = 0
    public private(set) var reason = ""
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public private(set) var minorVersion = 1
    public private(set) var headers = HTTPHeaders()

    /// Hands the head's fields over, leaving none: for a reader that keeps them past the parser (an upstream's
    /// answer relayed), which can then change them in place instead of copying them. The body's framing, read
    /// from them when the head ended, is kept.
    public mutating func takeHeaders() -> HTTPHeaders {
        let taken = headers
        headers = HTTPHeaders()
        return taken
    }
    public private(set) var body: [UInt8] = []

    // What the head says about framing and the connection, known once `hasHead` is true.
    /// The head has been read; the body may still be coming.
    public private(set) var hasHead = false
    /// The start line has been read: a failure after it broke a message in the middle.
    public private(set) var sawStartLine = false
    public private(set) var contentLength: Int?
    public private(set) var isChunked = false
    /// Whether the connection may carry another message after this one (RFC 9112 §9.3): `Connection` (or, as
    /// clients of proxies send it, `Proxy-Connection`) and the version decide.
    public private(set) var isKeepAlive = true
    /// A request's `Expect` value, trimmed; nil when there is none.
    public private(set) var expectation: String?

    /// When true the body is not collected: `parse` returns after each piece of it, with the piece's place in what
    /// it was given in `bodyPiece`, for a reader that passes a body on as it arrives (the proxy).
    public var streamsBody = false
    /// The body bytes the last `parse` came upon (streaming only), as offsets into the bytes it was given.
    public private(set) var bodyPiece: Range<Int>?

    @usableFromInline private(set) var state = State.startLine
    private var headBytes = 0
    private var isHeadRequest = false
    private var hostCount = 0

    public init(role: Role, limits: Limits = Limits()) {
        self.role = role
        self.limits = limits
        if case .response(let method) = role { isHeadRequest = method == "HEAD" }
    }

    /// Reads responses of at most `maximumHeadBytes` of head (the upstream client's use).
    public init(requestMethod: String, maximumHeadBytes: Int = 64 * 1024) {
        self.init(
            role: .response(requestMethod: requestMethod),
            limits: Limits(maximumTargetLength: 0, maximumHeadBytes: maximumHeadBytes, maximumBodyBytes: Int.max))
    }

    private var isRequest: Bool { role == .request }

    /// Inlinable, as `closesConnection` is: asked from another module through a getter, it copied the whole parser
    /// (some 230 bytes) onto the stack first.
    @inlinable
    public var isComplete: Bool { state == .complete }

    /// The body of a complete message, moved out without copying.
    public mutating func takeBody() -> [UInt8] {
        defer { body = [] }
        return body
    }

    /// Readies the parser for the next message on the same connection.
    public mutating func reset() {
        self = HTTP1Parser(role: role, limits: limits)
    }

    /// Whether a response closes its connection: the opposite of `isKeepAlive`, as the upstream client asks it.
    @inlinable
    public var closesConnection: Bool { !isKeepAlive }

    /// Reads as much of `raw` as it can and returns how many bytes it used; it returns early once the head is read.
    public mutating func parse(_ raw: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> Int {
        // Typed bytes: copies out of them are memcpy, where raw ones would go a byte at a time.
        let bytes = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
        var offset = 0
        bodyPiece = nil
        while offset < bytes.count {
            switch state {
            case .startLine, .headers, .chunkSize, .chunkDataEnd, .trailers:
                guard let line = try nextLine(bytes, from: offset) else { return offset }
                offset = line.next
                let wasHead = !hasHead
                try take(
                    line: UnsafeBufferPointer(rebasing: bytes[line.start..<line.end]), ahead: bytes.count - line.start)
                if wasHead && hasHead { return offset }
            case .body(let remaining):
                let count = min(remaining, bytes.count - offset)
                state = remaining == count ? .complete : .body(remaining: remaining - count)
                if streamsBody {
                    bodyPiece = offset..<offset + count
                    return offset + count
                }
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]))
                offset += count
            case .chunkData(let remaining):
                let count = min(remaining, bytes.count - offset)
                state = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
                if streamsBody {
                    bodyPiece = offset..<offset + count
                    return offset + count
                }
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]))
                offset += count
            case .untilClose:
                if streamsBody {
                    bodyPiece = offset..<bytes.count
                    return bytes.count
                }
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset...]))
                offset = bytes.count
            case .complete:
                return offset
            }
        }
        return offset
    }

    /// Like `parse`, but goes on past the head: for a reader that only wants whole messages (the upstream client).
    public mutating func parseMessage(_ raw: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> Int {
        var used = 0
        while used < raw.count, !isComplete {
            let count = try parse(UnsafeRawBufferPointer(rebasing: raw[used...]))
            if count == 0 { break }
            used += count
        }
        return used
    }

    /// The connection ended: completes a body that runs to the end of the connection, else the message is cut.
    public mutating func finishAtEndOfInput() throws(HTTP1ParseError) {
        switch state {
        case .untilClose: state = .complete
        case .complete: break
        default: throw HTTP1ParseError(.truncated, "the connection closed before the message was complete")
        }
    }

    // MARK: - Lines

    /// The next line (without its CR LF, or a bare LF) from `offset`, or nil when it has not fully arrived; the
    /// limits are checked on what has arrived so far, so an endless line is refused without waiting for its end.
    private mutating func nextLine(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) throws(HTTP1ParseError)
        -> (start: Int, end: Int, next: Int)?
    {
        let index = ByteSearch.firstIndex(of: 0x0A, in: bytes, from: offset) ?? bytes.count
        let length = index - offset
        switch state {
        case .startLine:
            if isRequest {
                // The method and version take a few bytes besides the target.
                if length > limits.maximumTargetLength + 32 {
                    throw HTTP1ParseError(
                        .targetTooLong, "The request target is longer than the limit of \(limits.maximumTargetLength) bytes.")
                }
            } else if length > limits.maximumHeadBytes {
                throw HTTP1ParseError(.headTooLarge, "a status line over \(limits.maximumHeadBytes) bytes")
            }
        case .headers, .trailers:
            if headBytes + length > limits.maximumHeadBytes {
                throw HTTP1ParseError(
                    .headTooLarge,
                    isRequest
                        ? "The request's header lines are larger than the limit of \(limits.maximumHeadBytes) bytes."
                        : "a response head over \(limits.maximumHeadBytes) bytes")
            }
        default:
            if length > 4096 { throw .malformed("a chunk line over 4096 bytes") }
        }
        guard index < bytes.count else { return nil }
        if state == .headers || state == .trailers || state == .startLine { headBytes += length + 1 }
        var end = index
        if end > offset && bytes[end - 1] == 0x0D { end -= 1 }
        return (offset, end, index + 1)
    }

    /// `ahead` is how many bytes have arrived from the line's start on: what the rest of the head can take at most,
    /// when it has arrived whole.
    private mutating func take(line: UnsafeBufferPointer<UInt8>, ahead: Int) throws(HTTP1ParseError) {
        switch state {
        case .startLine:
            // RFC 9112 §2.2: empty lines before the start line are skipped (a client's stray CRLF after a body).
            guard !line.isEmpty else { return }
            // The request line does not count towards the header limit; it has its own (414).
            headBytes = 0
            if isRequest { try readRequestLine(line) } else { try readStatusLine(line) }
            sawStartLine = true
            state = .headers
        case .headers:
            if line.isEmpty {
                try headersEnded()
            } else {
                try readHeader(line, ahead: ahead)
            }
        case .chunkSize:
            try readChunkSize(line)
        case .chunkDataEnd:
            guard line.isEmpty else { throw .malformed("chunk data longer than its size") }
            state = .chunkSize
        case .trailers:
            // Trailer fields are read and dropped: the body is passed on whole, with its length.
            if line.isEmpty {
                state = .complete
            } else {
                try checkFieldLine(line)
            }
        default:
            break
        }
    }

    // MARK: - Start lines

    private mutating func readRequestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTP1ParseError) {
        try rejectBareCR(line, in: "the request line")
        guard let firstSpace = line.firstIndex(of: 0x20), firstSpace > 0 else {
            throw .malformed("The request line '\(Self.printable(line))' is not 'METHOD TARGET HTTP/1.1'.")
        }
        for byte in line[..<firstSpace] where !Self.isTokenByte(byte) {
            throw .malformed("The method '\(Self.printable(UnsafeBufferPointer(rebasing: line[..<firstSpace])))' is not a token.")
        }
        let targetStart = firstSpace + 1
        var targetEnd = targetStart
        while targetEnd < line.count, line[targetEnd] != 0x20 {
            let byte = line[targetEnd]
            // Whitespace or a control character in a target is how smuggled requests hide.
            guard byte > 0x20, byte != 0x7F else {
                throw .malformed("The request target holds whitespace or a control character (byte \(byte)).")
            }
            targetEnd += 1
        }
        guard targetEnd > targetStart, targetEnd < line.count else {
            throw .malformed("The request line '\(Self.printable(line))' is not 'METHOD TARGET HTTP/1.1'.")
        }
        let version = UnsafeBufferPointer(rebasing: line[(targetEnd + 1)...])
        guard version.count == 8, Self.startsWithHTTPSlash(version), version[6] == UInt8(ascii: "."),
            Self.isDigit(version[5]), Self.isDigit(version[7])
        else {
            throw .malformed("The request line ends in '\(Self.printable(version))', not a version such as HTTP/1.1.")
        }
        guard version[5] == UInt8(ascii: "1") else {
            throw .malformed("\(Self.printable(version)) is not supported: Orrery speaks HTTP/1.0 and HTTP/1.1.")
        }
        if targetEnd - targetStart > limits.maximumTargetLength {
            throw HTTP1ParseError(
                .targetTooLong,
                "The request target is \(targetEnd - targetStart) bytes; the limit is \(limits.maximumTargetLength).")
        }
        minorVersion = version[7] == UInt8(ascii: "0") ? 0 : 1
        method = Self.text(UnsafeBufferPointer(rebasing: line[..<firstSpace]), usually: Self.usualMethods)
        target = String(decoding: UnsafeBufferPointer(rebasing: line[targetStart..<targetEnd]), as: UTF8.self)
    }

    /// Whether a line starts with `HTTP/`, compared as bytes: `starts(with:)` over a string's UTF-8 view went
    /// through the generic collection path, about 270 instructions for every request line and status line.
    @inline(__always)
    private static func startsWithHTTPSlash(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.count >= 5 && line[0] == 0x48 && line[1] == 0x54 && line[2] == 0x54 && line[3] == 0x50 && line[4] == 0x2F
    }

    private mutating func readStatusLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTP1ParseError) {
        // HTTP/1.1 200 OK, read on bytes: this runs for every proxied request.
        guard line.count >= 12, Self.startsWithHTTPSlash(line), line[5] == 0x31, line[6] == 0x2E,
            line[7] == 0x30 || line[7] == 0x31, line[8] == 0x20,
            line[9...11].allSatisfy(Self.isDigit), line[9] != 0x30, line.count == 12 || line[12] == 0x20
        else { throw .malformed("a malformed response (status line '\(Self.printable(UnsafeBufferPointer(rebasing: line.prefix(80)))))')") }
        minorVersion = line[7] == 0x30 ? 0 : 1
        status = line[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        reason =
            line.count > 13 ? Self.text(UnsafeBufferPointer(rebasing: line[13...]), usually: Self.usualReasons) : ""
        headers = HTTPHeaders()
    }

    /// Methods and reasons nearly every message has, as strings made once: a message with one of them makes no
    /// string of its own (its bytes checked, then copied into a new string, some 150 instructions each).
    private static let usualMethods = ["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"]
    private static let usualReasons = ["OK", "Created", "No Content", "Not Found", "Not Modified"]

    /// The bytes as a string: one of `usual` when they spell it exactly.
    @inline(__always)
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, usually usual: [String]) -> String {
        for word in usual where word.utf8.count == bytes.count {
            if word.withUTF8Bytes({ $0.elementsEqual(bytes) }) { return word }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Header lines

    private mutating func readHeader(_ line: UnsafeBufferPointer<UInt8>, ahead: Int) throws(HTTP1ParseError) {
        if line[0] == 0x20 || line[0] == 0x09 {
            // Obsolete line folding: a request with it is refused (RFC 9112 §5.2); in a response it continues the
            // previous field, read as one space.
            guard !isRequest, headers.count > 0 else {
                throw .malformed(
                    isRequest ? "A header line starts with whitespace (obsolete line folding)." : "a folded line before any header")
            }
            try rejectBareCR(line, in: "a header line")
            var start = 0
            while start < line.count, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
            headers.entries[headers.count - 1].value +=
                " " + String(decoding: UnsafeBufferPointer(rebasing: line[start...]), as: UTF8.self)
            return
        }
        let (colon, valueStart, valueEnd) = try checkFieldLine(line)
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        if colon == 4, name.equalsIgnoringASCIICase("Host") { hostCount += 1 }
        // Kept as the bytes received: most fields are only written on, and a string is made of one when asked.
        headers.appendReceived(
            name: name, value: UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd]), headBytesAhead: ahead)
    }

    /// Checks a header or trailer line and returns where its colon is and where its value (without the spaces
    /// around it) starts and ends.
    @discardableResult
    private func checkFieldLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTP1ParseError)
        -> (colon: Int, valueStart: Int, valueEnd: Int)
    {
        var colon = 0
        // The role asked once, not per byte of the name.
        if isRequest {
            while colon < line.count, Self.isTokenByte(line[colon]) { colon += 1 }
            if colon < line.count, line[colon] != UInt8(ascii: ":") {
                let byte = line[colon]
                throw .malformed(
                    byte == 0x20 || byte == 0x09
                        ? "Whitespace in or after the header name '\(Self.printable(UnsafeBufferPointer(rebasing: line[..<colon])))'."
                        : "The header line '\(Self.printable(line))' has a name that is not a token.")
            }
        } else {
            while colon < line.count, line[colon] != UInt8(ascii: ":") {
                let byte = line[colon]
                guard byte > 0x20 && byte != 0x7F else {
                    throw .malformed("a malformed response (space in a header name)")
                }
                colon += 1
            }
        }
        guard colon > 0, colon < line.count else {
            throw .malformed(
                isRequest ? "The header line '\(Self.printable(line))' has no name or no colon." : "a malformed response (header line without a name)")
        }
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        // One pass that only ORs a flag per byte: a usual value has nothing below a space and no DEL. (A running
        // minimum and maximum, the two reductions this replaced, cost 2.7 times as much per line, counted by
        // callgrind on typical values compiled alone.)
        var suspicious: UInt8 = 0
        for index in start..<end {
            let byte = line[index]
            suspicious |= (byte < 0x20 ? 1 : 0) | (byte == 0x7F ? 1 : 0)
        }
        guard suspicious != 0 else { return (colon, start, end) }
        for index in start..<end {
            let byte = line[index]
            guard byte < 0x20 || byte == 0x7F else { continue }
            if byte == 0x09 { continue }
            // A response may carry odd control bytes; a NUL or CR in one would still split it for some client.
            if isRequest || byte == 0x00 || byte == 0x0D {
                throw .malformed(
                    "The value of header '\(Self.printable(UnsafeBufferPointer(rebasing: line[..<colon])))' holds a control character (byte \(byte)).")
            }
        }
        return (colon, start, end)
    }

    private func rejectBareCR(_ line: UnsafeBufferPointer<UInt8>, in place: String) throws(HTTP1ParseError) {
        // One pass for the common case, a line with neither; which one it is only matters for the error.
        guard ByteSearch.contains(0x0D, or: 0x00, in: line) else { return }
        if ByteSearch.firstIndex(of: 0x0D, in: line) != nil {
            throw .malformed("A bare CR (not followed by LF) in \(place).")
        }
        if ByteSearch.firstIndex(of: 0x00, in: line) != nil {
            throw .malformed("A NUL byte in \(place).")
        }
    }

    // MARK: - The end of the head: framing

    private mutating func headersEnded() throws(HTTP1ParseError) {
        if !isRequest && status < 200 && status != 101 {
            // 1xx answers are interim, except 101, which hands the connection over to another protocol.
            state = .startLine
            headers = HTTPHeaders()
            return
        }
        var close = false
        var keepAlive = false
        var codings: [Substring] = []
        var length: Int?
        var failure: HTTP1ParseError?
        var expect: String?
        let isRequest = isRequest
        headers.forEachField { name, value in
            // Told apart by length first: most fields are none of these.
            switch name.count {
            case 10 where name.equalsIgnoringASCIICase("Connection"),
                16 where isRequest && name.equalsIgnoringASCIICase("Proxy-Connection"):
                Self.forEachListItem(value) { item in
                    if Self.equalsIgnoringCase(item, "close") { close = true }
                    if Self.equalsIgnoringCase(item, "keep-alive") { keepAlive = true }
                }
            case 17 where name.equalsIgnoringASCIICase("Transfer-Encoding"):
                codings += Self.listItems(String(decoding: value, as: UTF8.self))
            case 14 where name.equalsIgnoringASCIICase("Content-Length"):
                var items = 0
                Self.forEachListItem(value) { item in
                    items += 1
                    guard failure == nil else { return }
                    guard let parsed = Self.decimal(item) else {
                        let value = String(decoding: value, as: UTF8.self)
                        failure = .malformed(isRequest ? "Content-Length '\(value)' is not a number." : "a malformed response (Content-Length '\(value)')")
                        return
                    }
                    if let length, length != parsed {
                        let value = String(decoding: value, as: UTF8.self)
                        failure = .malformed(
                            isRequest ? "Two Content-Length values that differ (\(length) and \(parsed))." : "a malformed response (Content-Length '\(value)')")
                        return
                    }
                    length = parsed
                }
                if items == 0 && failure == nil { failure = .malformed("An empty Content-Length.") }
            case 6 where isRequest && name.equalsIgnoringASCIICase("Expect"):
                expect = String(decoding: value, as: UTF8.self)
            default:
                break
            }
        }
        if let failure { throw failure }
        if let expect { expectation = expect }
        isKeepAlive = minorVersion == 0 ? keepAlive && !close : !close
        hasHead = true
        if isRequest {
            try requestFraming(codings: codings, length: length)
        } else {
            responseFraming(codings: codings, length: length)
        }
    }

    private mutating func requestFraming(codings: [Substring], length: Int?) throws(HTTP1ParseError) {
        if minorVersion == 1 && hostCount == 0 { throw .malformed("An HTTP/1.1 request without a Host header.") }
        if hostCount > 1 { throw .malformed("A request with more than one Host header.") }
        if let last = codings.last {
            if length != nil { throw .malformed("Content-Length together with Transfer-Encoding.") }
            guard last.equalsIgnoringASCIICase("chunked") else {
                throw .malformed("The transfer coding '\(codings.joined(separator: ", "))' does not end in chunked.")
            }
            if codings.dropLast().contains(where: { $0.equalsIgnoringASCIICase("chunked") }) {
                throw .malformed("chunked is applied more than once.")
            }
            if codings.count > 1 {
                throw HTTP1ParseError(
                    .unsupportedTransferCoding,
                    "The transfer coding '\(codings.joined(separator: ", "))' is not supported; only chunked is.")
            }
            isChunked = true
            // An HTTP/1.0 message with a transfer coding is read, but the connection is not trusted after it.
            if minorVersion == 0 { isKeepAlive = false }
            state = .chunkSize
            return
        }
        contentLength = length
        let size = length ?? 0
        if size > limits.maximumBodyBytes {
            throw HTTP1ParseError(
                .bodyTooLarge, "The request body is \(size) bytes; the limit is \(limits.maximumBodyBytes).")
        }
        body.reserveCapacity(min(size, 16 << 20))
        state = size == 0 ? .complete : .body(remaining: size)
    }

    private mutating func responseFraming(codings: [Substring], length: Int?) {
        if isHeadRequest || status == 204 || status == 304 || status == 101 {
            if status == 101 { isKeepAlive = false }
            state = .complete
            return
        }
        if let last = codings.last {
            // Not chunked last: the body runs to the end of the connection (RFC 9112 §6.3).
            guard last.equalsIgnoringASCIICase("chunked") else {
                isKeepAlive = false
                state = .untilClose
                return
            }
            isChunked = true
            state = .chunkSize
            return
        }
        if let length {
            contentLength = length
            if !streamsBody { body.reserveCapacity(min(length, 16 << 20)) }
            state = length == 0 ? .complete : .body(remaining: length)
            return
        }
        isKeepAlive = false
        state = .untilClose
    }

    // MARK: - Chunks

    private mutating func readChunkSize(_ line: UnsafeBufferPointer<UInt8>) throws(HTTP1ParseError) {
        var size = 0
        var digits = 0
        var index = 0
        while index < line.count, let value = Self.hexValue(line[index]) {
            guard digits < 15 else { throw .malformed("A chunk size over 15 hexadecimal digits.") }
            size = size << 4 | value
            digits += 1
            index += 1
        }
        // Spaces may stand before an extension (`5 ;name=value`); nothing else may follow the digits.
        var rest = index
        while rest < line.count, line[rest] == 0x20 || line[rest] == 0x09 { rest += 1 }
        let isWellFormed =
            rest == line.count
            // Whitespace is allowed before an extension only; a response's trailing spaces are passed over.
            ? rest == index || !isRequest
            : line[rest] == UInt8(ascii: ";")
        guard digits > 0, isWellFormed else {
            throw .malformed("The chunk size '\(Self.printable(line))' is not plain hexadecimal.")
        }
        // Chunk extensions are read and ignored, but not with control characters in them.
        for byte in line[rest...] where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            throw .malformed("A control character (byte \(byte)) in a chunk extension.")
        }
        if size == 0 {
            headBytes = 0
            state = .trailers
            return
        }
        if body.count + size > limits.maximumBodyBytes {
            throw HTTP1ParseError(
                .bodyTooLarge, "The request body is over the limit of \(limits.maximumBodyBytes) bytes.")
        }
        state = .chunkData(remaining: size)
    }

    // MARK: - Bytes

    /// RFC 9110's `tchar`: what methods and header names are made of.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        // RFC 9110's tchar as one bit per byte below 0x80: ALPHA, DIGIT and !#$%&'*+-.^_`|~. A test per byte of
        // every header name, where a switch over the ranges branched several times.
        let below40: UInt64 = 0x03FF_6CFA_0000_0000
        let below80: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        return byte < 0x40
            ? (below40 >> UInt64(byte)) & 1 != 0 : byte < 0x80 && (below80 >> UInt64(byte &- 0x40)) & 1 != 0
    }

    /// Whether `text` is an RFC 9110 token (a method, a header name).
    public static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    /// Calls `body` with each comma-separated item of a header value, without the spaces around it, as bytes: the
    /// usual values (`keep-alive`, `12`) are read without making a string.
    static func forEachListItem(_ value: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var value = value
        value.withUTF8 { forEachListItem($0, body) }
    }

    static func forEachListItem(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
            var first = start
            var last = end
            while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
            while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
            if last > first { body(UnsafeBufferPointer(rebasing: bytes[first..<last])) }
            start = end + 1
        }
    }

    /// Whether bytes spell `word` (lower case ASCII) without regard to case.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for index in 0..<bytes.count where bytes[index] | 0x20 != expected[index] { return false }
        return true
    }

    /// A non-negative decimal of at most 18 digits.
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// The comma-separated items of a header value, without the spaces around them.
    static func listItems(_ value: String) -> [Substring] {
        value.split(separator: ",").compactMap { item in
            var token = item[...]
            while token.first == " " || token.first == "\t" { token.removeFirst() }
            while token.last == " " || token.last == "\t" { token.removeLast() }
            return token.isEmpty ? nil : token
        }
    }

    /// Bytes for an error message: control characters shown as `\xNN`, and at most 80 of them.
    static func printable(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var text = ""
        for byte in bytes.prefix(80) {
            if byte >= 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return bytes.count > 80 ? text + "…" : text
    }
}

extension Substring {
    fileprivate func equalsIgnoringASCIICase(_ other: String) -> Bool {
        String(self).equalsIgnoringASCIICase(other)
    }
}
