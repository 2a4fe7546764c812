/// The response side of a stub, as written: status, headers and the body bytes (read once at load time), and what
/// is decided per request (a template, a page, a delay drawn at random, a bandwidth limit, a fault).
public struct ResponseDefinition: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    /// The body as a client that accepts no encoding gets it (a recorded gzip body is stored decoded); empty for a
    /// body made per request (`template`, `pagination`).
    public var body: [UInt8]
    /// `encoding:` in a stub: nil leaves it to Orrery (gzip for text worth it); a coding is applied for clients
    /// that accept it and nothing else is added, as a recording replays.
    public var encoding: ContentCoding?
    /// What few responses have, in an array of at most one: 8 bytes in a plain response instead of the 150 its
    /// fields take (100,000 stubs hold one response each).
    private var extrasStorage: [Extras] = []

    /// The parts of a response that are decided per request or that few stubs have.
    struct Extras: Sendable, Equatable {
        var delay: Delay?
        var template: ResponseTemplate?
        var pagination: Pagination?
        var throttle: Throttle?
        var fault: Fault?
        var websocket: WebSocketScript?
        var events: EventStreamScript?
        var trailers: HTTPHeaders?
        var proxy: ProxyTarget?
    }

    private var extras: Extras {
        get { extrasStorage.first ?? Extras() }
        set { extrasStorage = newValue == Extras() ? [] : [newValue] }
    }

    /// How long to wait before answering.
    public var delay: Delay? {
        get { extras.delay }
        set { extras.delay = newValue }
    }
    /// `template: true`: the body and header values, compiled; rendered per request.
    public var template: ResponseTemplate? {
        get { extras.template }
        set { extras.template = newValue }
    }
    /// `paginate:`: the body is a page of a collection, chosen per request.
    public var pagination: Pagination? {
        get { extras.pagination }
        set { extras.pagination = newValue }
    }
    /// `throttle:`: a bandwidth limit.
    public var throttle: Throttle? {
        get { extras.throttle }
        set { extras.throttle = newValue }
    }
    /// `fault:`: a broken answer instead of (or, for `truncatedBody`, in the middle of) this one.
    public var fault: Fault? {
        get { extras.fault }
        set { extras.fault = newValue }
    }

    /// `websocket:`: the upgrade is accepted and the script played on the socket.
    public var websocket: WebSocketScript? {
        get { extras.websocket }
        set { extras.websocket = newValue }
    }
    /// `events:`: a server-sent event stream, sent as each event is due.
    public var events: EventStreamScript? {
        get { extras.events }
        set { extras.events = newValue }
    }
    /// `proxy:`: the request is forwarded to this base URL instead of answered here.
    public var proxy: ProxyTarget? {
        get { extras.proxy }
        set { extras.proxy = newValue }
    }
    /// `trailers:`: fields sent after the body (HTTP/2 trailers; chunked trailers for an HTTP/1.1 client that sent
    /// `TE: trailers`), as gRPC sends `grpc-status`.
    public var trailers: HTTPHeaders? {
        get { extras.trailers }
        set { extras.trailers = newValue }
    }

    public init(
        status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], delayMilliseconds: Int = 0,
        encoding: ContentCoding? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.encoding = encoding
        delay = delayMilliseconds > 0 ? .fixed(milliseconds: delayMilliseconds) : nil
    }

    /// A fixed delay in milliseconds; 0 for none, and for a delay drawn per request (see `dynamic`).
    public var delayMilliseconds: Int {
        get { delay?.fixedMilliseconds ?? 0 }
        set { delay = newValue > 0 ? .fixed(milliseconds: newValue) : nil }
    }

    /// Whether the body is made per request, so that it cannot be encoded (or compressed) once at load time.
    public var isDynamic: Bool { template != nil || pagination != nil }

    /// What the server decides per request for this response; nil for a response sent as prepared (a fixed delay
    /// included, which `PreparedResponse.delayMilliseconds` carries).
    public var dynamic: DynamicResponse? {
        let isRandomDelay = delay.map { $0.fixedMilliseconds == nil } ?? false
        guard isDynamic || isRandomDelay || throttle != nil || fault != nil else { return nil }
        return DynamicResponse(
            status: status, headers: headers, template: template, pagination: pagination, delay: delay,
            throttle: throttle, fault: fault)
    }
}

/// A `Content-Encoding` Orrery can apply: `gzip` and `deflate` (zlib's format, as RFC 9110 means it), or
/// `identity` for none.
public enum ContentCoding: String, Sendable, CaseIterable {
    case gzip
    case deflate
    case identity

    /// The coding a `Content-Encoding` value names, if Orrery can undo and redo it (`x-gzip` is gzip).
    public init?(headerValue: String) {
        switch headerValue.trimmingCharacters(in: " \t").lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        case "identity", "": self = .identity
        default: return nil
        }
    }
}

/// A response made ready to send once, when stubs load: reason phrase, final headers, body and its encoded variant.
public struct PreparedResponse: Sendable {
    public let status: Int
    public let reason: String
    public let headers: HTTPHeaders
    public let body: Payload
    /// The body in `coding`, when there is an encoded variant; served to clients that accept that coding.
    public let encodedBody: Payload?
    /// `headers` plus `Content-Encoding`, built once.
    public let encodedHeaders: HTTPHeaders
    /// The coding of `encodedBody` (gzip unless a stub asked for deflate).
    public let coding: ContentCoding
    public let delayMilliseconds: Int
    /// The whole answer as bytes, head and body, for clients that take no encoding and for those that take
    /// `coding`: what the server writes, with only the end of the head (`Date`, `Connection`) added.
    public let encoded: EncodedResponse
    public let encodedCompressed: EncodedResponse?
    /// What is decided per request (template, page, random delay, throttle, fault); nil for a response sent as is.
    public let dynamic: DynamicResponse?
    /// A WebSocket stub's script, played once the upgrade is accepted.
    public let websocket: WebSocketScript?
    /// `proxy:`: where the request is forwarded instead.
    public let proxy: ProxyTarget?
    /// A server-sent event stream's events.
    public let events: EventStreamScript?

    /// Bodies smaller than this go out as they are: the gzip header and the CPU would cost more than they save.
    public static let minimumCompressibleSize = 256

    /// Compresses bytes in a coding; the server passes zlib's, tests may pass none.
    public typealias Compressor = ([UInt8], ContentCoding) -> [UInt8]?

    public init(_ definition: ResponseDefinition, compress: Compressor?) {
        status = definition.status
        reason = HTTPStatusCode.reasonPhrase(for: definition.status)
        delayMilliseconds = definition.delayMilliseconds
        dynamic = definition.dynamic
        websocket = definition.websocket
        proxy = definition.proxy
        events = definition.events
        body = Payload(definition.body)
        var headers = definition.headers
        var compressed: [UInt8]?
        switch definition.encoding {
        case nil:
            // Orrery's own choice: gzip when it pays, announced with Vary.
            coding = .gzip
            if let compress, Self.isWorthCompressing(definition) {
                compressed = compress(definition.body, .gzip).flatMap { $0.count < definition.body.count * 9 / 10 ? $0 : nil }
            }
            if compressed != nil {
                if let vary = headers["Vary"] {
                    if !vary.lowercased().contains("accept-encoding") { headers.set("Vary", vary + ", Accept-Encoding") }
                } else {
                    headers.add("Vary", "Accept-Encoding")
                }
            }
        case .identity:
            coding = .identity
        case let coding?:
            // The stub's (a recording's) choice: that coding whenever the client takes it, and no header added.
            self.coding = coding
            if let compress, Self.mayHaveBody(definition.status) { compressed = compress(definition.body, coding) }
        }
        if let compressed {
            var encoded = headers
            encoded.add("Content-Encoding", coding.rawValue)
            encodedBody = Payload(compressed)
            encodedHeaders = encoded
        } else {
            encodedBody = nil
            encodedHeaders = headers
        }
        self.headers = headers
        // A recorded answer to HEAD keeps the length its GET would have had.
        let declaredLength = definition.body.isEmpty ? headers["Content-Length"].flatMap { Int($0) } : nil
        var plain = EncodedResponse(
            status: status, reason: reason, headers: headers, body: body, contentLength: declaredLength)
        plain.trailers = definition.trailers
        encoded = plain
        if let encodedBody {
            var compressed = EncodedResponse(
                status: definition.status, reason: reason, headers: encodedHeaders, body: encodedBody)
            compressed.trailers = definition.trailers
            encodedCompressed = compressed
        } else {
            encodedCompressed = nil
        }
    }

    /// The answer as it goes out to a request with these headers: the encoded variant when the client accepts it.
    @inline(__always)
    public func encoded(for requestHeaders: HTTPHeaders) -> EncodedResponse {
        if let encodedCompressed, Self.accepts(coding, requestHeaders["Accept-Encoding"]) { return encodedCompressed }
        return encoded
    }

    /// The headers and body for a request with these headers (its `Accept-Encoding`, read only when there is an
    /// encoded variant to choose).
    @inline(__always)
    public func variant(for requestHeaders: HTTPHeaders) -> (headers: HTTPHeaders, body: Payload) {
        if let encodedBody, Self.accepts(coding, requestHeaders["Accept-Encoding"]) { return (encodedHeaders, encodedBody) }
        return (headers, body)
    }

    static func mayHaveBody(_ status: Int) -> Bool {
        status >= 200 && status != 204 && status != 304
    }

    /// Text-like bodies of some size that are not already encoded.
    static func isWorthCompressing(_ definition: ResponseDefinition) -> Bool {
        guard definition.body.count >= minimumCompressibleSize,
            !definition.headers.contains("Content-Encoding"), mayHaveBody(definition.status)
        else { return false }
        guard let type = definition.headers["Content-Type"]?.lowercased() else { return true }
        return type.hasPrefix("text/") || type.contains("json") || type.contains("xml")
            || type.contains("javascript") || type.contains("x-www-form-urlencoded") || type.contains("svg")
            || type.contains("csv") || type.contains("yaml")
    }

    /// Whether an `Accept-Encoding` value allows `coding` (by name or `*`, and not `q=0`).
    public static func accepts(_ coding: ContentCoding, _ acceptEncoding: String?) -> Bool {
        guard let acceptEncoding, coding != .identity else { return false }
        // An explicit entry for the coding decides; otherwise a `*` entry does.
        var wildcard: Bool?
        for part in acceptEncoding.split(separator: ",") {
            let pieces = part.split(separator: ";")
            guard let name = pieces.first?.trimmingCharacters(in: " \t") else { continue }
            let refused = pieces.dropFirst().contains { parameter in
                let text = parameter.trimmingCharacters(in: " \t").lowercased()
                return text.hasPrefix("q=") && (Double(text.dropFirst(2)) ?? 1) == 0
            }
            // The names (and `x-gzip`) as a Content-Encoding header gives them.
            if ContentCoding(headerValue: name) == coding { return !refused }
            if name == "*" { wildcard = !refused }
        }
        return wildcard ?? false
    }
}

extension StringProtocol {
    func trimmingCharacters(in characters: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
