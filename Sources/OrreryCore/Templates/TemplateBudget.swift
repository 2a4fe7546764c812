/// What one render may cost: bytes of output and steps of work (nodes visited, section iterations).
///
/// A template is written once but rendered against whatever a request brings: three nested sections over the path
/// segments of a long path would iterate billions of times. A render that passes either bound stops where it is and
/// the response becomes a 500 that says so, so one request can neither fill the memory nor hold an event loop.
public struct TemplateBudget: Sendable, Equatable {
    /// Bytes a render may write (`--template-max-bytes`).
    public var maximumBytes: Int
    /// Steps a render may take: each node written and each item of a section counts one, so a render at the
    /// bound takes a few milliseconds.
    public var maximumSteps: Int

    public static let defaultMaximumBytes = 16 * 1024 * 1024
    public static let defaultMaximumSteps = 1_000_000

    public init(maximumBytes: Int = Self.defaultMaximumBytes, maximumSteps: Int = Self.defaultMaximumSteps) {
        self.maximumBytes = maximumBytes
        self.maximumSteps = maximumSteps
    }

    /// Why a render stopped.
    public enum Exceeded: Sendable, Equatable, CustomStringConvertible {
        case bytes(limit: Int)
        case steps(limit: Int)

        public var description: String {
            switch self {
            case .bytes(let limit):
                "the template's output passed \(limit) bytes (--template-max-bytes)"
            case .steps(let limit):
                "the template took more than \(limit) steps (nested sections or long lists)"
            }
        }
    }
}
