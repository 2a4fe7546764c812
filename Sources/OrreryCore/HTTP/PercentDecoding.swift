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
        guard !query.isEmpty, limit > 0 else { return values }
        let utf8 = query.utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let end = utf8[start...].firstIndex(ofByte: UInt8(ascii: "&")) ?? utf8.endIndex
            if start != end {
                let equals = utf8[start..<end].firstIndex(ofByte: UInt8(ascii: "="))
                let nameEnd = equals ?? end
                if decodedEquals(query[start..<nameEnd], name) {
                    values.append(equals.map { decode(query[utf8.index(after: $0)..<end], plusAsSpace: true) } ?? "")
                    if values.count == limit { break }
                }
            }
            guard end < utf8.endIndex else { break }
            start = utf8.index(after: end)
        }
        return values
    }

    /// Whether `encoded`, decoded as a query parameter's name, is `name`; compares the bytes when there is nothing
    /// to decode.
    private static func decodedEquals(_ encoded: Substring, _ name: String) -> Bool {
        let utf8 = encoded.utf8
        if !utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
            return utf8.elementsEqual(name.utf8)
        }
        return decode(encoded, plusAsSpace: true) == name
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
