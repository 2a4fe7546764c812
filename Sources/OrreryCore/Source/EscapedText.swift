/// Text from outside (a file name, a value in a message) made safe to print on one line of a terminal.
///
/// A file may be called `a.yaml\nstubs/ok.yaml:1: fine` or hold an escape sequence that moves the cursor; printed as
/// it is, such a name fakes a line of `validate`'s output or of the log. Control characters are written as escapes
/// instead (`\n`, `\u{1B}`), so every line printed is one that Orrery wrote.
public enum EscapedText {
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar):
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// C0 and C1 control characters and DEL, and the bidirectional overrides that reorder what a line shows.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }
}
