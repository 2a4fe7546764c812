import Foundation

/// Regexes that say in Orrery's syntax what WireMock's matchers mean.
enum WireMockRegex {
    /// Java's `matches()` holds only for the whole text; Orrery's regexes match anywhere unless anchored.
    static func whole(_ pattern: String) -> String {
        "\\A(?:" + pattern + ")\\z"
    }

    /// `text` as a regex that matches exactly it: ASCII punctuation escaped, other ASCII that is not a letter or
    /// digit written as `\x{..}`.
    static func literal(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x80 || (scalar.properties.isAlphabetic && scalar.isASCII) || ("0"..."9").contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else if scalar.isASCII, scalar.value > 0x20, scalar.value < 0x7F {
                out += "\\"
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\x{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    /// The whole text, without regard to case (`equalTo` with `caseInsensitive`).
    static func caseInsensitive(_ text: String) -> String {
        "(?i)" + whole(literal(text))
    }

    /// WireMock matches URL regexes against the URL as sent, Orrery against the percent-decoded path: an escape
    /// written in the path part of the pattern (`/files/a%20b.*`) becomes the character it stands for. The query,
    /// after a `\\?`, is matched as sent in both.
    static func decodingPathEscapes(_ pattern: String) -> String {
        let split = pattern.range(of: "\\?")
        let path = split.map { pattern[..<$0.lowerBound] } ?? pattern[...]
        let rest = split.map { pattern[$0.lowerBound...] } ?? ""
        var out = ""
        var index = path.startIndex
        while index < path.endIndex {
            // A run of escapes decodes together: several bytes may make one UTF-8 character.
            var end = index
            while path[end...].count >= 3, path[end] == "%", path[path.index(after: end)].isHexDigit,
                path[path.index(end, offsetBy: 2)].isHexDigit
            {
                end = path.index(end, offsetBy: 3)
            }
            if end > index {
                out += literal(PercentDecoding.decode(path[index..<end]))
                index = end
            } else {
                // An escaped character of the regex stays as it is, with what it escapes.
                if path[index] == "\\", path.index(after: index) < path.endIndex {
                    out.append(path[index])
                    index = path.index(after: index)
                }
                out.append(path[index])
                index = path.index(after: index)
            }
        }
        return out + rest
    }
}
