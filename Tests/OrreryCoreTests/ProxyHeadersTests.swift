import Testing

@testable import OrreryCore

/// The header rewriting of a forwarded exchange, as values: held to the rules written out plainly in this file (every
/// field compared by its lowercased name against every rule), over fields in every case and every order.
@Suite("Proxy headers")
struct ProxyHeadersTests {
    private static let upstream = Upstream(
        scheme: "http", hostAndPort: "upstream.test:8080", environmentKey: "PROD", canonicalHost: "api.example.com")

    /// Names any of the rules treat specially, in the case the rules write them and in others, and names that are
    /// not special but share a length and first letter with one that is (`Connectiom`, `Vie`, `Tx`).
    private static let names = [
        "Host", "HOST", "host", "Content-Length", "content-length", "Connection", "connection", "Keep-Alive",
        "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "TE", "te", "Trailer", "Transfer-Encoding",
        "Upgrade", "X-Orrery-Session", "x-orrery-admin-token", "X-Forwarded-For", "x-forwarded-for", "Via", "VIA",
        "Connectiom", "Vie", "Tx", "Hosts", "Accept", "User-Agent", "Content-Type", "Authorization", "Cookie",
        "X-Request-Id", "Upgrade-Insecure-Requests", "Trailers",
    ]

    /// The request rules written out plainly: drop hop-by-hop fields, those `Connection` names, `Host`,
    /// `Content-Length` and Orrery's own; `Host` first; the first `X-Forwarded-For` and `Via` carried with this hop
    /// added, at the end.
    private static func expectedRequest(_ headers: HTTPHeaders, clientAddress: String, via entry: String) -> [String] {
        let named = connectionNamed(headers)
        let dropped = ProxyHeaders.hopByHop.union(named).union([
            "host", "content-length", "x-orrery-session", "x-orrery-admin-token",
        ])
        var result = ["Host: upstream.test:8080"]
        var forwarded: String?
        var via: String?
        for (name, value) in headers.entries {
            let lower = name.lowercased()
            if dropped.contains(lower) { continue }
            if lower == "x-forwarded-for", !clientAddress.isEmpty {
                forwarded = forwarded ?? value
                continue
            }
            if lower == "via" {
                via = via ?? value
                continue
            }
            result.append("\(name): \(value)")
        }
        if !clientAddress.isEmpty {
            result.append("X-Forwarded-For: " + (forwarded.map { $0 + ", " } ?? "") + clientAddress)
        }
        result.append("Via: " + (via.map { $0 + ", " } ?? "") + entry)
        return result
    }

    private static func expectedResponse(_ headers: HTTPHeaders) -> [String] {
        let named = connectionNamed(headers)
        let dropped = ProxyHeaders.hopByHop.union(named).union(["content-length"])
        var result: [String] = []
        var via: String?
        for (name, value) in headers.entries {
            let lower = name.lowercased()
            if dropped.contains(lower) { continue }
            if lower == "via" {
                via = via ?? value
                continue
            }
            result.append("\(name): \(value)")
        }
        result.append("Via: " + (via.map { $0 + ", " } ?? "") + ProxyHeaders.via)
        return result
    }

    /// The fields a `Connection` field names, lowercased.
    private static func connectionNamed(_ headers: HTTPHeaders) -> Set<String> {
        var named = Set<String>()
        for (name, value) in headers.entries where name.lowercased() == "connection" {
            for token in value.split(separator: ",") {
                named.insert(
                    String(
                        token.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
                    ).lowercased())
            }
        }
        return named
    }

    private static func lines(_ headers: HTTPHeaders) -> [String] {
        headers.entries.map { "\($0.name): \($0.value)" }
    }

    /// Header lists of one to five fields drawn from `names` in a fixed pseudo-random order, with a `Connection`
    /// that names another field in some of them.
    private static func headerLists() -> [HTTPHeaders] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var lists: [HTTPHeaders] = []
        for index in 0..<400 {
            var headers = HTTPHeaders()
            for field in 0..<(1 + next(5)) {
                let name = names[next(names.count)]
                let value =
                    name.lowercased() == "connection"
                    ? ["keep-alive", "close, X-Request-Id", "Accept"][next(3)] : "v\(index).\(field)"
                headers.add(name, value)
            }
            // Every other list as a parser keeps it, as bytes: the rules read both forms.
            lists.append(index.isMultiple(of: 2) ? headers : .asReceived(headers))
        }
        return lists
    }

    @Test("a forwarded request's fields follow the rules, whatever their case and order")
    func upstreamRequest() {
        for headers in Self.headerLists() {
            for clientAddress in ["127.0.0.1", ""] {
                let made = ProxyHeaders.upstreamRequest(
                    headers, upstream: Self.upstream, clientAddress: clientAddress, injected: [], via: "1.1 orrery-t")
                #expect(
                    Self.lines(made)
                        == Self.expectedRequest(headers, clientAddress: clientAddress, via: "1.1 orrery-t"),
                    "\(Self.lines(headers))")
            }
        }
    }

    @Test("a forwarded head written from the client's fields is the head of their list, byte for byte")
    func forwardedHead() {
        for headers in Self.headerLists() {
            for clientAddress in ["127.0.0.1", ""] {
                let fields = ForwardedFields(
                    headers, hostHeader: Self.upstream.hostHeader, clientAddress: clientAddress, via: "1.1 orrery-t")
                #expect(
                    Self.lines(fields.list)
                        == Self.expectedRequest(headers, clientAddress: clientAddress, via: "1.1 orrery-t"),
                    "\(Self.lines(headers))")
                for (method, body) in [("GET", 0), ("POST", 0), ("PUT", 12_345), ("DELETE", 7)] {
                    var written: [UInt8] = []
                    _ = fields.withRequestHead(method: method, target: "/a?b=c", bodyLength: body) {
                        written = Array($0)
                        return true
                    }
                    let listed = HTTP1Encoder.requestHead(
                        method: method, target: "/a?b=c", headers: fields.list, bodyLength: body)
                    #expect(written == listed, "\(method) \(Self.lines(headers))")
                }
            }
        }
    }

    @Test("an upstream answer's fields follow the rules, whatever their case and order")
    func clientResponse() {
        for headers in Self.headerLists() {
            #expect(
                Self.lines(ProxyHeaders.clientResponse(headers)) == Self.expectedResponse(headers),
                "\(Self.lines(headers))")
        }
    }

    @Test("injected values replace the client's")
    func injected() {
        let headers: HTTPHeaders = ["authorization": "client's", "Accept": "*/*"]
        let made = ProxyHeaders.upstreamRequest(
            headers, upstream: Self.upstream, clientAddress: "", injected: [("Authorization", "Bearer injected")])
        #expect(made["Authorization"] == "Bearer injected")
        #expect(made.all(named: "authorization") == ["Bearer injected"])
    }

    @Test("a name set finds its names in any case, and nothing else")
    func nameSet() {
        let set = HeaderNameSet(ProxyHeaders.hopByHop.sorted() + ["Host", "Via"])
        for name in Self.names + Self.names.map({ $0.uppercased() }) + ["", "H", "Hostt", "ViaX", "T"] {
            let expected =
                ProxyHeaders.hopByHop.contains(name.lowercased()) || ["host", "via"].contains(name.lowercased())
            #expect(set.contains(name) == expected, "\(name)")
        }
        #expect(!HeaderNameSet([]).contains("Host"))
        // A name that is not ASCII is compared as bytes: never equal to an ASCII one.
        #expect(!set.contains("Hóst"))
    }
}
