import Testing
@testable import OrreryCore

// Drives the HTTP/1 parser and connection state machine the way the event layer does, and records what they did as
// plain values, so that a test can feed the same bytes split in every way and compare.

// MARK: - The parser

/// What `HTTP1Parser` made of a request, as a value to compare.
struct ParsedRequest: Equatable, CustomStringConvertible {
    var method = ""
    var target = ""
    var minorVersion = 1
    var headers: [String] = []
    var body: [UInt8] = []
    var hasHead = false
    var isComplete = false
    var contentLength: Int?
    var isChunked = false
    var isKeepAlive = true
    var expectation: String?
    /// Bytes the parser used, over all calls.
    var consumed = 0
    var error: HTTP1ParseError?

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    var description: String {
        if let error { return "error \(error.kind) after \(consumed) bytes: \(error.message)" }
        return "\(method) \(target) 1.\(minorVersion) \(headers) body '\(bodyText)' complete \(isComplete) "
            + "length \(contentLength.map(String.init) ?? "-") chunked \(isChunked) keepAlive \(isKeepAlive) "
            + "expect \(expectation ?? "-") consumed \(consumed)"
    }
}

/// Feeds `bytes` to a request parser in pieces ending at `cuts`, keeping what it leaves unused to give again with the
/// next piece, as a connection does. Stops at the end of the first message.
func parseRequest(_ bytes: [UInt8], cuts: [Int] = [], limits: HTTP1Parser.Limits = HTTP1Parser.Limits()) -> ParsedRequest {
    var parser = HTTP1Parser(role: .request, limits: limits)
    var result = ParsedRequest()
    var pending: [UInt8] = []
    var start = 0
    for end in cuts.filter({ $0 > 0 && $0 < bytes.count }) + [bytes.count] {
        pending += bytes[start..<end]
        start = end
        do {
            while !parser.isComplete, !pending.isEmpty {
                let used = try pending.withUnsafeBytes { try parser.parse($0) }
                precondition(used <= pending.count, "the parser used more than it was given")
                result.consumed += used
                pending.removeFirst(used)
                if used == 0 { break }
            }
        } catch {
            // What was used before the failure depends on how the bytes came; the failure itself must not.
            result.consumed = 0
            result.error = error as? HTTP1ParseError ?? HTTP1ParseError(.malformed, "not a parse error: \(error)")
            return result
        }
        if parser.isComplete { break }
    }
    result.method = parser.method
    result.target = parser.target
    result.minorVersion = parser.minorVersion
    result.headers = parser.headers.entries.map { "\($0.name): \($0.value)" }
    result.body = parser.body
    result.hasHead = parser.hasHead
    result.isComplete = parser.isComplete
    result.contentLength = parser.contentLength
    result.isChunked = parser.isChunked
    result.isKeepAlive = parser.isKeepAlive
    result.expectation = parser.expectation
    return result
}

/// Every way the tests cut an input: not at all, at each byte boundary, a byte at a time, and at every pair of cuts
/// for short inputs.
func cutsOf(count: Int, pairs: Bool = true) -> [[Int]] {
    var all: [[Int]] = [[]]
    all += (1..<max(count, 1)).map { [$0] }
    all.append(Array(1..<max(count, 1)))
    if pairs && count <= 96 {
        for first in stride(from: 1, to: count, by: 5) {
            for second in stride(from: first + 1, to: count, by: 7) { all.append([first, second]) }
        }
    }
    return all
}

/// Parses `text` whole and cut in every way, checks every way gives the same, and returns it.
@discardableResult
func parseEveryWay(
    _ text: String, limits: HTTP1Parser.Limits = HTTP1Parser.Limits(), sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ParsedRequest {
    parseEveryWay(Array(text.utf8), limits: limits, sourceLocation: sourceLocation)
}

@discardableResult
func parseEveryWay(
    _ bytes: [UInt8], limits: HTTP1Parser.Limits = HTTP1Parser.Limits(), sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ParsedRequest {
    let whole = parseRequest(bytes, limits: limits)
    for cuts in cutsOf(count: bytes.count) {
        let cut = parseRequest(bytes, cuts: cuts, limits: limits)
        if cut != whole {
            Issue.record("cut at \(cuts.prefix(8)): \(cut)\nwhole: \(whole)", sourceLocation: sourceLocation)
            break
        }
    }
    return whole
}

// MARK: - The connection

/// One thing a connection did that the client can see.
enum ConnectionEvent: Equatable, CustomStringConvertible {
    /// A request handed to the pipeline: its method, target, headers, body and context.
    case dispatch(String, String, [String], String, ResponseContext)
    case sendContinue
    /// An error answer (its status), after which the connection closes.
    case reject(Int)
    case close
    /// The connection was handed to a tunnel, with the bytes received after the request.
    case takenOver([UInt8])

    var description: String {
        switch self {
        case .dispatch(let method, let target, let headers, let body, let context):
            "dispatch \(method) \(target) \(headers) '\(body)' head \(context.isHead) 1.\(context.minorVersion) keepAlive \(context.isKeepAlive)"
        case .sendContinue: "100 Continue"
        case .reject(let status): "reject \(status)"
        case .close: "close"
        case .takenOver(let bytes): "taken over with '\(String(decoding: bytes, as: UTF8.self))'"
        }
    }

    /// The dispatched request's method and target, for short checks.
    var route: String? {
        if case .dispatch(let method, let target, _, _, _) = self { return "\(method) \(target)" }
        return nil
    }

    var context: ResponseContext? {
        if case .dispatch(_, _, _, _, let context) = self { return context }
        return nil
    }
}

/// A connection's event layer without sockets: it carries out what the machine says, answering each request at once
/// (or when told), and records what happened.
struct ConnectionDriver {
    var machine: HTTP1ConnectionStateMachine
    var events: [ConnectionEvent] = []
    /// The connection has ended (closed, rejected, or taken over): nothing more is fed.
    private(set) var isFinished = false
    /// Answers are given as soon as a request is dispatched; otherwise the test calls `answer`.
    var answersAtOnce = true
    /// Whether an answer closes the connection (its fields say `Connection: close`).
    var answerCloses: (String) -> Bool = { _ in false }
    /// A `CONNECT` takes the connection over instead of being answered.
    var connectTakesOver = true
    /// Whether the machine wants to read; a paused connection is not fed.
    private(set) var isPaused = false

    init(configuration: HTTP1ConnectionStateMachine.Configuration = .init()) {
        machine = HTTP1ConnectionStateMachine(configuration: configuration)
    }

    mutating func feed(_ bytes: some Collection<UInt8>) {
        guard !isFinished else { return }
        let array = Array(bytes)
        let action = array.withUnsafeBytes { machine.received($0) }
        process(action)
    }

    mutating func feed(_ text: String) { feed(Array(text.utf8)) }

    /// The client ended its side.
    mutating func end() {
        guard !isFinished else { return }
        process(machine.receivedEnd())
    }

    /// Answers the request waiting for one.
    mutating func answer(closes: Bool = false, isBacklogged: Bool = false) {
        guard !isFinished else { return }
        process(machine.responseQueued(closesConnection: closes, isBacklogged: isBacklogged))
    }

    mutating func timeOut() {
        guard !isFinished else { return }
        process(machine.timedOut())
    }

    mutating func outputDrained() {
        guard !isFinished else { return }
        process(machine.outputDrained())
    }

    mutating func process(_ first: HTTP1ConnectionStateMachine.Action) {
        var action = first
        while true {
            switch action {
            case .readMore:
                isPaused = false
                return
            case .pauseReading:
                isPaused = true
                return
            case .dispatch(let request, let context):
                events.append(
                    .dispatch(
                        request.method, request.target, request.headers.entries.map { "\($0.name): \($0.value)" },
                        String(decoding: request.body, as: UTF8.self), context))
                if connectTakesOver && request.method == "CONNECT" {
                    events.append(.takenOver(machine.takeOver()))
                    isFinished = true
                    return
                }
                guard answersAtOnce else { return }
                action = machine.responseQueued(closesConnection: answerCloses(request.target), isBacklogged: false)
            case .sendContinue:
                events.append(.sendContinue)
                action = machine.next()
            case .reject(let error):
                events.append(.reject(error.status.code))
                isFinished = true
                return
            case .close:
                events.append(.close)
                isFinished = true
                return
            }
        }
    }

    var routes: [String] { events.compactMap(\.route) }
}

/// Runs `bytes` through a connection cut at `cuts`, then ends the input when `ending`.
func runConnection(
    _ bytes: [UInt8], cuts: [Int] = [], ending: Bool = false,
    configuration: HTTP1ConnectionStateMachine.Configuration = .init(), setUp: (inout ConnectionDriver) -> Void = { _ in }
) -> ConnectionDriver {
    var driver = ConnectionDriver(configuration: configuration)
    setUp(&driver)
    var start = 0
    for end in cuts.filter({ $0 > 0 && $0 < bytes.count }) + [bytes.count] where end > start {
        driver.feed(bytes[start..<end])
        start = end
    }
    if ending { driver.end() }
    return driver
}

/// Runs `text` through a connection whole and cut in every way, checks every way does the same, and returns the
/// events (and the final state) of the whole run.
@discardableResult
func runEveryWay(
    _ text: String, ending: Bool = false, configuration: HTTP1ConnectionStateMachine.Configuration = .init(),
    setUp: (inout ConnectionDriver) -> Void = { _ in }, sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ConnectionDriver {
    runEveryWay(Array(text.utf8), ending: ending, configuration: configuration, setUp: setUp, sourceLocation: sourceLocation)
}

@discardableResult
func runEveryWay(
    _ bytes: [UInt8], ending: Bool = false, configuration: HTTP1ConnectionStateMachine.Configuration = .init(),
    setUp: (inout ConnectionDriver) -> Void = { _ in }, sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ConnectionDriver {
    let whole = runConnection(bytes, ending: ending, configuration: configuration, setUp: setUp)
    for cuts in cutsOf(count: bytes.count) {
        let cut = runConnection(bytes, cuts: cuts, ending: ending, configuration: configuration, setUp: setUp)
        if cut.events != whole.events || cut.machine.state != whole.machine.state {
            Issue.record(
                "cut at \(cuts.prefix(8)): \(cut.events) (\(cut.machine.state))\nwhole: \(whole.events) (\(whole.machine.state))",
                sourceLocation: sourceLocation)
            break
        }
    }
    return whole
}

/// Small limits, so that the tests that reach them stay short.
let smallLimits = HTTP1Parser.Limits(maximumTargetLength: 40, maximumHeadBytes: 120, maximumBodyBytes: 16)

// MARK: - Samples

/// Requests DESIGN.md says are answered 400 and never forwarded, each with what is wrong; every one is read with the
/// `Host` and version it needs, so that it is refused for that one thing.
let malformedRequests: [(problem: String, text: String)] = [
    ("two Content-Length values that differ", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
    ("two Content-Length values in one list", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6\r\n\r\nhello!"),
    ("Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("Transfer-Encoding and Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello"),
    ("a coding other than chunked", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\nhello"),
    ("chunked not last", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"),
    ("identity", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\n\r\n"),
    ("chunked twice", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("chunk size 0x5", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n"),
    ("chunk size +5", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n"),
    ("chunk size -5", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n"),
    ("chunk size with a space before", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n"),
    ("chunk size with a space after", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n"),
    ("chunk size not hex", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
    ("chunk size with a letter after", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5g\r\nhello\r\n0\r\n\r\n"),
    ("an empty chunk size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\r\nhello\r\n0\r\n\r\n"),
    ("a control character in a chunk extension", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\u{1}\r\nhello\r\n0\r\n\r\n"),
    ("chunk data longer than its size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n"),
    ("whitespace after a header name", "GET / HTTP/1.1\r\nHost : h\r\n\r\n"),
    ("a tab after a header name", "GET / HTTP/1.1\r\nHost: h\r\nX-A\t: 1\r\n\r\n"),
    ("whitespace in a header name", "GET / HTTP/1.1\r\nHost: h\r\nX A: 1\r\n\r\n"),
    ("obsolete line folding", "GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  continued\r\n\r\n"),
    ("folding with a tab", "GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n\tcontinued\r\n\r\n"),
    ("a first header line that starts with whitespace", "GET / HTTP/1.1\r\n Host: h\r\n\r\n"),
    ("NUL in the request line", "GET / HTTP/1.1\u{0}\r\nHost: h\r\n\r\n"),
    ("NUL in the method", "G\u{0}T / HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("NUL in a header value", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{0}b\r\n\r\n"),
    ("NUL in a header name", "GET / HTTP/1.1\r\nHost: h\r\nX-\u{0}A: 1\r\n\r\n"),
    ("a bare CR in the request line", "GET / HTTP/1.1\r\r\nHost: h\r\n\r\n"),
    ("a bare CR in the target", "GET /a\rb HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("a bare CR in a header value", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n"),
    ("a bare CR at the end of a header value", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\r\n\r\n"),
    ("a bare CR in a header name", "GET / HTTP/1.1\r\nHost: h\r\nX-A\r: 1\r\n\r\n"),
    ("a bare CR as a header line", "GET / HTTP/1.1\r\nHost: h\r\n\r\r\n\r\n"),
    ("an escape in a header value", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{1B}[31mb\r\n\r\n"),
    ("DEL in a header value", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{7F}b\r\n\r\n"),
    ("a vertical tab in a header value", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{B}b\r\n\r\n"),
    ("a form feed in the Host value", "GET / HTTP/1.1\r\nHost: h\u{C}x\r\n\r\n"),
    ("a control character in the method", "G\u{1}T / HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("a space in the target", "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("a tab in the target", "GET /a\tb HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("a control character in the target", "GET /a\u{1}b HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("DEL in the target", "GET /a\u{7F}b HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("NUL in the target", "GET /a\u{0}b HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("two spaces before the target", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("no Host on HTTP/1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"),
    ("two Host headers", "GET / HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n"),
    ("two Host headers that differ", "GET / HTTP/1.1\r\nhost: a\r\nHOST: b\r\n\r\n"),
    ("HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n"),
    ("HTTP/0.9", "GET / HTTP/0.9\r\nHost: h\r\n\r\n"),
    ("a lower-case version", "GET / http/1.1\r\nHost: h\r\n\r\n"),
    ("a version without a minor number", "GET / HTTP/1\r\nHost: h\r\n\r\n"),
    ("a version with letters", "GET / HTTP/1.x\r\nHost: h\r\n\r\n"),
    ("a space after the version", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n"),
    ("no version", "GET /\r\nHost: h\r\n\r\n"),
    ("no target", "GET HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("a method that is not a token", "GE(T / HTTP/1.1\r\nHost: h\r\n\r\n"),
    ("a header line without a colon", "GET / HTTP/1.1\r\nHost: h\r\nno colon here\r\n\r\n"),
    ("a header line without a name", "GET / HTTP/1.1\r\nHost: h\r\n: value\r\n\r\n"),
    ("Content-Length -5", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -5\r\n\r\n"),
    ("Content-Length +5", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\nhello"),
    ("Content-Length in hex", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x5\r\n\r\nhello"),
    ("Content-Length with a fraction", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5.0\r\n\r\nhello"),
    ("an empty Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n"),
    ("a Content-Length of only commas", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: ,\r\n\r\n"),
    ("a Content-Length too long to be a number", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n"),
    ("garbage", "GARBAGE\r\n\r\n"),
    ("control bytes only", "\u{0}\u{1}\u{2}\u{3}\r\n\r\n"),
]

/// Requests that are read, one of each form and framing.
let wellFormedRequests: [String] = [
    "GET /a/b?x=1 HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET http://api.example.com/users?id=1 HTTP/1.1\r\nHost: api.example.com\r\nProxy-Connection: keep-alive\r\n\r\n",
    "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n",
    "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
    "\r\n\r\nGET / HTTP/1.0\r\n\r\n",
    "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "HEAD / HTTP/1.1\nHost: h\n\n",
    "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
    "POST /p HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello",
    "POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5 ;a=b\r\npedia\r\n0\r\nX-T: t\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
]
