/// A problem in a stub file or the host map, reported as `FILE:LINE: message`.
public struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Path of the file as the user named it (relative to the working directory where possible).
    public var file: String
    /// 1-based line, or 0 when the parser cannot know it.
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// One line, whatever the file's name or the message hold: control characters are escaped.
    public var description: String {
        let file = EscapedText.escaped(file)
        let message = EscapedText.escaped(message)
        return line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    }
}

/// Several source errors at once: a load reports every broken file, not just the first.
public struct SourceErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [SourceError]

    public init(_ errors: [SourceError]) {
        self.errors = errors
    }

    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
