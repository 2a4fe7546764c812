import OrreryCore

/// An operation's path template (`/pets/{petId}`, after its spec's base path) compiled into segments once, matched against a
/// request's raw path segments: each segment is text, or a parameter with the text around it (`{id}.json`).
struct OperationPath: Sendable {
    enum Segment: Sendable {
        case literal(String)
        case parameter(name: String, prefix: String, suffix: String)
    }

    let template: String
    let segments: [Segment]
    /// How many segments are literal: the more, the more specific (`/pets/mine` before `/pets/{id}`).
    let literalCount: Int

    init(basePath: String, template: String) {
        self.template = template
        let parts = (basePath + template).split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        segments = parts.map { part in
            guard let open = part.firstIndex(of: "{"), let close = part[open...].firstIndex(of: "}") else {
                return .literal(String(part))
            }
            return .parameter(
                name: String(part[part.index(after: open)..<close]), prefix: String(part[..<open]),
                suffix: String(part[part.index(after: close)...]))
        }
        literalCount = segments.count { if case .literal = $0 { true } else { false } }
    }

    /// The raw (still percent-encoded) values of the path parameters, when the segments match.
    func match(_ raw: [Substring]) -> [(name: String, value: String)]? {
        guard raw.count == segments.count else { return nil }
        var values: [(name: String, value: String)] = []
        if literalCount < segments.count { values.reserveCapacity(segments.count - literalCount) }
        for (segment, part) in zip(segments, raw) {
            switch segment {
            case .literal(let text):
                // Most segments have nothing to decode: compared as they are, without a new string.
                let isEncoded = part.utf8.contains(byte: UInt8(ascii: "%"))
                guard isEncoded ? PercentDecoding.decode(part) == text : part == text else { return nil }
            case .parameter(let name, let prefix, let suffix) where prefix.isEmpty && suffix.isEmpty:
                // The whole segment (`{id}`), as most templates have it: no Characters counted.
                guard !part.isEmpty else { return nil }
                values.append((name, String(part)))
            case .parameter(let name, let prefix, let suffix):
                guard part.hasPrefix(prefix), part.hasSuffix(suffix), part.count >= prefix.count + suffix.count else {
                    return nil
                }
                let value = part.dropFirst(prefix.count).dropLast(suffix.count)
                guard !value.isEmpty else { return nil }
                values.append((name, String(value)))
            }
        }
        return values
    }
}
