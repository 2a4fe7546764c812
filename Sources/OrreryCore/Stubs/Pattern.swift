import Synchronization

/// A compiled regular expression, matched anywhere in the text unless the user anchors it (`^...$`), as Nocilla does.
///
/// ICU syntax (as NSRegularExpression's), the subset stubs use, matched on Unicode scalars by Orrery's own engine
/// (`RegexProgram`) in time linear in the text: no pattern can stall an event loop. What cannot be matched that
/// way (backreferences, lookaround, atomic groups, possessive quantifiers) is refused when the pattern compiles.
public struct Pattern: Sendable, CustomStringConvertible {
    public let source: String
    private let program: RegexProgram

    public init(_ source: String) throws(RegexSyntaxError) {
        self.source = source
        program = try RegexProgram(source)
    }

    /// Whether the pattern matches the text. A match that runs out of its work budget (a huge text against a
    /// pattern with many states) counts as no match, and is reported once per pattern to the handler set with
    /// `onAbandonedMatch`.
    public func matches(_ text: String) -> Bool {
        settle(program.match(text), textBytes: text.utf8.count)
    }

    /// Whether the pattern matches valid UTF-8 text, as a request body holds it.
    func matches(utf8 text: UnsafeBufferPointer<UInt8>) -> Bool {
        settle(program.match(utf8: text), textBytes: text.count)
    }

    private func settle(_ outcome: RegexProgram.Outcome, textBytes: Int) -> Bool {
        switch outcome {
        case .match:
            return true
        case .noMatch:
            return false
        case .abandoned:
            if !program.hasReportedAbandonment.exchange(true, ordering: .relaxed) {
                let handler = Self.abandonedMatchHandler.withLock { $0 }
                handler?(source, textBytes)
            }
            return false
        }
    }

    /// Sets what is told when a pattern gives up on a text (its source and the text's length in bytes), for the
    /// daemon's log; once per pattern.
    public static func onAbandonedMatch(_ handler: (@Sendable (_ pattern: String, _ textBytes: Int) -> Void)?) {
        abandonedMatchHandler.withLock { $0 = handler }
    }

    private static let abandonedMatchHandler = Mutex<(@Sendable (String, Int) -> Void)?>(nil)

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
