/// The fields of a `multipart/form-data` body (RFC 7578), for checking them against the body's schema: each part's
/// name (from its `Content-Disposition`) and its content as text. A file part is its content, as a `string`
/// (`format: binary`) property describes it.
enum MultipartForm {
    /// The fields in order; nil when the body is not multipart with the boundary its `Content-Type` names (no
    /// boundary, no closing delimiter, a part without a name).
    static func fields(_ body: [UInt8], contentType: String?) -> [(name: String, value: String)]? {
        guard let boundary = boundary(contentType), !boundary.isEmpty else { return nil }
        // Every delimiter but a first one at the very start follows a line break.
        let delimiter = Array("\r\n--".utf8) + Array(boundary.utf8)
        let text = Array("\r\n".utf8) + body
        var fields: [(name: String, value: String)] = []
        guard var start = find(delimiter, in: text, from: 0) else { return nil }
        while true {
            var position = start + delimiter.count
            // The closing delimiter: `--` after the boundary.
            if position + 1 < text.count, text[position] == UInt8(ascii: "-"), text[position + 1] == UInt8(ascii: "-") {
                return fields
            }
            guard let lineEnd = find(Array("\r\n".utf8), in: text, from: position) else { return nil }
            position = lineEnd + 2
            guard let next = find(delimiter, in: text, from: position) else { return nil }
            let part = Array(text[position..<next])
            let headerEnd: Int
            if part.starts(with: Array("\r\n".utf8)) {
                headerEnd = 0
            } else if let end = find(Array("\r\n\r\n".utf8), in: part, from: 0) {
                headerEnd = end + 2
            } else {
                return nil
            }
            let headers = String(decoding: part[..<headerEnd], as: UTF8.self)
            guard let name = Self.name(headers) else { return nil }
            fields.append((name, String(decoding: part[(headerEnd + 2)...], as: UTF8.self)))
            start = next
        }
    }

    /// The `boundary` parameter of a `Content-Type`, unquoted.
    static func boundary(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingSpaces
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    /// The `name` of a part's `Content-Disposition: form-data; name="field"`.
    private static func name(_ headers: String) -> String? {
        for line in headers.split(separator: "\r\n") {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2, field[0].trimmingSpaces.lowercased() == "content-disposition" else { continue }
            for parameter in field[1].split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "name" else { continue }
                var value = pair[1].trimmingSpaces
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = value.dropFirst().dropLast()
                }
                return String(value)
            }
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
