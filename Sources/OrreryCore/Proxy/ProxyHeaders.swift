/// The header rewriting a proxy owes both sides (RFC 9110 §7.6): hop-by-hop fields stay on their hop, `Host`
/// names the upstream, `X-Forwarded-For` and `Via` say who relayed.
public enum ProxyHeaders {
    /// Fields that describe one connection, not the message; `Connection` may name more.
    public static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    /// Orrery's `Via` entry (on answers; requests name the daemon, see `requestVia`).
    public static let via = "1.1 orrery"

    /// A daemon's `Via` entry on the requests it forwards: `1.1 orrery-` and a token of its own, so that a request
    /// that comes back to the daemon that sent it is told apart from one another Orrery relayed.
    public static func requestVia(token: String) -> String { "1.1 orrery-" + token }

    /// Whether a request's `Via` shows it already passed the daemon whose entry is `entry`.
    public static func hasPassed(_ headers: HTTPHeaders, entry: String) -> Bool {
        // The usual request has no `Via`: received fields tell so without a walk, and no array is made.
        guard headers.mayContain("Via") else { return false }
        return headers.all(named: "Via").contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: " \t") == entry }
        }
    }

    /// The headers to send upstream for a client's request: `Host` first, naming the upstream, then the client's
    /// end-to-end fields in order, then `X-Forwarded-For` and `Via` with this hop added.
    /// - Parameter injected: resolved header values (secrets) that replace any the client sent.
    /// - Parameter via: this daemon's entry (`requestVia`).
    public static func upstreamRequest(
        _ headers: HTTPHeaders, upstream: Upstream, clientAddress: String, injected: [(String, String)], via entry: String = via
    ) -> HTTPHeaders {
        var result = ForwardedFields(
            headers, hostHeader: upstream.hostHeader, clientAddress: clientAddress, via: entry
        ).list
        for (name, value) in injected { result.set(name, value) }
        return result
    }

    /// Hands on the fields `upstreamRequest` sends (before any injected value), in order: the one walk of the
    /// rules, for the list and for a head written straight from the client's fields (`ForwardedFields`). The
    /// client's fields go to `field` as bytes lent for the call, written on as they were received; the fields this
    /// hop makes (`Host`, `X-Forwarded-For`, `Via`) go to `made` as strings.
    @inline(__always)
    static func forEachUpstreamField(
        _ headers: HTTPHeaders, hostHeader: String, clientAddress: String, via entry: String,
        made: (String, String) -> Void, _ field: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void
    ) {
        made("Host", hostHeader)
        let named = connectionNamed(headers)
        var forwarded: String?
        var via: String?
        headers.forEachField { name, value in
            // Most fields are none of those this pass looks for: one test lets them through.
            if named.isEmpty && !requestFields.contains(name) {
                field(name, value)
                return
            }
            if isHopByHop(name, named) || name.equalsIgnoringASCIICase("Host")
                // The body is sent whole with its own length.
                || name.equalsIgnoringASCIICase("Content-Length")
                // Orrery's own: which session a request is for, and the admin token.
                || orreryFields.contains(name)
            {
                return
            }
            if !clientAddress.isEmpty, name.equalsIgnoringASCIICase("X-Forwarded-For") {
                forwarded = forwarded ?? String(decoding: value, as: UTF8.self)
                return
            }
            if name.equalsIgnoringASCIICase("Via") {
                via = via ?? String(decoding: value, as: UTF8.self)
                return
            }
            field(name, value)
        }
        if !clientAddress.isEmpty {
            made("X-Forwarded-For", forwarded.map { $0 + ", " + clientAddress } ?? clientAddress)
        }
        made("Via", via.map { $0 + ", " + entry } ?? entry)
    }

    /// The headers to pass back to the client for an upstream response, `Via` last with this hop added. The body
    /// is sent whole, so framing headers are recomputed by the server. The fields given are filtered in place: an
    /// upstream's answer hands over the list its parser made, and no second list is made.
    public static func clientResponse(_ headers: consuming HTTPHeaders) -> HTTPHeaders {
        var result = headers
        let named = connectionNamed(result)
        let via = result.first(named: "Via")
        result.removeFields { name in
            if named.isEmpty && !responseFields.contains(name) { return false }
            let count = name.count
            return isHopByHop(name, named) || (count == 14 && name.equalsIgnoringASCIICase("Content-Length"))
                || (count == 3 && name.equalsIgnoringASCIICase("Via"))
        }
        result.add("Via", via.map { $0 + ", " + Self.via } ?? Self.via)
        return result
    }

    /// The fields a `Connection` header names (lowercased), which are hop-by-hop too; usually none.
    private static func connectionNamed(_ headers: HTTPHeaders) -> [String] {
        // This runs for both heads of every proxied exchange, which seldom have the field: received fields tell
        // so without a walk, and no array is made.
        guard headers.mayContain("Connection") else { return [] }
        var named: [String] = []
        for value in headers.all(named: "Connection") {
            for token in value.split(separator: ",") { named.append(token.trimmingCharacters(in: " \t").lowercased()) }
        }
        return named
    }

    private static let hopByHopNames = HeaderNameSet(hopByHop.sorted())

    /// Fields meant for Orrery, never passed on.
    private static let orreryFields = HeaderNameSet(["X-Orrery-Session", "X-Orrery-Admin-Token"])

    /// Every field `upstreamRequest` drops or rewrites; any other passes as it is.
    private static let requestFields = HeaderNameSet(
        hopByHop.sorted() + orreryFields.names + ["Host", "Content-Length", "X-Forwarded-For", "Via"])

    /// Every field `clientResponse` drops or rewrites.
    private static let responseFields = HeaderNameSet(hopByHop.sorted() + ["Content-Length", "Via"])

    private static func isHopByHop(_ name: UnsafeBufferPointer<UInt8>, _ named: [String]) -> Bool {
        if !named.isEmpty, named.contains(where: { name.equalsIgnoringASCIICase($0) }) { return true }
        return hopByHopNames.contains(name)
    }
}
