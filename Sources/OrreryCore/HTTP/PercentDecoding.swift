/// Percent-decoding of URL paths, query strings and form bodies.
public enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when asked); malformed escapes are kept as written.
    public static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String {
        let utf8 = text.utf8
        // Fast path: nothing to decode, which is the usual case for paths.
        if !utf8.contains(byte: UInt8(ascii: "%")) && !(plusAsSpace && utf8.contains(byte: UInt8(ascii: "+"))) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"),
                let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex), high != utf8.endIndex,
                let low = utf8.index(high, offsetBy: 1, limitedBy: utf8.endIndex), low != utf8.endIndex,
                let highValue = hexValue(utf8[high]), let lowValue = hexValue(utf8[low])
            {
                bytes.append(highValue << 4 | lowValue)
                index = utf8.index(after: low)
                continue
            }
            bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = utf8.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func decode(_ text: String, plusAsSpace: Bool = false) -> String {
        decode(Substring(text), plusAsSpace: plusAsSpace)
    }

    /// Splits `a=1&b=two` into decoded pairs; a name without `=` has an empty value.
    public static func queryItems(_ query: Substring) -> [QueryItem] {
        guard !query.isEmpty else { return [] }
        // Split on bytes: `&` and `=` are ASCII, so their UTF-8 positions are the string's own. Splitting the
        // Substring by Characters ran grapheme breaking over every byte, some 17,000 instructions a parameter.
        let utf8 = query.utf8
        var items: [QueryItem] = []
        var start = utf8.startIndex
        while start != utf8.endIndex {
            let end = utf8[start...].firstIndex(ofByte: UInt8(ascii: "&")) ?? utf8.endIndex
            if start != end {
                if let equals = utf8[start..<end].firstIndex(ofByte: UInt8(ascii: "=")) {
                    items.append(
                        QueryItem(
                            name: decode(query[start..<equals], plusAsSpace: true),
                            value: decode(query[utf8.index(after: equals)..<end], plusAsSpace: true)))
                } else {
                    items.append(QueryItem(name: decode(query[start..<end], plusAsSpace: true), value: ""))
                }
            }
            start = end == utf8.endIndex ? end : utf8.index(after: end)
        }
        return items
    }

    /// The decoded values of the parameters of `query` whose decoded name is `name`, in order, at most `limit` of
    /// them: what `queryItems` would give for that name, without decoding (or making strings of) the others.
    public static func queryValues(named name: String, in query: Substring, limit: Int = .max) -> [String] {
        var values: [String] = []
        guard limit > 0 else { return values }
        forEachRawValue(named: name, in: query) { _, range in
            values.append(decode(query.slice(utf8Offsets: range), plusAsSpace: true))
            return values.count < limit
        }
        return values
    }

    /// The first value of the parameter called `name`, decoded: a slice of `query` itself when there is nothing to
    /// decode in it (what a template reads, per answer), a new string only when there is.
    public static func firstQueryValue(named name: String, in query: Substring) -> Substring? {
        var found: (range: Range<Int>, needsDecoding: Bool)?
        forEachRawValue(named: name, in: query) { bytes, range in
            let raw = UnsafeBufferPointer(rebasing: bytes[range])
            found = (range, needsDecoding(raw))
            return false
        }
        guard let found else { return nil }
        let raw = query.slice(utf8Offsets: found.range)
        return found.needsDecoding ? Substring(decode(raw, plusAsSpace: true)) : raw
    }

    /// Lends the bytes of the first value of the parameter called `name`, decoded: in place when there is nothing
    /// to decode, as a template writes it without a slice or a string made of it. Nothing is lent when the query
    /// has no such parameter.
    package static func withFirstQueryValueBytes(
        named name: String, in query: Substring, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        forEachRawValue(named: name, in: query) { bytes, range in
            let raw = UnsafeBufferPointer(rebasing: bytes[range])
            if needsDecoding(raw) {
                var decoded = decode(String(decoding: raw, as: UTF8.self), plusAsSpace: true)
                decoded.withUTF8 { body($0) }
            } else {
                body(raw)
            }
            return false
        }
    }

    /// The first value of the parameter called `name`, decoded, as a string of its own: what a reader that keeps
    /// the value (the OpenAPI parameters) asks, made straight from the query's bytes.
    package static func firstQueryValueString(named name: String, in query: Substring) -> String? {
        var found: String?
        forEachRawValue(named: name, in: query) { bytes, range in
            let raw = UnsafeBufferPointer(rebasing: bytes[range])
            let text = String(decoding: raw, as: UTF8.self)
            found = needsDecoding(raw) ? decode(text, plusAsSpace: true) : text
            return false
        }
        return found
    }

    /// Whether a raw query value holds anything `decode(_:plusAsSpace:)` would change: an escape or a `+`.
    @inline(__always)
    private static func needsDecoding(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        raw.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
    }

    /// Hands over the byte range (in `query`'s UTF-8, whose bytes come with it) of the raw, still encoded, value of
    /// each parameter whose decoded name is `name`, in order, until `body` returns false; a name without `=` has an
    /// empty value. Everything is compared over the bytes in place, the name's too: templates ask this on every
    /// answer, and walking the strings' UTF-8 views cost some 1,000 instructions for `q=a`.
    private static func forEachRawValue(
        named name: String, in query: Substring, _ body: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Bool
    ) {
        guard !query.isEmpty else { return }
        // `withUTF8` on copies: a Substring's UTF-8 view asked for its contiguous storage cost some 400 instructions.
        var (nameText, queryText) = (name, query)
        nameText.withUTF8 { nameBytes in
            // Names beyond ASCII (either side) are compared as strings, canonically, as the query decoded whole
            // would be.
            let isNameASCII = !nameBytes.contains { $0 >= 0x80 }
            queryText.withUTF8 { bytes in
                forEachPair(bytes) { nameRange, valueRange in
                    let encoded = UnsafeBufferPointer(rebasing: bytes[nameRange])
                    let matches =
                        !isNameASCII
                            || encoded.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") || $0 >= 0x80 }
                        ? decode(query.slice(utf8Offsets: nameRange), plusAsSpace: true) == name
                        : encoded.elementsEqual(nameBytes)
                    return matches ? body(bytes, valueRange) : true
                }
            }
        }
    }

    /// The byte ranges of each `name=value` pair's name and value (empty pairs skipped), until `pair` returns false.
    private static func forEachPair(_ bytes: UnsafeBufferPointer<UInt8>, _ pair: (Range<Int>, Range<Int>) -> Bool) {
        var start = 0
        while start < bytes.count {
            var end = start
            var equals = -1
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") {
                if equals < 0 && bytes[end] == UInt8(ascii: "=") { equals = end }
                end += 1
            }
            if start != end {
                guard equals >= 0 ? pair(start..<equals, equals + 1..<end) : pair(start..<end, end..<end) else {
                    return
                }
            }
            start = end + 1
        }
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

/// One `name=value` pair of a query string or form body, decoded.
public struct QueryItem: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
