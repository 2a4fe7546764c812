/// Which hosts a setting applies to (`--mitm-host`): one host name or address, every name under a domain, or all.
///
/// - `api.example.com`, `127.0.0.1`, `[::1]`: that host only (case and a trailing dot do not matter; an address
///   matches however it is written).
/// - `*.example.com`: every name below `example.com`, at any depth (`a.example.com`, `a.b.example.com`), but not
///   `example.com` itself. Unlike a certificate's wildcard it may stand on one label (`*.test`).
/// - `*`: every host.
public struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    private enum Form: Hashable, Sendable {
        case any
        case exactly(CertificateName)
        /// The domain with a leading dot: `.example.com`.
        case below(String)
    }

    private let form: Form

    public init(_ text: String) throws(HostPatternError) {
        if text == "*" {
            form = .any
            return
        }
        if text.hasPrefix("*.") {
            guard let domain = CertificateName(String(text.dropFirst(2))), domain.kind == .dns, !domain.isWildcard else {
                throw HostPatternError(text, "after '*.' must come a host name such as example.com")
            }
            form = .below("." + domain.text)
            return
        }
        guard !text.contains("*") else {
            throw HostPatternError(text, "'*' may only be the whole first label, as in *.example.com, or the whole pattern")
        }
        guard let name = CertificateName(text) else {
            throw HostPatternError(text, "not a host name or IP address (letters, digits, '-' and '.', or an address)")
        }
        form = .exactly(name)
    }

    /// Whether `host` (a name or an address, as a `CONNECT` or a `Host` header gives it, without the port) is one
    /// this pattern covers. A host that is not a valid name never matches, except for `*`.
    public func matches(_ host: String) -> Bool {
        switch form {
        case .any:
            return true
        case .exactly(let name):
            return CertificateName(host) == name
        case .below(let suffix):
            guard let name = CertificateName(host), name.kind == .dns, !name.isWildcard else { return false }
            return name.text.hasSuffix(suffix)
        }
    }

    public var description: String {
        switch form {
        case .any: return "*"
        case .exactly(let name): return name.kind == .ipv6 ? "[\(name.text)]" : name.text
        case .below(let suffix): return "*" + suffix
        }
    }
}

/// A `--mitm-host` pattern that cannot be used, and why.
public struct HostPatternError: Error, Sendable, CustomStringConvertible {
    public let pattern: String
    public let reason: String

    init(_ pattern: String, _ reason: String) {
        self.pattern = pattern
        self.reason = reason
    }

    public var description: String { "'\(pattern)': \(reason)" }
}
