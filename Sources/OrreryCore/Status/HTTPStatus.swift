/// A response's status: any three-digit code, registered or not (a stub may answer 299), with what Orrery knows of it
/// when it is one of the `HTTPStatusCode`s.
public struct HTTPStatus: Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The number on the status line.
    public let code: Int

    public init(_ code: Int) {
        self.code = code
    }

    public init(_ known: HTTPStatusCode) {
        code = known.rawValue
    }

    public init(integerLiteral code: Int) {
        self.code = code
    }

    /// The registered status, when it is one.
    public var known: HTTPStatusCode? { HTTPStatusCode(rawValue: code) }

    /// The registry's reason phrase (`Not Found`), or an empty one for a code it does not list.
    public var reasonPhrase: String { HTTPStatusCode.reasonPhrase(for: code) }

    /// 400 and above.
    public var isError: Bool { code >= 400 }

    public var description: String { String(code) }
}
