import Foundation

/// Reads an HTTP Archive (HAR 1.2, from a browser's developer tools, Charles, mitmproxy or Orrery) into recorded
/// exchanges, which `FixtureWriter` turns into stub files exactly as a recording would.
public enum HARImport {
    /// What an import found: the exchanges in the archive's order, and why any entry was left out.
    public struct Result: Sendable {
        public var exchanges: [RecordedExchange] = []
        public var skipped: [String] = []
    }

    /// Undoes a content coding, for the tools (Orrery among them) that keep an encoded body as it came.
    public typealias Decompressor = ([UInt8], ContentCoding) -> [UInt8]?

    /// - Parameters:
    ///   - pinsHost: whether fixtures require the host of each entry's URL (as a recording does for a named host).
    ///   - redactor: secrets are redacted as in the journal, before anything is written.
    ///   - decompress: zlib's, to read a body that was kept gzip- or deflate-encoded.
    public static func exchanges(
        from har: JSONValue, matchHeaders: [String] = [], pinsHost: Bool = true, redactor: Redactor,
        decompress: Decompressor? = nil
    ) throws(HARError) -> Result {
        guard case .array(let entries)? = har["log"]?["entries"] else {
            throw HARError("not a HAR file: there is no log.entries list")
        }
        var result = Result()
        for (position, entry) in entries.enumerated() {
            let label = "entry \(position + 1)"
            do {
                result.exchanges.append(
                    try exchange(
                        entry, matchHeaders: matchHeaders, pinsHost: pinsHost, redactor: redactor, decompress: decompress))
            } catch {
                result.skipped.append("\(label): \(error.description)")
            }
        }
        return result
    }

    private static func exchange(
        _ entry: JSONValue, matchHeaders: [String], pinsHost: Bool, redactor: Redactor, decompress: Decompressor?
    ) throws(HARError) -> RecordedExchange {
        guard let request = entry["request"], let response = entry["response"] else {
            throw HARError("it has no request or no response")
        }
        guard let method = request["method"]?.stringValue, let url = request["url"]?.stringValue else {
            throw HARError("its request has no method or url")
        }
        // A fixture's method must load again: an HTTP token, and not one of the words a stub file reads as "any".
        guard HTTP1Parser.isToken(method) else {
            throw HARError(
                "the method \(method.debugDescription) is not an HTTP method (RFC 9110: letters, digits and !#$%&'*+-.^_`|~)")
        }
        guard method != "*", method.uppercased() != "ANY" else {
            throw HARError("the method '\(method)' would match every method in a stub file")
        }
        let parsed = HTTPRequest(method: method, target: url, headers: headers(request["headers"]), body: try postData(request))
        guard parsed.isAbsoluteForm, let authority = parsed.host, !authority.isEmpty else {
            throw HARError("\(method) \(url): the url is not absolute")
        }
        guard case .number(let number, _)? = response["status"], let status = Int(exactly: number), (100...599).contains(status) else {
            // Browsers keep requests that never got an answer (blocked, cancelled) with status 0.
            throw HARError("\(method) \(url): no response was recorded")
        }
        // A 1xx is the start of an exchange, not its answer (a WebSocket's 101, a 100 Continue a tool kept): a stub
        // file refuses it, so it is skipped here with the reason rather than written into a file that does not load.
        guard status >= 200 else {
            throw HARError(
                "\(method) \(url): the answer recorded is \(status), informational (1xx), "
                    + "which cannot be a stub's answer")
        }
        var responseHeaders = try fields(headers(response["headers"]), what: "\(method) \(url)")
        var body = try content(response["content"], what: "\(method) \(url)")
        // HAR keeps bodies decoded: a gzip or deflate answer is encoded again on replay; one Orrery cannot encode
        // again (br, zstd) is replayed plain.
        var encoding: ContentCoding?
        if let value = responseHeaders["Content-Encoding"] {
            encoding = ContentCoding(headerValue: value)
            if encoding == nil || encoding == .identity { responseHeaders.remove("Content-Encoding") }
        }
        if let coding = encoding, coding != .identity, let decompress, isEncoded(body, coding) {
            // A body kept as it came over the wire (Orrery's own export does this). Text can start like a zlib
            // header by chance, so only gzip's magic number makes a body that does not decode a broken one.
            if let decoded = decompress(body, coding) {
                body = decoded
            } else if coding == .gzip {
                throw HARError("\(method) \(url): the gzip body is incomplete")
            }
        }
        if case .number(let size, _)? = response["content"]?["size"], encoding == nil, Int(size) > body.count {
            throw HARError("\(method) \(url): the body is incomplete (\(body.count) of \(Int(size)) bytes)")
        }
        return RecordedExchange.redacted(
            request: parsed, host: pinsHost ? authority : nil, folder: authority, matchHeaders: matchHeaders,
            status: status, responseHeaders: responseHeaders, decodedBody: Payload(body), encoding: encoding,
            redactor: redactor)
    }

    /// Whether a body looks like the coding's own bytes rather than decoded text: gzip's magic number, or
    /// zlib's header (a first byte naming deflate and a check sum over the first two).
    private static func isEncoded(_ body: [UInt8], _ coding: ContentCoding) -> Bool {
        guard body.count >= 2 else { return false }
        switch coding {
        case .gzip: return body[0] == 0x1F && body[1] == 0x8B
        case .deflate: return body[0] & 0x0F == 8 && (UInt16(body[0]) << 8 | UInt16(body[1])) % 31 == 0
        case .identity: return false
        }
    }

    /// `[{name, value}]`, without HTTP/2's pseudo-headers (`:authority`, `:status`), which are not fields.
    private static func headers(_ list: JSONValue?) -> HTTPHeaders {
        guard case .array(let items)? = list else { return HTTPHeaders() }
        var headers = HTTPHeaders()
        for item in items {
            guard let name = item["name"]?.stringValue, let value = item["value"]?.stringValue, !name.hasPrefix(":") else {
                continue
            }
            headers.add(name, value)
        }
        return headers
    }

    /// Response fields as a stub file can hold them: a name that is not a token makes the entry one Orrery cannot
    /// replay, and a value with line breaks (Firefox writes a repeated field that way) becomes one field per line.
    private static func fields(_ headers: HTTPHeaders, what: String) throws(HARError) -> HTTPHeaders {
        var fields = HTTPHeaders()
        for (name, value) in headers.entries {
            guard HTTP1Parser.isToken(name) else {
                throw HARError("\(what): the response header name \(name.debugDescription) is not an HTTP token")
            }
            guard value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else {
                fields.add(name, value)
                continue
            }
            for line in value.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
                fields.add(name, String(line))
            }
        }
        return fields
    }

    /// The request body: `postData.text` (base64 when its `encoding` says so), or its `params` as a form.
    private static func postData(_ request: JSONValue) throws(HARError) -> [UInt8] {
        guard let postData = request["postData"] else { return [] }
        if let text = postData["text"]?.stringValue {
            return try decode(text, encoding: postData["encoding"]?.stringValue, what: "the request body")
        }
        guard case .array(let params)? = postData["params"] else { return [] }
        let pairs = params.compactMap { param -> String? in
            guard let name = param["name"]?.stringValue else { return nil }
            return FormEncoding.encode(name) + "=" + FormEncoding.encode(param["value"]?.stringValue ?? "")
        }
        return Array(pairs.joined(separator: "&").utf8)
    }

    private static func content(_ content: JSONValue?, what: String) throws(HARError) -> [UInt8] {
        guard let text = content?["text"]?.stringValue else { return [] }
        let encoding = content?["encoding"]?.stringValue
        if encoding != "base64", let mimeType = content?["mimeType"]?.stringValue, !isTextLike(mimeType),
            let bytes = bytesWrittenAsText(text)
        {
            return bytes
        }
        return try decode(text, encoding: encoding, what: "\(what): the response body")
    }

    /// Some tools (mitmproxy 11 among them) write a binary body as text, one character per byte, instead of
    /// base64: such text of a binary type is read back as those bytes.
    private static func bytesWrittenAsText(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.unicodeScalars.count)
        var isBinary = false
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return nil }
            if scalar.value >= 0x80 || (scalar.value < 0x20 && scalar != "\n" && scalar != "\r" && scalar != "\t") {
                isBinary = true
            }
            bytes.append(UInt8(scalar.value))
        }
        return isBinary ? bytes : nil
    }

    private static func isTextLike(_ mimeType: String) -> Bool {
        let type = mimeType.lowercased()
        return type.hasPrefix("text/") || ["json", "xml", "javascript", "x-www-form-urlencoded", "svg", "yaml", "csv"]
            .contains { type.contains($0) }
    }

    private static func decode(_ text: String, encoding: String?, what: String) throws(HARError) -> [UInt8] {
        guard encoding == "base64" else { return Array(text.utf8) }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw HARError("\(what) is marked base64 but is not")
        }
        return Array(data)
    }
}

/// Why a HAR file, or one of its entries, could not be imported.
public struct HARError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// `application/x-www-form-urlencoded` escaping, for HAR entries that give a form as `params`.
enum FormEncoding {
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "*"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "): out += "+"
            default: out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
