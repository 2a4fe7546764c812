/// A host name or IP address that a TLS certificate can name, checked so that it is safe to put in a
/// subjectAltName.
///
/// Host names are letters (lowercased), digits, `-` and `_` in dot-separated labels of at most 63 characters, 253 in
/// all, the last label not all digits; a wildcard `*` may be the whole first label when at least two labels follow
/// (`*.example.com`). A trailing dot is dropped. Addresses are IPv4 dotted quads and IPv6 literals (brackets
/// allowed, no zone), kept in canonical text (RFC 5952 for IPv6) so that one address is one name. Nothing else
/// passes, so a `CONNECT` host such as `evil.test,DNS:bank.test` can never add an entry to OpenSSL's
/// configuration string.
public struct CertificateName: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        case dns, ipv4, ipv6
    }

    /// The canonical text: a lowercased host name, or an address without brackets.
    public let text: String
    public let kind: Kind

    public init?(_ host: String) {
        var candidate = Substring(host)
        if candidate.hasPrefix("["), candidate.hasSuffix("]") {
            candidate = candidate.dropFirst().dropLast()
            guard let bytes = Self.ipv6Bytes(candidate) else { return nil }
            self.init(text: Self.ipv6Text(bytes), kind: .ipv6)
            return
        }
        if let bytes = Self.ipv4Bytes(candidate) {
            self.init(text: bytes.map(String.init).joined(separator: "."), kind: .ipv4)
        } else if candidate.contains(":") {
            guard let bytes = Self.ipv6Bytes(candidate) else { return nil }
            self.init(text: Self.ipv6Text(bytes), kind: .ipv6)
        } else {
            guard let name = Self.hostName(candidate) else { return nil }
            self.init(text: name, kind: .dns)
        }
    }

    private init(text: String, kind: Kind) {
        self.text = text
        self.kind = kind
    }

    public var isAddress: Bool { kind != .dns }

    public var isWildcard: Bool { text.hasPrefix("*.") }

    /// The entry for OpenSSL's subjectAltName configuration string: `DNS:api.example.com`, `IP:127.0.0.1`.
    public var subjectAltNameEntry: String { isAddress ? "IP:" + text : "DNS:" + text }

    public var description: String { text }

    // MARK: - Host names

    private static let maximumNameLength = 253
    private static let maximumLabelLength = 63

    /// The lowercased name, or nil when it is not a host name (or a wildcard one) that a certificate may carry.
    private static func hostName(_ text: Substring) -> String? {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= maximumNameLength else { return nil }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for (index, label) in labels.enumerated() {
            if label == "*" {
                guard index == 0, labels.count >= 3 else { return nil }
                continue
            }
            guard isHostLabel(label) else { return nil }
        }
        guard let last = labels.last, !last.utf8.allSatisfy(isDigit) else { return nil }
        return name
    }

    /// One label: 1 to 63 of `a-z`, `0-9`, `-` and `_`, not starting or ending with `-`. `_` is not in a host
    /// name by RFC 952, but it is in real names (`_dmarc.example.com`, `my_service.internal`) that clients resolve
    /// and certificates carry; it cannot end an entry of OpenSSL's configuration string.
    static func isHostLabel(_ label: Substring) -> Bool {
        let bytes = label.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= maximumLabelLength else { return false }
        return first != UInt8(ascii: "-") && last != UInt8(ascii: "-")
            && bytes.allSatisfy {
                isDigit($0) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "_")
            }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: - Addresses

    /// The four bytes of a dotted quad such as `192.0.2.1`; no leading zeros (they read as octal to some parsers).
    private static func ipv4Bytes(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy(isDigit),
                part == "0" || !part.hasPrefix("0"), let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// The sixteen bytes of an IPv6 literal (RFC 4291 §2.2), with an optional dotted quad at the end.
    private static func ipv6Bytes(_ text: Substring) -> [UInt8]? {
        let halves = splitAtDoubleColon(text)
        guard halves.count <= 2 else { return nil }
        let isCompressed = halves.count == 2
        guard let head = groups(halves[0], allowsQuadAtEnd: !isCompressed) else { return nil }
        let tail = isCompressed ? groups(halves[1], allowsQuadAtEnd: true) : []
        guard let tail else { return nil }
        let missing = 8 - head.count - tail.count
        guard isCompressed ? missing >= 1 : missing == 0 else { return nil }
        let all = head + [UInt16](repeating: 0, count: missing) + tail
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }

    /// The text around each `::`.
    private static func splitAtDoubleColon(_ text: Substring) -> [Substring] {
        var pieces: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index] == ":", next < text.endIndex, text[next] == ":" {
                pieces.append(text[start..<index])
                start = text.index(after: next)
                index = start
            } else {
                index = next
            }
        }
        pieces.append(text[start...])
        return pieces
    }

    /// Colon-separated groups of 1 to 4 hex digits (an empty text is no groups); a dotted quad last counts as two.
    private static func groups(_ text: Substring, allowsQuadAtEnd: Bool) -> [UInt16]? {
        guard !text.isEmpty else { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1, allowsQuadAtEnd, part.contains(".") {
                guard let quad = ipv4Bytes(part) else { return nil }
                groups.append(UInt16(quad[0]) << 8 | UInt16(quad[1]))
                groups.append(UInt16(quad[2]) << 8 | UInt16(quad[3]))
                continue
            }
            guard (1...4).contains(part.utf8.count), part.utf8.allSatisfy(\.isHexDigit),
                let value = UInt16(part, radix: 16)
            else { return nil }
            groups.append(value)
        }
        return groups
    }

    /// RFC 5952 text: lowercase hex without leading zeros, the longest run of two or more zero groups (the first,
    /// on a tie) written `::`.
    private static func ipv6Text(_ bytes: [UInt8]) -> String {
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var bestStart = -1
        var bestLength = 1
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, groups[end] == 0 { end += 1 }
            if end - index > bestLength {
                bestStart = index
                bestLength = end - index
            }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard bestStart >= 0 else { return hex.joined(separator: ":") }
        let before = hex[..<bestStart].joined(separator: ":")
        let after = hex[(bestStart + bestLength)...].joined(separator: ":")
        return before + "::" + after
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
