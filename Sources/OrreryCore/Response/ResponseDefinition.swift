/// The response side of a stub, as written: status, headers and the body bytes (read once at load time).
public struct ResponseDefinition: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Milliseconds to wait before answering.
    public var delayMilliseconds: Int

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], delayMilliseconds: Int = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delayMilliseconds = delayMilliseconds
    }
}

/// A response made ready to send once, when stubs load: reason phrase, final headers, body and its gzip variant.
public struct PreparedResponse: Sendable {
    public let status: Int
    public let reason: String
    public let headers: HTTPHeaders
    public let body: Payload
    /// The body gzip-compressed, when it is worth it; served to clients that accept gzip.
    public let gzipBody: Payload?
    /// `headers` plus `Content-Encoding: gzip`, built once.
    public let gzipHeaders: HTTPHeaders
    public let delayMilliseconds: Int

    /// Bodies smaller than this go out as they are: the gzip header and the CPU would cost more than they save.
    public static let minimumCompressibleSize = 256

    /// - Parameter compress: gzip for a body; the server passes zlib's, tests may pass none.
    public init(_ definition: ResponseDefinition, compress: (([UInt8]) -> [UInt8]?)?) {
        status = definition.status
        reason = HTTPStatusCode.reasonPhrase(for: definition.status)
        delayMilliseconds = definition.delayMilliseconds
        body = Payload(definition.body)
        var headers = definition.headers
        var compressed: [UInt8]?
        if let compress, Self.isWorthCompressing(definition) {
            compressed = compress(definition.body).flatMap { $0.count < definition.body.count * 9 / 10 ? $0 : nil }
        }
        if let compressed {
            if let vary = headers["Vary"] {
                if !vary.lowercased().contains("accept-encoding") { headers.set("Vary", vary + ", Accept-Encoding") }
            } else {
                headers.add("Vary", "Accept-Encoding")
            }
            var gzipped = headers
            gzipped.add("Content-Encoding", "gzip")
            gzipBody = Payload(compressed)
            gzipHeaders = gzipped
        } else {
            gzipBody = nil
            gzipHeaders = headers
        }
        self.headers = headers
    }

    /// Text-like bodies of some size that are not already encoded.
    static func isWorthCompressing(_ definition: ResponseDefinition) -> Bool {
        guard definition.body.count >= minimumCompressibleSize,
            !definition.headers.contains("Content-Encoding"),
            definition.status != 204, definition.status != 304, definition.status >= 200
        else { return false }
        guard let type = definition.headers["Content-Type"]?.lowercased() else { return true }
        return type.hasPrefix("text/") || type.contains("json") || type.contains("xml")
            || type.contains("javascript") || type.contains("x-www-form-urlencoded") || type.contains("svg")
            || type.contains("csv") || type.contains("yaml")
    }

    /// Whether an `Accept-Encoding` value allows gzip (`gzip`, `x-gzip` or `*`, and not `q=0`).
    public static func acceptsGzip(_ acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        // An explicit gzip entry decides; otherwise a `*` entry does.
        var wildcard: Bool?
        for part in acceptEncoding.split(separator: ",") {
            let pieces = part.split(separator: ";")
            guard let coding = pieces.first?.trimmingCharacters(in: " \t").lowercased() else { continue }
            let refused = pieces.dropFirst().contains { parameter in
                let text = parameter.trimmingCharacters(in: " \t").lowercased()
                return text.hasPrefix("q=") && (Double(text.dropFirst(2)) ?? 1) == 0
            }
            if coding == "gzip" || coding == "x-gzip" { return !refused }
            if coding == "*" { wildcard = !refused }
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
