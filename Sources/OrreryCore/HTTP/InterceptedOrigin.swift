/// Where the requests inside an intercepted tunnel go: the `CONNECT`'s authority, and what is made of it once per
/// tunnel rather than for every request: the host as a client writes it in an https URL (the default port left
/// out) and the origin an origin-form target is read against. A class: every request carries it, or nil, and a
/// reference is one word to copy where three strings were three retains.
public final class InterceptedOrigin: Sendable {
    /// As the `CONNECT` named it: `api.example.com:443`.
    public let authority: String
    /// `api.example.com` for `api.example.com:443`; another port stays: `api.example.com:8443`.
    public let host: String
    /// `https://` and the host.
    public let origin: String

    public init(authority: String) {
        self.authority = authority
        var bytes = Array(authority.utf8)
        if bytes.count > 4, bytes.suffix(4).elementsEqual(":443".utf8) { bytes.removeLast(4) }
        host = bytes.count == authority.utf8.count ? authority : String(decoding: bytes, as: UTF8.self)
        origin = "https://" + host
    }
}
