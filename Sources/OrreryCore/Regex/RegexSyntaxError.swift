/// Why a pattern was refused: what is wrong and where, as an offset in Unicode scalars from the pattern's start.
public struct RegexSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The whole explanation, offset included (`unbalanced ')' at offset 7`).
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
