import OrreryCore
import OrreryEvent

/// What the pipeline decided to answer a request with. `ReplyExecutor` carries it out and journals it, so no path
/// can forget the journal or answer twice.
enum Reply {
    /// A stub's answer, prepared (encoded, compressed) when the stubs loaded.
    case stub(IndexedStub, PreparedResponse)
    /// An answer made for this request (a miss, an error, an upstream's relayed answer), journaled with `outcome`;
    /// nil for answers that are not traffic (the admin API's).
    case made(MadeResponse, outcome: JournalEntry.Outcome?)
    /// Sent on to an upstream; its answer, or the failure, comes back as `made`.
    case forward(ProxyForwarder.Plan)
    /// `CONNECT`: a byte-for-byte tunnel to the target.
    case tunnel(ConnectTarget)
    /// `CONNECT` to a host Orrery intercepts: answered here, and the requests inside come through the pipeline.
    case intercept(ConnectTarget, TLSServerContext)
}

/// An answer made for one request.
struct MadeResponse {
    var status: Int
    var reason: String = ""
    var headers: HTTPHeaders
    var body: Payload
    /// The length to declare when it is not the body's: the upstream's answer to a `HEAD`.
    var contentLength: Int?

    init(status: Int, reason: String = "", headers: HTTPHeaders, body: Payload, contentLength: Int? = nil) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.contentLength = contentLength
    }

    /// An error Orrery makes itself, with its kind in `X-Orrery-Error` when it has one.
    init(_ error: ErrorResponse, kind: String? = nil) {
        var headers = error.headers
        if let kind { headers.add("X-Orrery-Error", kind) }
        self.init(status: error.status, headers: headers, body: Payload(error.body))
    }

    var encoded: EncodedResponse {
        EncodedResponse(status: status, reason: reason, headers: headers, body: body, contentLength: contentLength)
    }
}
