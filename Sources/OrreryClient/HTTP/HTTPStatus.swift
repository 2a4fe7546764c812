/// An HTTP status code, by number or by the name Astro's `HTTPStatusCode` gives it: `.code200OK`, `404`.
public struct HTTPStatus: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The number, such as `404`.
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// A status by number.
    public init(_ code: Int) {
        self.init(rawValue: code)
    }

    public init(integerLiteral value: Int) {
        self.init(rawValue: value)
    }

    /// The number, such as `404`.
    public var code: Int { rawValue }

    /// The registered reason phrase (`Not Found`), or an empty string for a number that has none.
    public var reasonPhrase: String { Self.reasonPhrases[rawValue] ?? "" }

    /// `404 Not Found`.
    public var description: String {
        reasonPhrase.isEmpty ? String(rawValue) : "\(rawValue) \(reasonPhrase)"
    }

    public static let code100Continue = HTTPStatus(100)
    public static let code101SwitchingProtocols = HTTPStatus(101)

    public static let code200OK = HTTPStatus(200)
    public static let code201Created = HTTPStatus(201)
    public static let code202Accepted = HTTPStatus(202)
    public static let code203NonAuthoritativeInformation = HTTPStatus(203)
    public static let code204NoContent = HTTPStatus(204)
    public static let code206PartialContent = HTTPStatus(206)

    public static let code301MovedPermanently = HTTPStatus(301)
    public static let code302Found = HTTPStatus(302)
    public static let code303SeeOther = HTTPStatus(303)
    public static let code304NotModified = HTTPStatus(304)
    public static let code307TemporaryRedirect = HTTPStatus(307)
    public static let code308PermanentRedirect = HTTPStatus(308)

    public static let code400BadRequest = HTTPStatus(400)
    public static let code401Unauthorized = HTTPStatus(401)
    public static let code402PaymentRequired = HTTPStatus(402)
    public static let code403Forbidden = HTTPStatus(403)
    public static let code404NotFound = HTTPStatus(404)
    public static let code405MethodNotAllowed = HTTPStatus(405)
    public static let code406NotAcceptable = HTTPStatus(406)
    public static let code408RequestTimeout = HTTPStatus(408)
    public static let code409Conflict = HTTPStatus(409)
    public static let code410Gone = HTTPStatus(410)
    public static let code412PreconditionFailed = HTTPStatus(412)
    public static let code413ContentTooLarge = HTTPStatus(413)
    public static let code415UnsupportedMediaType = HTTPStatus(415)
    public static let code418ImATeapot = HTTPStatus(418)
    public static let code422UnprocessableContent = HTTPStatus(422)
    public static let code423Locked = HTTPStatus(423)
    public static let code428PreconditionRequired = HTTPStatus(428)
    public static let code429TooManyRequests = HTTPStatus(429)

    public static let code500InternalServerError = HTTPStatus(500)
    public static let code501NotImplemented = HTTPStatus(501)
    public static let code502BadGateway = HTTPStatus(502)
    public static let code503ServiceUnavailable = HTTPStatus(503)
    public static let code504GatewayTimeout = HTTPStatus(504)

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content", 207: "Multi-Status", 208: "Already Reported", 226: "IM Used",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 418: "I'm a teapot", 421: "Misdirected Request", 422: "Unprocessable Content",
        423: "Locked", 424: "Failed Dependency", 425: "Too Early", 426: "Upgrade Required",
        428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates",
        507: "Insufficient Storage", 508: "Loop Detected", 511: "Network Authentication Required",
    ]
}
