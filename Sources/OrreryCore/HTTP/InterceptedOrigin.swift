/// Where the requests inside an intercepted tunnel go, made once per tunnel from its `CONNECT`'s authority rather
/// than for every request: the host as a client writes it in an https URL (the default port left out) and the
/// origin an origin-form target is read against. A class: every request carries it, or nil, and a reference is one
/// word to copy where strings were a retain each.
public final class InterceptedOrigin: Sendable {
    /// `api.example.com` for `api.example.com:443`; another port stays: `api.example.com:8443`.
    public let host: String
    /// `https://` and the host.
    public let origin: String

    /// - Parameter authority: as the `CONNECT` named it: `api.example.com:443`.
    public init(authority: String) {
        host = authority.hasSuffix(":443") && authority.count > 4 ? String(authority.dropLast(4)) : authority
        origin = "https://" + host
    }
}
