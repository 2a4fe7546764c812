/// The header rewriting a proxy owes both sides (RFC 9110 §7.6): hop-by-hop fields stay on their hop, `Host`
/// names the upstream, `X-Forwarded-For` and `Via` say who relayed.
public enum ProxyHeaders {
    /// Fields that describe one connection, not the message; `Connection` may name more.
    public static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    /// Orrery's `Via` entry.
    public static let via = "1.1 orrery"

    /// The headers to send upstream for a client's request.
    /// - Parameter injected: resolved header values (secrets) that replace any the client sent.
    public static func upstreamRequest(
        _ headers: HTTPHeaders, upstream: Upstream, clientAddress: String, injected: [(String, String)]
    ) -> HTTPHeaders {
        var result = withoutHopByHop(headers)
        result.remove("Host")
        // The body is sent whole with its own length.
        result.remove("Content-Length")
        result.entries.insert((name: "Host", value: upstream.hostHeader), at: 0)
        if !clientAddress.isEmpty {
            if let forwarded = result["X-Forwarded-For"] {
                result.set("X-Forwarded-For", forwarded + ", " + clientAddress)
            } else {
                result.add("X-Forwarded-For", clientAddress)
            }
        }
        appendVia(&result)
        for (name, value) in injected { result.set(name, value) }
        return result
    }

    /// The headers to pass back to the client for an upstream response. The body is sent whole, so framing
    /// headers are recomputed by the server.
    public static func clientResponse(_ headers: HTTPHeaders) -> HTTPHeaders {
        var result = withoutHopByHop(headers)
        result.remove("Content-Length")
        appendVia(&result)
        return result
    }

    static func withoutHopByHop(_ headers: HTTPHeaders) -> HTTPHeaders {
        var named = hopByHop
        for value in headers.all(named: "Connection") {
            for token in value.split(separator: ",") {
                named.insert(token.trimmingCharacters(in: " \t").lowercased())
            }
        }
        return HTTPHeaders(headers.entries.filter { !named.contains($0.name.lowercased()) })
    }

    private static func appendVia(_ headers: inout HTTPHeaders) {
        if let via = headers["Via"] {
            headers.set("Via", via + ", " + Self.via)
        } else {
            headers.add("Via", Self.via)
        }
    }
}
