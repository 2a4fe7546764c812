/// URI references as JSON Schema resolves `$id` and `$ref` (RFC 3986, section 5.2), on plain strings: schema
/// identifiers are names first (`urn:uuid:...`, `http://localhost:1234/tree`), never fetched.
enum SchemaURI {
    /// The reference resolved against the base.
    static func resolve(_ reference: String, against base: String) -> String {
        if reference.isEmpty { return withoutFragment(base) }
        if reference.hasPrefix("#") { return withoutFragment(base) + reference }
        let ref = Parts(reference)
        if ref.scheme != nil { return ref.joined(path: removeDotSegments(ref.path)) }
        let base = Parts(base)
        var target = Parts(scheme: base.scheme, authority: nil, path: "", query: ref.query, fragment: ref.fragment)
        if ref.authority != nil {
            target.authority = ref.authority
            target.path = removeDotSegments(ref.path)
        } else {
            target.authority = base.authority
            if ref.path.isEmpty {
                target.path = base.path
                target.query = ref.query ?? base.query
            } else if ref.path.hasPrefix("/") {
                target.path = removeDotSegments(ref.path)
            } else {
                target.path = removeDotSegments(merge(base: base, path: ref.path))
            }
        }
        return target.joined(path: target.path)
    }

    /// The URI with its fragment (and the `#`) removed.
    static func withoutFragment(_ uri: String) -> String {
        guard let hash = uri.firstIndex(of: "#") else { return uri }
        return String(uri[..<hash])
    }

    /// The fragment, without its `#`, percent-decoded; nil when the URI has none.
    static func fragment(_ uri: String) -> String? {
        guard let hash = uri.firstIndex(of: "#") else { return nil }
        return percentDecoded(String(uri[uri.index(after: hash)...]))
    }

    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.first {
            iterator = iterator.dropFirst()
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]), let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func merge(base: Parts, path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    private static func removeDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if output.count > 1 || (output.count == 1 && !output[0].isEmpty) { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        var joined = output.joined(separator: "/")
        if path.hasPrefix("/") && !joined.hasPrefix("/") { joined = "/" + joined }
        return joined
    }

    /// A URI reference split into its five parts.
    private struct Parts {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?
        var fragment: String?

        init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.query = query
            self.fragment = fragment
        }

        init(_ text: String) {
            var rest = Substring(text)
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let mark = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: mark)...])
                rest = rest[..<mark]
            }
            if let colon = rest.firstIndex(of: ":"), let first = rest.first, first.isLetter,
                rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
            {
                scheme = String(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(of: "/") ?? rest.endIndex
                authority = String(rest[..<end])
                rest = rest[end...]
            }
            path = String(rest)
        }

        func joined(path: String) -> String {
            var text = ""
            if let scheme { text += scheme + ":" }
            if let authority { text += "//" + authority }
            text += path
            if let query { text += "?" + query }
            if let fragment { text += "#" + fragment }
            return text
        }
    }
}
