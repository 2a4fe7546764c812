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
}
