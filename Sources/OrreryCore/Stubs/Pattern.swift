/// A compiled regular expression, matched anywhere in the text unless the user anchors it (`^...$`), as Nocilla does.
///
/// The standard library's `Regex` (ICU-compatible syntax) rather than Foundation's NSRegularExpression, so matching
/// does not load ICU. It matches on Unicode scalars, as ICU does, not on grapheme clusters.
public struct Pattern: Sendable, CustomStringConvertible {
    public let source: String
    // Regex is not declared Sendable because of its type-erased output; matching does not mutate it, and its
    // compiled program, built lazily under an atomic, is forced here before the pattern is shared.
    nonisolated(unsafe) private let expression: Regex<AnyRegexOutput>

    public init(_ source: String) throws {
        self.source = source
        expression = try Regex(source).matchingSemantics(.unicodeScalar)
        _ = try? expression.firstMatch(in: "")
    }

    public func matches(_ text: String) -> Bool {
        (try? expression.firstMatch(in: text)) != nil
    }

    /// A pattern matching `literal` exactly: every character with a meaning in a pattern escaped.
    public static func escaped(_ literal: String) -> String {
        var escaped = ""
        for character in literal.unicodeScalars {
            if "\\^$.|?*+()[]{}".unicodeScalars.contains(character) { escaped.append("\\") }
            escaped.unicodeScalars.append(character)
        }
        return escaped
    }

    public var description: String { source }
}
