import OrreryCore

/// An operation's path template (`/pets/{petId}`, after its spec's base path) compiled into segments once, matched against a
/// request's raw path segments: each segment is text, or a parameter with the text around it (`{id}.json`).
struct OperationPath: Sendable {
    /// A class: a request's path is compared with it in place, where a value was copied out, every field retained.
    final class Segment: Sendable {
        /// The text of a literal segment; nil for a parameter.
        let literal: String?
        /// The literal's UTF-8 bytes, for the comparison on bytes.
        let literalBytes: [UInt8]
        /// A parameter's name, and the text around it in the segment.
        let name: String
        let prefix: String
        let suffix: String
        /// A parameter that is the whole segment (`{id}`), as most are.
        let isWhole: Bool

        init(literal: String) {
            self.literal = literal
            literalBytes = Array(literal.utf8)
            name = ""
            prefix = ""
            suffix = ""
            isWhole = false
        }

        init(name: String, prefix: String, suffix: String) {
            literal = nil
            literalBytes = []
            self.name = name
            self.prefix = prefix
            self.suffix = suffix
            isWhole = prefix.isEmpty && suffix.isEmpty
        }
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
                return Segment(literal: String(part))
            }
            return Segment(
                name: String(part[part.index(after: open)..<close]), prefix: String(part[..<open]),
                suffix: String(part[part.index(after: close)...]))
        }
        literalCount = segments.count { $0.literal != nil }
    }

    /// The raw (still percent-encoded) values of the path parameters, when the path's segments match. `bytes` are
    /// the UTF-8 bytes of the path (up to `end`), whose segments start after its first `/`, at `first` (the router
    /// has counted them: as many as this template has).
    func match(_ bytes: UnsafeBufferPointer<UInt8>, first: Int, end: Int) -> [(name: String, value: String)]? {
        var values: [(name: String, value: String)] = []
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
            if let text = segment.literal {
                if isPlain {
                    guard stop - start == segment.literalBytes.count,
                        segment.literalBytes.withUnsafeBufferPointer({ Self.bytesEqual($0, bytes, from: start) })
                    else { return nil }
                } else {
                    guard PercentDecoding.decode(Self.text(bytes, start..<stop)) == text else { return nil }
                }
            } else if segment.isWhole {
                // The whole segment (`{id}`), as most templates have it: no Characters counted.
                guard stop > start else { return nil }
                values.append((segment.name, Self.text(bytes, start..<stop)))
            } else {
                let part = Self.text(bytes, start..<stop)
                let (prefix, suffix) = (segment.prefix, segment.suffix)
                guard part.hasPrefix(prefix), part.hasSuffix(suffix), part.count >= prefix.count + suffix.count else {
                    return nil
                }
                let value = part.dropFirst(prefix.count).dropLast(suffix.count)
                guard !value.isEmpty else { return nil }
                values.append((segment.name, String(value)))
            }
            start = stop + 1
        }
        return values
    }

    /// A segment's text, made only where it is needed (a short value is a string without an allocation).
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Whether `text` is the bytes at `start`.
    private static func bytesEqual(
        _ text: UnsafeBufferPointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>, from start: Int
    )
        -> Bool
    {
        for offset in 0..<text.count where text[offset] != bytes[start + offset] { return false }
        return true
    }
}
