/// The authority a `CONNECT` request names (`api.example.com:443`, `[::1]:8443`): where a tunnel goes.
public struct ConnectTarget: Sendable, Equatable, CustomStringConvertible {
    /// Host name or address, without brackets.
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses the authority form of a request target (RFC 9110 §9.3.6): a host and a port, both required.
    public init?(authority: String) {
        let hostPart: Substring
        let portPart: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
        } else {
            guard let colon = authority.lastIndex(of: ":"), authority.firstIndex(of: ":") == colon else { return nil }
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty, !hostPart.contains(where: { $0 == "/" || $0 == "@" || $0 == " " }),
            portPart.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portPart), (1...65_535).contains(port)
        else { return nil }
        self.host = String(hostPart)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
