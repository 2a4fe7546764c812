import Foundation
import OrreryCore

/// The dashboard under `/__admin/ui`: one page, its script, style sheet and icon, all compiled into the binary
/// (`DashboardFiles`, generated from `Dashboard/Assets/`), so that it needs no network and nothing beside the binary.
enum Dashboard {
    /// The page; its files are under it (`/__admin/ui/dashboard.js`).
    static let path = "/__admin/ui"
    static let pageName = "index.html"
    /// Where the page's template holds the admin token, for a page opened with one: the page sends it in a header.
    static let tokenMarker = "{{adminToken}}"
    /// Where the template says whether the daemon has a host map (`present` or `absent`), so that the page does not
    /// ask for environments there are none of (a 404 every browser would log as an error).
    static let hostMapMarker = "{{hostMap}}"

    /// Only the daemon's own script, styles and icon, and requests to the daemon itself: no inline script or style,
    /// no other site, no framing.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// What every dashboard answer carries besides its type and caching.
    static let securityHeaders: HTTPHeaders = [
        "Content-Security-Policy": contentSecurityPolicy,
        "X-Content-Type-Options": "nosniff",
        // The page's URL may hold the token: it is never sent on to anyone.
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "Cross-Origin-Resource-Policy": "same-origin",
    ]

    private static let template = DashboardFiles.all.first { $0.name == pageName }?.text ?? ""

    /// The page as most browsers get it, with no token in it: one for daemons with a host map, one for those without.
    private static let plainPages = [true, false].map { hasHostMap in
        DashboardAsset(name: pageName, body: Array(page(token: "", hasHostMap: hasHostMap).utf8))
    }

    private static func page(token: String, hasHostMap: Bool) -> String {
        template.replacingOccurrences(of: tokenMarker, with: htmlEscaped(token))
            .replacingOccurrences(of: hostMapMarker, with: hasHostMap ? "present" : "absent")
    }

    /// The page's files by name; the page itself is not among them.
    static let assets: [String: DashboardAsset] = Dictionary(
        DashboardFiles.all.filter { $0.name != pageName }.map { ($0.name, DashboardAsset(name: $0.name, body: Array($0.text.utf8))) },
        uniquingKeysWith: { first, _ in first })

    /// `GET /__admin/ui`. Opened with `?token=`, it redirects to itself with the token in a cookie (see
    /// `DashboardAccess`), so the token leaves the address bar at once. Opened with a token, the page holds it for its
    /// own calls, and is never stored.
    static func page(_ request: HTTPRequest, hasHostMap: Bool) -> AdminReply {
        if let token = DashboardAccess.queryToken(request) {
            var headers = securityHeaders
            headers.set("Location", path)
            headers.set("Set-Cookie", DashboardAccess.cookie(token, for: request))
            headers.set("Cache-Control", "no-store")
            return AdminReply(status: 303, headers: headers, body: [])
        }
        guard let token = DashboardAccess.anyToken(request) else {
            return plainPages[hasHostMap ? 0 : 1].reply(to: request)
        }
        let personal = page(token: token, hasHostMap: hasHostMap)
        return DashboardAsset(name: pageName, body: Array(personal.utf8)).reply(to: request, isPersonal: true)
    }

    /// `GET /__admin/ui/{asset}`.
    static func asset(named name: String, _ request: HTTPRequest) -> AdminReply {
        guard let asset = assets[name] else {
            let names = assets.keys.sorted().joined(separator: ", ")
            return .error(.Code404NotFound, "The dashboard has no file '\(name)'; it has \(names). The page itself is \(path).")
        }
        return asset.reply(to: request)
    }

    /// Text safe inside an HTML attribute value.
    static func htmlEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// RFC 3986's unreserved characters stay; everything else is percent-encoded (a cookie value may hold no `;`,
    /// space or quote).
    static func percentEncoded(_ text: String) -> String {
        var unreserved = CharacterSet(charactersIn: "-._~")
        unreserved.formUnion(CharacterSet(charactersIn: "a"..."z"))
        unreserved.formUnion(CharacterSet(charactersIn: "A"..."Z"))
        unreserved.formUnion(CharacterSet(charactersIn: "0"..."9"))
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
