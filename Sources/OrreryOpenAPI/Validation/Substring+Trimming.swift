extension StringProtocol {
    /// Without leading and trailing spaces and tabs: header values' optional whitespace, trimmed on the request path
    /// without Foundation's character sets.
    var trimmingSpaces: Substring {
        let text = Substring(self)
        let utf8 = text.utf8
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) })
        else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }
}
