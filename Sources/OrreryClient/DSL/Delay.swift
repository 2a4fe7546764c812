/// How long a stub waits before it answers: milliseconds, or a random wait from a distribution.
public struct Delay: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The `delay` value as a stub file writes it.
    public let json: JSON

    private init(json: JSON) {
        self.json = json
    }

    public init(integerLiteral milliseconds: Int) {
        self.init(json: .number(Double(milliseconds)))
    }

    /// A fixed wait.
    public static func milliseconds(_ milliseconds: Int) -> Delay { Delay(json: .number(Double(milliseconds))) }
    /// A wait drawn evenly from a range of milliseconds.
    public static func uniform(_ milliseconds: ClosedRange<Int>) -> Delay {
        Delay(json: ["uniform": [.number(Double(milliseconds.lowerBound)), .number(Double(milliseconds.upperBound))]])
    }
    /// A wait drawn from a log-normal distribution: a median in milliseconds and a spread.
    public static func lognormal(median milliseconds: Int, sigma: Double) -> Delay {
        Delay(json: ["lognormal": ["median": .number(Double(milliseconds)), "sigma": .number(sigma)]])
    }

    public var description: String { json.encoded }
}

/// A way for a stub to fail on purpose, at the connection rather than with a status.
public struct Fault: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The daemon's name for it, such as `connectionReset`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A TCP reset; nothing is sent.
    public static let connectionReset = Fault(rawValue: "connectionReset")
    /// The connection is closed with nothing sent.
    public static let emptyResponse = Fault(rawValue: "emptyResponse")
    /// Bytes that are not HTTP, then the connection is closed.
    public static let malformedResponse = Fault(rawValue: "malformedResponse")
    /// The head with the full `Content-Length`, half the body, then the connection is closed.
    public static let truncatedBody = Fault(rawValue: "truncatedBody")
    /// Never answered, until the client gives up or the daemon stops.
    public static let noResponse = Fault(rawValue: "noResponse")

    public var description: String { rawValue }
}
