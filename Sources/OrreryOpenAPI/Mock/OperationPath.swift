import OrreryCore

/// An operation's path template (`/pets/{petId}`, after its spec's base path) compiled into segments once, matched against a
/// request's raw path segments: each segment is text, or a parameter with the text around it (`{id}.json`).
struct OperationPath: Sendable {
    enum Segment: Sendable {
        /// The text, and its UTF-8 bytes for the comparison on bytes.
        case literal(String, [UInt8])
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
                return .literal(String(part), Array(part.utf8))
            }
            return .parameter(
                name: String(part[part.index(after: open)..<close]), prefix: String(part[..<open]),
                suffix: String(part[part.index(after: close)...]))
        }
        literalCount = segments.count { if case .literal = $0 { true } else { false } }
    }

    /// The raw (still percent-encoded) values of the path parameters, slices of `rawPath`, when its segments match.
    /// `bytes` are `rawPath`'s UTF-8 bytes up to `end`, and its segments start after the first `/`, at `first`
    /// (the router has counted them: as many as this template has).
    func match(
        _ rawPath: Substring, bytes: UnsafeBufferPointer<UInt8>, first: Int, end: Int
    ) -> [(name: String, value: Substring)]? {
        var values: [(name: String, value: Substring)] = []
        if literalCount < segments.count { values.reserveCapacity(segments.count - literalCount) }
        var start = first
        for segment in segments {
            var stop = start
            // Whether the segment needs more than a comparison of bytes: an escape to decode, or text beyond ASCII
            // (compared as Swift compares strings, canonically).
            var isPlain = true
            while stop < end && bytes[stop] != UInt8(ascii: "/") {
                if bytes[stop] == UInt8(ascii: "%") || bytes[stop] >= 0x80 { isPlain = false }
                stop += 1
            }
            defer { start = stop + 1 }
            switch segment {
            case .literal(let text, let textBytes):
                if isPlain {
                    guard stop - start == textBytes.count,
                        textBytes.withUnsafeBufferPointer({ Self.bytesEqual($0, bytes, from: start) })
                    else { return nil }
                } else {
                    guard PercentDecoding.decode(rawPath.slice(utf8Offsets: start..<stop)) == text else { return nil }
                }
            case .parameter(let name, let prefix, let suffix) where prefix.isEmpty && suffix.isEmpty:
                // The whole segment (`{id}`), as most templates have it: no Characters counted.
                guard stop > start else { return nil }
                values.append((name, rawPath.slice(utf8Offsets: start..<stop)))
            case .parameter(let name, let prefix, let suffix):
                let part = rawPath.slice(utf8Offsets: start..<stop)
                guard part.hasPrefix(prefix), part.hasSuffix(suffix), part.count >= prefix.count + suffix.count else {
                    return nil
                }
                let value = part.dropFirst(prefix.count).dropLast(suffix.count)
                guard !value.isEmpty else { return nil }
                values.append((name, value))
            }
        }
        return values
    }

    /// Whether `text` is the bytes at `start`.
    private static func bytesEqual(_ text: UnsafeBufferPointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>, from start: Int)
        -> Bool
    {
        for offset in 0..<text.count where text[offset] != bytes[start + offset] { return false }
        return true
    }
}
