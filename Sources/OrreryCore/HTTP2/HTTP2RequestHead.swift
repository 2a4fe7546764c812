/// One HTTP/2 request's header block as it arrives, field by field, made into the `HTTPRequest` every protocol
/// hands the pipeline. nghttp2 has already checked the block's form (pseudo-fields first, lower-case names, no
/// connection-specific fields); this keeps its size within the limit HTTP/1 heads have, counted as RFC 9113 §6.5.2
/// counts (name, value and 32 bytes a field), which nghttp2 1.52 does not enforce on what it receives.
public struct HTTP2RequestHead: Sendable {
    public private(set) var method = ""
    public private(set) var path = ""
    public private(set) var scheme = ""
    public private(set) var authority = ""
    /// RFC 8441's `:protocol` of an extended `CONNECT` (`websocket`); empty for any other request.
    public private(set) var connectProtocol = ""
    public private(set) var headers = HTTPHeaders()
    /// The block's size so far, as RFC 9113 counts it.
    public private(set) var listBytes = 0
    private var cookies: [String] = []
    /// `headers` starts with the `host` field made from `:authority`, which a `host` field of the block replaces.
    private var hasAuthorityHost = false

    public init() {}

    /// Adds one field. False when the block has grown past `limit` bytes: the stream is then refused.
    public mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, limit: Int) -> Bool {
        listBytes += name.count + value.count + 32
        guard listBytes <= limit else { return false }
        let value = String(decoding: value, as: UTF8.self)
        if name.first == UInt8(ascii: ":") {
            // Told apart by their bytes: no string is made of a pseudo-field's name.
            if Self.is(name, ":method") {
                method = value
            } else if Self.is(name, ":path") {
                path = value
            } else if Self.is(name, ":authority") {
                authority = value
                // Pseudo-fields come first (nghttp2 refuses a block where they do not), so this is the first field;
                // `host` is put there now rather than the list copied to put it there in `request(body:)`.
                if !value.isEmpty, !hasAuthorityHost, !headers.contains("host") {
                    headers.entries.insert(("host", value), at: 0)
                    hasAuthorityHost = true
                }
            } else if Self.is(name, ":scheme") {
                scheme = value
            } else if Self.is(name, ":protocol") {
                connectProtocol = value
            }
            // nghttp2 refuses unknown pseudo-fields before they reach here.
            return true
        }
        // HTTP/2 may split a cookie into one field per pair (RFC 9113 §8.2.3); they are one field again here.
        if Self.is(name, "cookie") {
            cookies.append(value)
            return true
        }
        if hasAuthorityHost, Self.is(name, "host") {
            // The block's own `host` is kept, where it is, instead of the one made from `:authority`.
            headers.entries.removeFirst()
            hasAuthorityHost = false
        }
        headers.add(String(decoding: name, as: UTF8.self), value)
        return true
    }

    /// An extended `CONNECT` (RFC 8441): a tunnel for the protocol `:protocol` names, to the resource `:path` names,
    /// whose DATA frames carry that protocol rather than a body. nghttp2 lets `:protocol` through only when this
    /// side has sent `SETTINGS_ENABLE_CONNECT_PROTOCOL`, and only with `:scheme`, `:path` and `:authority`.
    public var isExtendedConnect: Bool { method == "CONNECT" && !connectProtocol.isEmpty }

    /// An extended `CONNECT` for `websocket` as the HTTP/1.1 opening handshake it stands for (RFC 8441 §5): a GET of
    /// `:path` with `Upgrade: websocket` and `Connection: Upgrade`, and the client's fields (its
    /// `sec-websocket-version`, `-protocol`, `-extensions`). It has no `Sec-WebSocket-Key`: over HTTP/2 none is sent,
    /// and the answer carries no `Sec-WebSocket-Accept`.
    public func webSocketRequest() -> HTTPRequest {
        var headers = request(body: []).headers
        headers.add("upgrade", "websocket")
        headers.add("connection", "upgrade")
        return HTTPRequest(method: "GET", target: path.isEmpty ? "/" : path, headers: headers)
    }

    @inline(__always)
    private static func `is`(_ name: UnsafeRawBufferPointer, _ expected: StaticString) -> Bool {
        name.count == expected.utf8CodeUnitCount
            && name.elementsEqual(UnsafeRawBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount))
    }

    /// The request, with the body that came in DATA frames. `:authority` becomes `host` when the block has none,
    /// as HTTP/1 carries it; a `CONNECT`'s target is its authority.
    public func request(body: [UInt8]) -> HTTPRequest {
        var headers = headers
        if !cookies.isEmpty { headers.add("cookie", cookies.joined(separator: "; ")) }
        let target = method == "CONNECT" ? authority : (path.isEmpty ? "/" : path)
        return HTTPRequest(method: method, target: target, headers: headers, body: body)
    }
}
