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
    /// the UTF-8 bytes of the path; segment `i` starts at `starts[i]` and ends before `starts[i + 1] - 1` (the `/`
    /// before the next), the last at `end`; the router has counted them: as many as this template has. `isPlain`
    /// says no segment has an escape or text beyond ASCII, so that a literal one is compared on bytes.
    func match(
        _ bytes: UnsafeBufferPointer<UInt8>, starts: UnsafeMutableBufferPointer<Int>, end: Int, isPlain: Bool
    ) -> [(name: String, value: String)]? {
        var values: [(name: String, value: String)] = []
        if literalCount < segments.count { values.reserveCapacity(segments.count - literalCount) }
        for (index, segment) in segments.enumerated() {
            let start = starts[index]
            let stop = index + 1 < segments.count ? starts[index + 1] - 1 : end
            if let text = segment.literal {
                // Compared on bytes unless the segment has an escape to decode, or text beyond ASCII (compared as
                // Swift compares strings, canonically).
                if isPlain || !Self.needsDecoding(bytes, start..<stop) {
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
        }
        return values
    }

    /// Whether the bytes have an escape or text beyond ASCII.
    static func needsDecoding(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        range.contains { bytes[$0] == UInt8(ascii: "%") || bytes[$0] >= 0x80 }
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
