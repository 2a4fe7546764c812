import Foundation
import OrreryCore
import OrreryEvent

/// One file of the dashboard, ready to serve: its bytes, gzip-compressed once, and the tag a browser revalidates with.
struct DashboardAsset: Sendable {
    let name: String
    let contentType: String
    let body: [UInt8]
    /// The gzip form, made once; nil when compressing does not make it smaller.
    let gzipped: [UInt8]?
    /// A strong entity tag of the bytes (FNV-1a, 64 bits): the asset changes only with the binary.
    let etag: String

    init(name: String, body: [UInt8]) {
        self.name = name
        self.body = body
        contentType = Self.contentType(of: name)
        let compressed = Zlib.compress(body, .gzip, level: 9)
        gzipped = compressed.flatMap { $0.count < body.count ? $0 : nil }
        etag = Self.tag(body)
    }

    /// The file as an answer to `request`: gzip when the client takes it, 304 when it already holds these bytes.
    /// An answer to a request that carried the token in its URL is never stored by the browser.
    func reply(to request: HTTPRequest, isPersonal: Bool = false) -> AdminReply {
        let isCompressed = gzipped != nil && PreparedResponse.accepts(.gzip, request.headers["Accept-Encoding"])
        // Each representation has its own strong tag, so a cache never mixes the two.
        let tag = "\"\(etag)\(isCompressed ? "-gzip" : "")\""
        var headers = Dashboard.securityHeaders
        headers.set("Content-Type", contentType)
        headers.set("Cache-Control", isPersonal ? "no-store" : "no-cache")
        headers.set("Vary", "Accept-Encoding")
        headers.set("ETag", tag)
        if !isPersonal, let condition = request.headers["If-None-Match"], Self.matches(condition, tag) {
            return AdminReply(status: 304, headers: headers, body: [])
        }
        if isCompressed, let gzipped {
            headers.set("Content-Encoding", "gzip")
            return AdminReply(status: 200, headers: headers, body: gzipped)
        }
        return AdminReply(status: 200, headers: headers, body: body)
    }

    /// Whether an `If-None-Match` value names `tag` (weak comparison, as RFC 9110 asks for this header) or is `*`.
    static func matches(_ condition: String, _ tag: String) -> Bool {
        condition.split(separator: ",").contains { part in
            let candidate = part.trimmingCharacters(in: .whitespaces)
            return candidate == "*" || candidate == tag || candidate == "W/" + tag
        }
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }

    private static func tag(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
