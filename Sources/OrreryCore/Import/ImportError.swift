/// Why an input cannot be imported at all (not the format named, or unreadable).
public struct ImportError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
