/// A document that cannot be loaded: the file (and where known the place in it) and what is wrong.
public struct OpenAPILoadError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}
