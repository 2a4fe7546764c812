import Foundation

/// A compiled regular expression, matched anywhere in the text unless the user anchors it (`^...$`), as Nocilla does.
public struct Pattern: Sendable, CustomStringConvertible {
    public let source: String
    private let expression: NSRegularExpression

    public init(_ source: String) throws {
        self.source = source
        expression = try NSRegularExpression(pattern: source, options: [])
    }

    public func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }

    public var description: String { source }
}
