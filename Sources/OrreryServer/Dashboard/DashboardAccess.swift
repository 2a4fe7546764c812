import Foundation
import OrreryCore

/// How a browser gives the dashboard the admin token, when the daemon has one, without a header it cannot send.
///
/// A browser adds no header to the page it opens, to the files that page loads, to an `EventSource` or to a download
/// link. So the token is given once in the page's URL, `GET /__admin/ui?token=…`, which answers with a redirect to
/// the bare page and a cookie holding the token (`HttpOnly`, `SameSite=Strict`, path `/__admin`, gone when the
/// browser closes). The cookie, and the URL form, count as the token only for requests that read and that a browser
/// makes by itself: `GET` of the page, its files, the exchange stream and the HAR download. Everything the page
/// changes goes through `fetch` with the token in `X-Orrery-Admin-Token`, which the page gets from its own HTML; a
/// `POST` with the cookie alone is treated as one without a token, so a page of another site, or of another port on
/// the same host (which browsers send `SameSite` cookies to), can change nothing.
enum DashboardAccess {
    static let queryParameter = "token"

    /// The token a request presents in a way only the dashboard's own reads may use, else nil: `?token=` on the page,
    /// or the dashboard's cookie on the page, its files, the stream and the HAR download.
    static func presentedToken(_ request: HTTPRequest) -> String? {
        guard request.method == "GET" else { return nil }
        let path = AdminRouter.segments(of: request)
        if path == ["__admin", "ui"], let token = queryToken(request) { return token }
        guard isBrowserRead(path) else { return nil }
        return cookieToken(request)
    }

    /// `?token=` on `GET /__admin/ui`.
    static func queryToken(_ request: HTTPRequest) -> String? {
        guard request.method == "GET", AdminRouter.segments(of: request) == ["__admin", "ui"] else { return nil }
        return request.queryValues(named: queryParameter).last
    }

    /// The page, its files, the stream and the HAR download: what a browser fetches with no script to add a header.
    static func isBrowserRead(_ path: [String]) -> Bool {
        let isDashboard = (2...3).contains(path.count) && path[0] == "__admin" && path[1] == "ui"
        return isDashboard || path == ["__admin", "requests", "stream"] || path == ["__admin", "requests.har"]
    }

    /// The cookie's name for the port the request was sent to: browsers send a host's cookies to all its ports, and
    /// two daemons on one host may have different tokens.
    static func cookieName(_ request: HTTPRequest) -> String {
        let port = request.headers["Host"].flatMap { AdminAccess.authority($0.lowercased()[...])?.port } ?? 80
        return "orrery-admin-token-\(port)"
    }

    /// The dashboard's cookie, if the request carries it.
    static func cookieToken(_ request: HTTPRequest) -> String? {
        let name = cookieName(request)
        for header in request.headers.all(named: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                return PercentDecoding.decode(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return nil
    }

    /// The `Set-Cookie` value that keeps `token` for this browser's session.
    static func cookie(_ token: String, for request: HTTPRequest) -> String {
        "\(cookieName(request))=\(Dashboard.percentEncoded(token)); Path=\(AdminAPI.prefix); HttpOnly; SameSite=Strict"
    }

    /// The token this request presented in any form (header, cookie or URL), for the page to send in its own calls.
    static func anyToken(_ request: HTTPRequest) -> String? {
        let header =
            request.headers["X-Orrery-Admin-Token"]
            ?? request.headers["Authorization"].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : $0 }
        return header ?? presentedToken(request)
    }
}
