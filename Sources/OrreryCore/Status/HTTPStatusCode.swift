/// Every status code in the IANA HTTP status code registry, with the texts Orrery puts in the errors it generates.
///
/// Stub files may name a status by number ("401") or by name in almost any spelling
/// ("Code401Unauthorized", "unauthorized", "Not Found", "not_found"); see ``init(name:)``.
/// 306 is registered as "(Unused)" and is deliberately not a case. 418 is registered as
/// "(Unused)" too, but is kept as ``Code418ImATeapot`` because stub authors use it.
public enum HTTPStatusCode: Int, Sendable, CaseIterable, Hashable {
    // MARK: 1xx Informational
    case Code100Continue = 100
    case Code101SwitchingProtocols = 101
    case Code102Processing = 102
    case Code103EarlyHints = 103

    // MARK: 2xx Success
    case Code200OK = 200
    case Code201Created = 201
    case Code202Accepted = 202
    case Code203NonAuthoritativeInformation = 203
    case Code204NoContent = 204
    case Code205ResetContent = 205
    case Code206PartialContent = 206
    case Code207MultiStatus = 207
    case Code208AlreadyReported = 208
    case Code226IMUsed = 226

    // MARK: 3xx Redirection
    case Code300MultipleChoices = 300
    case Code301MovedPermanently = 301
    case Code302Found = 302
    case Code303SeeOther = 303
    case Code304NotModified = 304
    case Code305UseProxy = 305
    case Code307TemporaryRedirect = 307
    case Code308PermanentRedirect = 308

    // MARK: 4xx Client Error
    case Code400BadRequest = 400
    case Code401Unauthorized = 401
    case Code402PaymentRequired = 402
    case Code403Forbidden = 403
    case Code404NotFound = 404
    case Code405MethodNotAllowed = 405
    case Code406NotAcceptable = 406
    case Code407ProxyAuthenticationRequired = 407
    case Code408RequestTimeout = 408
    case Code409Conflict = 409
    case Code410Gone = 410
    case Code411LengthRequired = 411
    case Code412PreconditionFailed = 412
    case Code413ContentTooLarge = 413
    case Code414URITooLong = 414
    case Code415UnsupportedMediaType = 415
    case Code416RangeNotSatisfiable = 416
    case Code417ExpectationFailed = 417
    case Code418ImATeapot = 418
    case Code421MisdirectedRequest = 421
    case Code422UnprocessableContent = 422
    case Code423Locked = 423
    case Code424FailedDependency = 424
    case Code425TooEarly = 425
    case Code426UpgradeRequired = 426
    case Code428PreconditionRequired = 428
    case Code429TooManyRequests = 429
    case Code431RequestHeaderFieldsTooLarge = 431
    case Code451UnavailableForLegalReasons = 451

    // MARK: 5xx Server Error
    case Code500InternalServerError = 500
    case Code501NotImplemented = 501
    case Code502BadGateway = 502
    case Code503ServiceUnavailable = 503
    case Code504GatewayTimeout = 504
    case Code505HTTPVersionNotSupported = 505
    case Code506VariantAlsoNegotiates = 506
    case Code507InsufficientStorage = 507
    case Code508LoopDetected = 508
    case Code510NotExtended = 510
    case Code511NetworkAuthenticationRequired = 511

    // MARK: - Texts

    /// The reason phrase sent on the status line ("Not Found"), as IANA registers it.
    public var reasonPhrase: String {
        switch self {
        case .Code100Continue: "Continue"
        case .Code101SwitchingProtocols: "Switching Protocols"
        case .Code102Processing: "Processing"
        case .Code103EarlyHints: "Early Hints"
        case .Code200OK: "OK"
        case .Code201Created: "Created"
        case .Code202Accepted: "Accepted"
        case .Code203NonAuthoritativeInformation: "Non-Authoritative Information"
        case .Code204NoContent: "No Content"
        case .Code205ResetContent: "Reset Content"
        case .Code206PartialContent: "Partial Content"
        case .Code207MultiStatus: "Multi-Status"
        case .Code208AlreadyReported: "Already Reported"
        case .Code226IMUsed: "IM Used"
        case .Code300MultipleChoices: "Multiple Choices"
        case .Code301MovedPermanently: "Moved Permanently"
        case .Code302Found: "Found"
        case .Code303SeeOther: "See Other"
        case .Code304NotModified: "Not Modified"
        case .Code305UseProxy: "Use Proxy"
        case .Code307TemporaryRedirect: "Temporary Redirect"
        case .Code308PermanentRedirect: "Permanent Redirect"
        case .Code400BadRequest: "Bad Request"
        case .Code401Unauthorized: "Unauthorized"
        case .Code402PaymentRequired: "Payment Required"
        case .Code403Forbidden: "Forbidden"
        case .Code404NotFound: "Not Found"
        case .Code405MethodNotAllowed: "Method Not Allowed"
        case .Code406NotAcceptable: "Not Acceptable"
        case .Code407ProxyAuthenticationRequired: "Proxy Authentication Required"
        case .Code408RequestTimeout: "Request Timeout"
        case .Code409Conflict: "Conflict"
        case .Code410Gone: "Gone"
        case .Code411LengthRequired: "Length Required"
        case .Code412PreconditionFailed: "Precondition Failed"
        case .Code413ContentTooLarge: "Content Too Large"
        case .Code414URITooLong: "URI Too Long"
        case .Code415UnsupportedMediaType: "Unsupported Media Type"
        case .Code416RangeNotSatisfiable: "Range Not Satisfiable"
        case .Code417ExpectationFailed: "Expectation Failed"
        case .Code418ImATeapot: "I'm a Teapot"
        case .Code421MisdirectedRequest: "Misdirected Request"
        case .Code422UnprocessableContent: "Unprocessable Content"
        case .Code423Locked: "Locked"
        case .Code424FailedDependency: "Failed Dependency"
        case .Code425TooEarly: "Too Early"
        case .Code426UpgradeRequired: "Upgrade Required"
        case .Code428PreconditionRequired: "Precondition Required"
        case .Code429TooManyRequests: "Too Many Requests"
        case .Code431RequestHeaderFieldsTooLarge: "Request Header Fields Too Large"
        case .Code451UnavailableForLegalReasons: "Unavailable For Legal Reasons"
        case .Code500InternalServerError: "Internal Server Error"
        case .Code501NotImplemented: "Not Implemented"
        case .Code502BadGateway: "Bad Gateway"
        case .Code503ServiceUnavailable: "Service Unavailable"
        case .Code504GatewayTimeout: "Gateway Timeout"
        case .Code505HTTPVersionNotSupported: "HTTP Version Not Supported"
        case .Code506VariantAlsoNegotiates: "Variant Also Negotiates"
        case .Code507InsufficientStorage: "Insufficient Storage"
        case .Code508LoopDetected: "Loop Detected"
        case .Code510NotExtended: "Not Extended"
        case .Code511NetworkAuthenticationRequired: "Network Authentication Required"
        }
    }

    /// One sentence saying what went wrong (or, for 1xx-3xx, what the status means). Non-empty for every case.
    public var failureReason: String {
        switch self {
        case .Code100Continue:
            "The server has accepted the request headers and is waiting for the body."
        case .Code101SwitchingProtocols:
            "The server is switching the connection to the protocol named in the Upgrade header."
        case .Code102Processing:
            "The server has received the request and is still working on it."
        case .Code103EarlyHints:
            "The server is sending headers ahead of the final response so the client can start preloading."
        case .Code200OK:
            "The request succeeded."
        case .Code201Created:
            "The request succeeded and a new resource was created."
        case .Code202Accepted:
            "The request was accepted for processing, but the processing has not finished."
        case .Code203NonAuthoritativeInformation:
            "The request succeeded, but a proxy changed the content it got from the origin server."
        case .Code204NoContent:
            "The request succeeded and there is no body to send back."
        case .Code205ResetContent:
            "The request succeeded and the client should reset the view that sent it."
        case .Code206PartialContent:
            "The server is sending only the byte ranges the request asked for."
        case .Code207MultiStatus:
            "The body holds a separate status for each of several resources."
        case .Code208AlreadyReported:
            "The members of this collection were already listed earlier in the same response."
        case .Code226IMUsed:
            "The server applied instance manipulations to the resource before returning it."
        case .Code300MultipleChoices:
            "The resource has several representations and the client has to pick one."
        case .Code301MovedPermanently:
            "The resource has moved for good to the address in the Location header."
        case .Code302Found:
            "The resource is for now at the address in the Location header."
        case .Code303SeeOther:
            "The result of the request can be fetched with a GET from the address in the Location header."
        case .Code304NotModified:
            "The resource has not changed since the version the client already holds."
        case .Code305UseProxy:
            "The resource must be reached through the proxy named in the Location header."
        case .Code307TemporaryRedirect:
            "The resource is for now at another address and the request must be repeated there unchanged."
        case .Code308PermanentRedirect:
            "The resource has moved for good and the request must be repeated at the new address unchanged."
        case .Code400BadRequest:
            "The server could not understand the request because it was malformed."
        case .Code401Unauthorized:
            "The request lacks valid credentials for the resource."
        case .Code402PaymentRequired:
            "The resource is only available after payment."
        case .Code403Forbidden:
            "The server understood the request but refuses to fulfil it."
        case .Code404NotFound:
            "No resource matched the request."
        case .Code405MethodNotAllowed:
            "The resource exists but does not accept the request's method."
        case .Code406NotAcceptable:
            "No representation of the resource matches the request's Accept headers."
        case .Code407ProxyAuthenticationRequired:
            "The request lacks valid credentials for the proxy in between."
        case .Code408RequestTimeout:
            "The client took too long to send the complete request."
        case .Code409Conflict:
            "The request conflicts with the current state of the resource."
        case .Code410Gone:
            "The resource used to exist here but has been removed for good."
        case .Code411LengthRequired:
            "The request has a body but no Content-Length header."
        case .Code412PreconditionFailed:
            "A condition in the request's If-* headers did not hold."
        case .Code413ContentTooLarge:
            "The request body is larger than the server is willing to accept."
        case .Code414URITooLong:
            "The request target is longer than the server is willing to read."
        case .Code415UnsupportedMediaType:
            "The server does not accept the request body's content type or encoding."
        case .Code416RangeNotSatisfiable:
            "The byte range in the request's Range header lies outside the resource."
        case .Code417ExpectationFailed:
            "The server cannot meet the condition in the request's Expect header."
        case .Code418ImATeapot:
            "The server refuses to brew coffee because it is, by its own account, a teapot."
        case .Code421MisdirectedRequest:
            "The request reached a server that cannot answer for its scheme and authority."
        case .Code422UnprocessableContent:
            "The request body is well formed but its contents could not be processed."
        case .Code423Locked:
            "The resource is locked."
        case .Code424FailedDependency:
            "The request failed because an action it depended on failed."
        case .Code425TooEarly:
            "The server will not process a request that might be replayed from early data."
        case .Code426UpgradeRequired:
            "The server will only answer this request over a different protocol."
        case .Code428PreconditionRequired:
            "The server requires the request to be conditional and it was not."
        case .Code429TooManyRequests:
            "The client has sent too many requests in a given amount of time."
        case .Code431RequestHeaderFieldsTooLarge:
            "The request's header fields, alone or together, are larger than the server accepts."
        case .Code451UnavailableForLegalReasons:
            "The resource cannot be served because of a legal demand."
        case .Code500InternalServerError:
            "The server hit an unexpected condition while handling the request."
        case .Code501NotImplemented:
            "The server does not support the functionality needed to answer the request."
        case .Code502BadGateway:
            "A gateway or proxy got an invalid response from the upstream server."
        case .Code503ServiceUnavailable:
            "The server cannot handle the request right now because it is overloaded or down for maintenance."
        case .Code504GatewayTimeout:
            "A gateway or proxy did not get a response from the upstream server in time."
        case .Code505HTTPVersionNotSupported:
            "The server does not support the HTTP version the request used."
        case .Code506VariantAlsoNegotiates:
            "The server's content negotiation is misconfigured and loops back on itself."
        case .Code507InsufficientStorage:
            "The server does not have the storage it needs to complete the request."
        case .Code508LoopDetected:
            "The server stopped the operation because it ran into an infinite loop."
        case .Code510NotExtended:
            "The request does not carry the extension the server requires to fulfil it."
        case .Code511NetworkAuthenticationRequired:
            "The client must authenticate with the network before it can reach the server."
        }
    }

    /// One sentence saying what the client or the Orrery user can do about it. Non-empty for every case.
    public var recoverySuggestion: String {
        switch self {
        case .Code100Continue:
            "Send the request body to complete the request."
        case .Code101SwitchingProtocols:
            "Continue the conversation in the protocol the server switched to."
        case .Code102Processing:
            "Wait for the final response instead of resending the request."
        case .Code103EarlyHints:
            "Start fetching the hinted resources and wait for the final response."
        case .Code200OK:
            "No action is needed."
        case .Code201Created:
            "Use the Location header or the body to find the new resource."
        case .Code202Accepted:
            "Check back later for the outcome of the processing."
        case .Code203NonAuthoritativeInformation:
            "Fetch the resource from the origin server if you need its unmodified content."
        case .Code204NoContent:
            "Do not expect a body in this response."
        case .Code205ResetContent:
            "Clear the form or view that sent the request."
        case .Code206PartialContent:
            "Combine the received ranges with any others you still need."
        case .Code207MultiStatus:
            "Read the status of each resource from the response body."
        case .Code208AlreadyReported:
            "Use the earlier entries in the response for these members."
        case .Code226IMUsed:
            "Apply the returned instance manipulations to your current copy of the resource."
        case .Code300MultipleChoices:
            "Choose one of the listed representations and request it."
        case .Code301MovedPermanently:
            "Update your links to the new address and send future requests there."
        case .Code302Found:
            "Follow the Location header but keep using the original address for future requests."
        case .Code303SeeOther:
            "Send a GET request to the address in the Location header."
        case .Code304NotModified:
            "Use the copy you have cached."
        case .Code305UseProxy:
            "Repeat the request through the named proxy, as this status is deprecated and clients may ignore it."
        case .Code307TemporaryRedirect:
            "Repeat the request with the same method and body at the address in the Location header."
        case .Code308PermanentRedirect:
            "Update your links and repeat the request with the same method and body at the new address."
        case .Code400BadRequest:
            "Check the request's syntax, headers and body against what the stub expects."
        case .Code401Unauthorized:
            "Send valid credentials in the Authorization header, or relax the stub's header matcher."
        case .Code402PaymentRequired:
            "Complete the payment the service asks for, or pick a different status in the stub."
        case .Code403Forbidden:
            "Use an account that is allowed to access the resource, or change the stub's response."
        case .Code404NotFound:
            "Check the method, path and query of the request against the routes the server knows."
        case .Code405MethodNotAllowed:
            "Use one of the methods in the Allow header, or add a stub for this method."
        case .Code406NotAcceptable:
            "Widen the Accept headers, or add a stub that answers with the requested content type."
        case .Code407ProxyAuthenticationRequired:
            "Send valid credentials in the Proxy-Authorization header."
        case .Code408RequestTimeout:
            "Send the request again, and check the client's network and timeouts if it keeps happening."
        case .Code409Conflict:
            "Fetch the current state of the resource, resolve the conflict and try again."
        case .Code410Gone:
            "Remove references to this resource, as it will not come back."
        case .Code411LengthRequired:
            "Add a Content-Length header that gives the size of the body."
        case .Code412PreconditionFailed:
            "Fetch the current version of the resource and retry with up-to-date conditional headers."
        case .Code413ContentTooLarge:
            "Send a smaller body, or raise the server's body size limit."
        case .Code414URITooLong:
            "Shorten the URI, for example by moving query data into the request body."
        case .Code415UnsupportedMediaType:
            "Send the body in a content type the stub accepts and set the Content-Type header to match."
        case .Code416RangeNotSatisfiable:
            "Request a range that lies within the resource's current size."
        case .Code417ExpectationFailed:
            "Send the request again without the Expect header."
        case .Code418ImATeapot:
            "Ask a coffee pot instead, or use a status with a real meaning in the stub."
        case .Code421MisdirectedRequest:
            "Open a new connection to the right host and send the request again."
        case .Code422UnprocessableContent:
            "Fix the values in the request body so they pass the server's validation."
        case .Code423Locked:
            "Wait for the lock to be released, or release it if you hold it, then try again."
        case .Code424FailedDependency:
            "Fix the action that failed first, then repeat this request."
        case .Code425TooEarly:
            "Send the request again after the handshake has completed."
        case .Code426UpgradeRequired:
            "Switch to the protocol named in the Upgrade header and send the request again."
        case .Code428PreconditionRequired:
            "Add an If-Match or If-Unmodified-Since header to the request."
        case .Code429TooManyRequests:
            "Wait for the time in the Retry-After header before sending more requests."
        case .Code431RequestHeaderFieldsTooLarge:
            "Send fewer or smaller header fields, such as fewer cookies."
        case .Code451UnavailableForLegalReasons:
            "Contact the operator of the service about the legal restriction."
        case .Code500InternalServerError:
            "Check the server's log for the cause and report it if it keeps happening."
        case .Code501NotImplemented:
            "Use a method or feature the server supports, or add a stub that handles this request."
        case .Code502BadGateway:
            "Check that the upstream server is running and answering correctly."
        case .Code503ServiceUnavailable:
            "Try again later, after the time in the Retry-After header if there is one."
        case .Code504GatewayTimeout:
            "Check that the upstream server is reachable and responds quickly enough, then try again."
        case .Code505HTTPVersionNotSupported:
            "Send the request again with an HTTP version the server supports."
        case .Code506VariantAlsoNegotiates:
            "Fix the server's content negotiation configuration."
        case .Code507InsufficientStorage:
            "Free up storage on the server or send a smaller request."
        case .Code508LoopDetected:
            "Remove the cycle in the resources the request walks through."
        case .Code510NotExtended:
            "Add the extension the server asks for to the request and send it again."
        case .Code511NetworkAuthenticationRequired:
            "Sign in to the network, for example through its captive portal, and try again."
        }
    }

    // MARK: - Names

    /// "Code401Unauthorized"
    public var name: String {
        "Code\(rawValue)" + Self.words(of: reasonPhrase).map(Self.capitalizingFirst).joined()
    }

    /// lower camel case of the reason phrase: "unauthorized", "notFound", "ok", "uriTooLong", "imUsed", "httpVersionNotSupported", "contentTooLarge"
    public var lowerCamelName: String {
        let words = Self.words(of: reasonPhrase)
        guard let first = words.first else { return "" }
        return first.lowercased() + words.dropFirst().map(Self.capitalizingFirst).joined()
    }

    /// Looks a status up by any spelling users write: "Code401Unauthorized", "code401Unauthorized",
    /// "unauthorized", "Unauthorized", "UNAUTHORIZED", "not_found", "not-found", "Not Found", "401".
    ///
    /// Matching ignores case and any non-alphanumeric characters. Also accepted: "Code401",
    /// "401 Unauthorized", and the names Astro and older RFCs used (Code413RequestEntityTooLarge,
    /// payloadTooLarge, Code414RequestURITooLong, Code416RequestedRangeNotSatisfiable,
    /// Code203NonAuthoritative, Code422UnprocessableEntity, ...). A "CodeNNN..." name whose
    /// number and text disagree ("Code404Unauthorized") returns nil.
    public init?(name: String) {
        guard let status = Self.byNormalizedName[Self.normalize(name)] else { return nil }
        self = status
    }

    /// The reason phrase for any status number 100...599, registered or not.
    ///
    /// Numbers without a case here get a fallback by class, such as "Unknown Client Error" for 499;
    /// numbers outside 100...599 get "Unknown Status".
    public static func reasonPhrase(for code: Int) -> String {
        if let status = HTTPStatusCode(rawValue: code) {
            return status.reasonPhrase
        }
        switch code {
        case 100...199: return "Unknown Informational"
        case 200...299: return "Unknown Success"
        case 300...399: return "Unknown Redirection"
        case 400...499: return "Unknown Client Error"
        case 500...599: return "Unknown Server Error"
        default: return "Unknown Status"
        }
    }

    // MARK: - Classes

    /// 1xx
    public var isInformational: Bool { (100...199).contains(rawValue) }
    /// 2xx
    public var isSuccess: Bool { (200...299).contains(rawValue) }
    /// 3xx
    public var isRedirection: Bool { (300...399).contains(rawValue) }
    /// 4xx
    public var isClientError: Bool { (400...499).contains(rawValue) }
    /// 5xx
    public var isServerError: Bool { (500...599).contains(rawValue) }
    /// 4xx or 5xx
    public var isError: Bool { rawValue >= 400 }

    // MARK: - Lookup table

    /// Other names users write, from Astro's enum and from older RFCs, as (name, code) pairs.
    /// Each is entered both bare ("payloadTooLarge") and with its code ("Code413PayloadTooLarge").
    private static let aliases: [(String, HTTPStatusCode)] = [
        ("Non-Authoritative", .Code203NonAuthoritativeInformation),
        ("Moved Temporarily", .Code302Found),
        ("Request Entity Too Large", .Code413ContentTooLarge),
        ("Payload Too Large", .Code413ContentTooLarge),
        ("Request-URI Too Long", .Code414URITooLong),
        ("Request-URI Too Large", .Code414URITooLong),
        ("Requested Range Not Satisfiable", .Code416RangeNotSatisfiable),
        ("I Am A Teapot", .Code418ImATeapot),
        ("Teapot", .Code418ImATeapot),
        ("Unprocessable Entity", .Code422UnprocessableContent),
    ]

    /// Normalized name -> status, built once. Keys for each case: "code404notfound", "code404",
    /// "404notfound", "notfound" and "404", plus the same shapes for every alias.
    private static let byNormalizedName: [String: HTTPStatusCode] = {
        var table: [String: HTTPStatusCode] = [:]
        func add(_ phrase: String, _ status: HTTPStatusCode) {
            let text = normalize(phrase)
            let number = String(status.rawValue)
            for key in [text, "code" + number + text, number + text] where table[key] == nil {
                table[key] = status
            }
        }
        for status in allCases {
            let number = String(status.rawValue)
            table[number] = status
            table["code" + number] = status
            add(status.reasonPhrase, status)
        }
        for (phrase, status) in aliases {
            add(phrase, status)
        }
        return table
    }()

    /// Lower-cases `text` and drops every character that is not an ASCII letter or digit.
    static func normalize(_ text: String) -> String {
        String(text.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }

    /// The words of a reason phrase: split at anything that is not a letter, digit or apostrophe,
    /// with apostrophes then dropped ("I'm a Teapot" -> ["Im", "a", "Teapot"]).
    private static func words(of phrase: String) -> [String] {
        phrase
            .split { !($0.isLetter || $0.isNumber || $0 == "'") }
            .map { String($0.filter { $0 != "'" }) }
            .filter { !$0.isEmpty }
    }

    /// "a" -> "A", "URI" -> "URI", "teapot" -> "Teapot".
    private static func capitalizingFirst(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }
}
