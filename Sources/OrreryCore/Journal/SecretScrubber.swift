/// Finds an exchange's secrets in the forms they travel in and replaces each with the placeholder: as they are,
/// percent-encoded (either case of hex, `+` for a space), JSON-escaped (`\"`, `\/`, `\uXXXX`, ...) and in base64 or
/// base64url, with or without padding, standing alone or inside a longer base64 text at any alignment.
///
/// Encoded forms are not listed one by one (encoders differ in what they escape): the text is searched as it is,
/// then as percent-decoded and as JSON-unescaped when it has such escapes, and what is found in a decoded view is
/// replaced where it stands in the text, escapes and all. Base64 forms are searched as literals in each view.
struct SecretScrubber {
    /// Each secret as it is and in its base64 forms, sorted by first byte.
    private let needles: [[UInt8]]
    /// For each byte, the needles that start with it (a range of `needles`): one pass over a text finds them all.
    private let byFirstByte: [Range<Int>]
    /// Whether a secret has a space, so that `+` in a form may stand for one.
    private let hasSpace: Bool

    init(secrets: [[UInt8]]) {
        var needles = Set<[UInt8]>()
        for secret in secrets where !secret.isEmpty {
            needles.insert(secret)
            for alphabet in [Base64.standard, Base64.url] {
                needles.formUnion(Base64.forms(of: secret, alphabet: alphabet).filter { $0.count >= 4 })
            }
        }
        let sorted = needles.sorted { $0.lexicographicallyPrecedes($1) }
        var byFirstByte = [Range<Int>](repeating: 0..<0, count: 256)
        var start = 0
        while start < sorted.count {
            let first = sorted[start][0]
            var end = start + 1
            while end < sorted.count && sorted[end][0] == first { end += 1 }
            byFirstByte[Int(first)] = start..<end
            start = end
        }
        self.needles = sorted
        self.byFirstByte = byFirstByte
        hasSpace = secrets.contains { $0.contains(0x20) }
    }

    var isEmpty: Bool { needles.isEmpty }

    /// The bytes with every secret replaced; nil when none occurs, so that the usual text (which holds no secret)
    /// is read and not copied.
    func scrubbed(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard !needles.isEmpty, !text.isEmpty else { return nil }
        var found: [Range<Int>] = []
        occurrences(in: text, into: &found)
        if let view = DecodedView.percentDecoded(text, plusIsSpace: false) { search(view, into: &found) }
        // `+` is a space in a form, and itself elsewhere: a secret with a space is looked for both ways.
        if hasSpace, let view = DecodedView.percentDecoded(text, plusIsSpace: true), !view.escapes.isEmpty {
            search(view, into: &found)
        }
        if let view = DecodedView.jsonUnescaped(text) { search(view, into: &found) }
        guard !found.isEmpty else { return nil }
        return Self.replacing(Self.merged(found), in: text)
    }

    private func search(_ view: DecodedView, into found: inout [Range<Int>]) {
        var inView: [Range<Int>] = []
        view.bytes.withUnsafeBytes { occurrences(in: $0, into: &inView) }
        found += inView.map(view.sourceRange)
    }

    /// Every occurrence of every needle, overlapping ones included.
    private func occurrences(in haystack: UnsafeRawBufferPointer, into found: inout [Range<Int>]) {
        for position in 0..<haystack.count {
            let candidates = byFirstByte[Int(haystack[position])]
            guard !candidates.isEmpty else { continue }
            for index in candidates {
                let needle = needles[index]
                guard position + needle.count <= haystack.count else { continue }
                var length = 1
                while length < needle.count && haystack[position + length] == needle[length] { length += 1 }
                if length == needle.count { found.append(position..<position + length) }
            }
        }
    }

    private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            // Overlapping finds become one placeholder; adjacent ones stay two, as the secrets were.
            if let last = merged.last, range.lowerBound < last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    private static let placeholder = Array(Redactor.placeholder.utf8)

    private static func replacing(_ ranges: [Range<Int>], in text: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var offset = 0
        for range in ranges {
            output.append(contentsOf: text[offset..<range.lowerBound])
            output.append(contentsOf: placeholder)
            offset = range.upperBound
        }
        output.append(contentsOf: text[offset...])
        return output
    }
}

/// Text with its escapes decoded, and where each escape came from, so that a range found in the decoded bytes can
/// be replaced in the text.
struct DecodedView {
    var bytes: [UInt8] = []
    /// Each escape that was decoded, in order: its bytes in the view and in the text.
    var escapes: [(view: Range<Int>, source: Range<Int>)] = []

    /// The text's range for a range of the view: an escape partly inside is taken whole.
    func sourceRange(_ range: Range<Int>) -> Range<Int> {
        sourceIndex(range.lowerBound, isEnd: false)..<sourceIndex(range.upperBound, isEnd: true)
    }

    private func sourceIndex(_ index: Int, isEnd: Bool) -> Int {
        // The last escape that starts before the index (at or before it, for a start).
        var low = 0
        var high = escapes.count
        while low < high {
            let middle = (low + high) / 2
            let start = escapes[middle].view.lowerBound
            if isEnd ? start < index : start <= index { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return index }
        let escape = escapes[low - 1]
        if index < escape.view.upperBound || (isEnd && index == escape.view.upperBound) {
            return isEnd ? escape.source.upperBound : escape.source.lowerBound
        }
        return escape.source.upperBound + (index - escape.view.upperBound)
    }

    private mutating func copy(_ text: UnsafeRawBufferPointer, _ range: Range<Int>) {
        bytes.append(contentsOf: text[range])
    }

    private mutating func decoded(_ decoded: some Sequence<UInt8>, from source: Range<Int>) {
        let start = bytes.count
        bytes.append(contentsOf: decoded)
        escapes.append((start..<bytes.count, source))
    }

    /// `%HH` decoded (and `+` as a space when `plusIsSpace`); nil when the text has nothing to decode.
    static func percentDecoded(_ text: UnsafeRawBufferPointer, plusIsSpace: Bool) -> DecodedView? {
        var view: DecodedView?
        var copied = 0
        var index = 0
        while index < text.count {
            let byte = text[index]
            var value: UInt8?
            var length = 1
            if byte == UInt8(ascii: "%"), index + 2 < text.count, let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2])
            {
                value = high << 4 | low
                length = 3
            } else if byte == UInt8(ascii: "+") && plusIsSpace {
                value = 0x20
            }
            guard let value else {
                index += 1
                continue
            }
            if view == nil {
                view = DecodedView()
                view?.bytes.reserveCapacity(text.count)
            }
            view?.copy(text, copied..<index)
            view?.decoded(CollectionOfOne(value), from: index..<index + length)
            index += length
            copied = index
        }
        view?.copy(text, copied..<text.count)
        return view
    }

    /// JSON string escapes decoded: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` and `\uXXXX` (surrogate pairs
    /// included); nil when the text has none.
    static func jsonUnescaped(_ text: UnsafeRawBufferPointer) -> DecodedView? {
        var view: DecodedView?
        var copied = 0
        var index = 0
        while index + 1 < text.count {
            guard text[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            var scalar: Unicode.Scalar?
            var length = 2
            switch text[index + 1] {
            case UInt8(ascii: "\""): scalar = "\""
            case UInt8(ascii: "\\"): scalar = "\\"
            case UInt8(ascii: "/"): scalar = "/"
            case UInt8(ascii: "b"): scalar = "\u{08}"
            case UInt8(ascii: "f"): scalar = "\u{0C}"
            case UInt8(ascii: "n"): scalar = "\n"
            case UInt8(ascii: "r"): scalar = "\r"
            case UInt8(ascii: "t"): scalar = "\t"
            case UInt8(ascii: "u"):
                if let unit = utf16Unit(text, at: index + 2) {
                    if (0xD800..<0xDC00).contains(unit), index + 11 < text.count, text[index + 6] == UInt8(ascii: "\\"), text[index + 7] == UInt8(ascii: "u"),
                        let low = utf16Unit(text, at: index + 8), (0xDC00..<0xE000).contains(low)
                    {
                        scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                        length = 12
                    } else {
                        scalar = Unicode.Scalar(UInt32(unit))
                        length = 6
                    }
                }
            default:
                break
            }
            guard let scalar else {
                index += 2
                continue
            }
            if view == nil {
                view = DecodedView()
                view?.bytes.reserveCapacity(text.count)
            }
            view?.copy(text, copied..<index)
            view?.decoded(String(scalar).utf8, from: index..<index + length)
            index += length
            copied = index
        }
        if view != nil { view?.copy(text, copied..<text.count) }
        return view
    }

    private static func utf16Unit(_ text: UnsafeRawBufferPointer, at index: Int) -> UInt16? {
        guard index + 4 <= text.count else { return nil }
        var unit: UInt16 = 0
        for offset in 0..<4 {
            guard let digit = hexValue(text[index + offset]) else { return nil }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Base64 forms of a secret, for finding it where it was encoded.
enum Base64 {
    static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The secret encoded alone (padded and not), and at each of the three alignments inside a longer encoded
    /// text: the characters that depend on the secret's bytes alone (`user:secret` encoded holds the middle of
    /// `secret` encoded at its own alignment).
    static func forms(of secret: [UInt8], alphabet: [UInt8]) -> [[UInt8]] {
        let padded = encode(secret, alphabet: alphabet, isPadded: true)
        var forms = [padded, Array(padded.prefix { $0 != UInt8(ascii: "=") })]
        for alignment in 0..<3 {
            let encoded = encode([UInt8](repeating: 0, count: alignment) + secret, alphabet: alphabet, isPadded: false)
            // Character `i` holds bits 6i..<6i+6 of the stream; keep those within the secret's bits.
            let firstBit = 8 * alignment
            let endBit = 8 * (alignment + secret.count)
            let first = (firstBit + 5) / 6
            let end = endBit / 6
            if end > first { forms.append(Array(encoded[first..<end])) }
        }
        return forms
    }

    static func encode(_ bytes: [UInt8], alphabet: [UInt8], isPadded: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for position in 0..<4 {
                if position <= count {
                    output.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)])
                } else if isPadded {
                    output.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return output
    }

    /// Standard or URL-safe base64, padded or not; nil for anything else.
    static func decode(_ text: Substring) -> [UInt8]? {
        var bits: UInt32 = 0
        var bitCount = 0
        var output: [UInt8] = []
        var isPadding = false
        for byte in text.utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="):
                isPadding = true
                continue
            default: return nil
            }
            guard !isPadding else { return nil }
            bits = bits << 6 | value
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: bits >> UInt32(bitCount)))
            }
        }
        return bitCount < 6 ? output : nil
    }
}
