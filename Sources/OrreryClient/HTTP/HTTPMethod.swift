/// A request method as stubs and request patterns name it: `.get`, `.post`, ..., or `.any` for every method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method's name in upper case (`GET`), or `ANY`.
    public let rawValue: String

    /// A method by name, in any case: `HTTPMethod("purge")` is `PURGE`.
    public init(rawValue: String) {
        self.rawValue = rawValue.uppercased()
    }

    /// A method by name, in any case.
    public init(_ name: String) {
        self.init(rawValue: name)
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    public static let trace = HTTPMethod(rawValue: "TRACE")
    /// Every method: a pattern with `.any` leaves the method out.
    public static let any = HTTPMethod(rawValue: "ANY")

    /// Whether this matches every method (`ANY` or `*`).
    public var isAny: Bool { rawValue == "ANY" || rawValue == "*" }

    public var description: String { rawValue }
}
