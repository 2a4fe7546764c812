import Foundation
import OrreryCore

/// Who may use the admin API: loopback clients, and others with the token; and among loopback clients only those
/// that are not a web page of another site.
///
/// A browser lets any page send a "simple" cross-site request (a `text/plain` POST) to 127.0.0.1, and a DNS
/// rebinding attack makes the browser think 127.0.0.1 is the attacker's own site. The first carries the page's
/// `Origin`, the second the attacker's name in `Host`; neither can carry the token. So a request with a foreign
/// `Origin` or `Host` is refused unless it carries the token. Clients that send no `Origin` (curl, tests, the
/// `orrery` command) pass.
struct AdminAccess: Sendable {
    /// Needed from clients that are not on loopback, and from any client that fails the `Origin` or `Host` check.
    var token: String?
    /// The address the daemon listens on (`--host`), as written.
    var listenHost: String
    /// The bound port; 0 until the daemon has bound it.
    var port: Int

    /// Nil when the request may go on, else the 401 or 403 that says why not.
    func refusal(_ request: HTTPRequest, remoteAddress: String) -> AdminReply? {
        let presented =
            request.headers["X-Orrery-Admin-Token"]
            ?? request.headers["Authorization"].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : $0 }
            ?? DashboardAccess.presentedToken(request)  // the dashboard's cookie or ?token=, for its reads only
        if let token, let presented {
            if Self.isSame(presented, token) { return nil }
            return .error(.Code401Unauthorized, "The admin token is wrong; send it in 'X-Orrery-Admin-Token' or 'Authorization: Bearer'.")
        }
        guard Self.isLoopback(remoteAddress) else {
            if token != nil {
                return .error(.Code401Unauthorized, "The admin API needs its token in 'X-Orrery-Admin-Token' or 'Authorization: Bearer'.")
            }
            return .error(.Code403Forbidden, "The admin API answers loopback clients only; start Orrery with --admin-token to allow others.")
        }
        let withToken = token == nil ? "start Orrery with --admin-token and send the token" : "send the admin token"
        for origin in request.headers.all(named: "Origin") where !isOwn(origin: origin) {
            return .error(
                .Code403Forbidden,
                "The admin API refuses requests from other sites' web pages (Origin: \(origin)); the daemon's own origin is \(ownOrigin). To allow this client, \(withToken) in 'X-Orrery-Admin-Token' or 'Authorization: Bearer'.")
        }
        for host in request.headers.all(named: "Host") where !isOwn(host: host) {
            return .error(
                .Code403Forbidden,
                "The admin API answers requests addressed to \(ownAuthority), localhost or a loopback address, not to '\(host)' (a guard against DNS rebinding). To allow this client, \(withToken) in 'X-Orrery-Admin-Token' or 'Authorization: Bearer'.")
        }
        return nil
    }

    private var ownAuthority: String {
        (listenHost.contains(":") ? "[\(listenHost)]" : listenHost) + ":\(port)"
    }

    private var ownOrigin: String { "http://\(ownAuthority)" }

    /// `http://` and the listening address, `localhost`, `127.0.0.1` or `[::1]`, with the daemon's port (or no port
    /// when that is 80, as browsers leave it out).
    func isOwn(origin: String) -> Bool {
        let lowered = origin.lowercased()
        guard lowered.hasPrefix("http://"), let authority = Self.authority(lowered.dropFirst("http://".count)) else {
            return false  // `null` (a sandboxed or file page), another scheme, or not an origin at all
        }
        guard (authority.port ?? 80) == port else { return false }
        return [Self.bare(listenHost.lowercased()), "localhost", "127.0.0.1", "::1"].contains(authority.host)
    }

    /// The listening address, `localhost` or a loopback address, with any port: the port a client names may be a
    /// forwarded one, and a rebinding attack is told apart by the name, not the port.
    func isOwn(host value: String) -> Bool {
        guard let authority = Self.authority(value.lowercased()[...]) else { return false }
        if authority.host == "localhost" || authority.host == Self.bare(listenHost.lowercased()) { return true }
        return Self.isLoopback(authority.host)
    }

    /// Host (without brackets) and port of `host[:port]` or `[v6][:port]`; nil when it is not of that form.
    static func authority(_ text: Substring) -> (host: String, port: Int?)? {
        let host: Substring
        let rest: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            rest = text[text.index(after: close)...]
        } else {
            let colon = text.firstIndex(of: ":") ?? text.endIndex
            host = text[..<colon]
            rest = text[colon...]
        }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@") else { return nil }
        if rest.isEmpty { return (String(host), nil) }
        guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65535).contains(port) else { return nil }
        return (String(host), port)
    }

    private static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// 127.0.0.0/8, `::1` and 127.x mapped into IPv6, as numeric addresses only: `127.evil.example` is a name and
    /// could point anywhere.
    static func isLoopback(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        let isMapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        return isMapped && bytes[12] == 127
    }

    /// Compares in time that does not depend on where the first difference is.
    private static func isSame(_ presented: String, _ token: String) -> Bool {
        let lhs = Array(presented.utf8)
        let rhs = Array(token.utf8)
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
