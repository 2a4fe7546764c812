// libFuzzer target: the request parser and the connection state machine (Sources/OrreryCore/HTTP1), built into one
// module with the OrreryCore files they use (see scripts/fuzz.sh).
//
// The first byte of an input chooses how it is fed: where to cut it, whether answers come at once or later; the rest
// is what the client sends. Each input runs whole, cut once, and a byte at a time, and every way must lead to the
// same actions. Every dispatched request must be framed consistently. Any failure stops the run with a message.

/// Small limits, so that the fuzzer reaches them.
let limits = HTTP1Parser.Limits(maximumTargetLength: 64, maximumHeadBytes: 256, maximumBodyBytes: 128)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let control = data[0]
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let answersLater = control & 0x80 != 0
    let cut = input.isEmpty ? 0 : Int(control & 0x7F) * input.count / 0x7F

    checkParser(input)
    let whole = Connection.run(input, cuts: [], answersLater: answersLater)
    let once = Connection.run(input, cuts: [cut], answersLater: answersLater)
    let bytewise = Connection.run(input, cuts: Array(0...input.count), answersLater: answersLater)
    require(whole == once, "cut at \(cut) of \(input.count): \(once)\nwhole: \(whole)")
    require(whole == bytewise, "a byte at a time: \(bytewise)\nwhole: \(whole)")
    return 0
}

func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}

/// The parser alone: it never uses more than it is given, and what it reads is what it reports.
func checkParser(_ input: [UInt8]) {
    var parser = HTTP1Parser(role: .request, limits: limits)
    var offset = 0
    while offset < input.count {
        let used: Int
        do {
            used = try input[offset...].withUnsafeBytes { try parser.parse($0) }
        } catch {
            return
        }
        require(used <= input.count - offset, "parse used \(used) of \(input.count - offset) bytes")
        if used == 0 || parser.isComplete { break }
        offset += used
    }
    if parser.hasHead {
        require(parser.body.count <= limits.maximumBodyBytes, "a body over the limit was read")
        require(!(parser.isChunked && parser.contentLength != nil), "both chunked and a Content-Length")
        if parser.isComplete, let length = parser.contentLength {
            require(parser.body.count == length, "a body of \(parser.body.count) bytes for Content-Length \(length)")
        }
    }
}

/// The event layer without sockets, as in the unit tests: it carries out the machine's actions and records them.
struct Connection {
    var machine = HTTP1ConnectionStateMachine(configuration: .init(limits: limits, maximumBufferedBytes: 512))
    var events: [String] = []
    var isFinished = false
    var isWaiting = false
    let input: [UInt8]
    var fed = 0

    static func run(_ input: [UInt8], cuts: [Int], answersLater: Bool) -> [String] {
        var connection = Connection(input: input)
        var start = 0
        for end in cuts.filter({ $0 > 0 && $0 < input.count }) + [input.count] where end > start && !connection.isFinished {
            // Answers given later come before the next bytes: what is buffered meanwhile waits, unparsed.
            if answersLater { connection.answerAll() }
            connection.fed = end
            let action = input[start..<end].withUnsafeBytes { connection.machine.received($0) }
            connection.process(action, answersAtOnce: !answersLater)
            start = end
        }
        connection.answerAll()
        if !connection.isFinished {
            connection.process(connection.machine.receivedEnd(), answersAtOnce: true)
            connection.answerAll()
        }
        return connection.events
    }

    mutating func answerAll() {
        while isWaiting && !isFinished {
            isWaiting = false
            process(machine.responseQueued(closesConnection: false, isBacklogged: false), answersAtOnce: false)
        }
    }

    mutating func process(_ first: HTTP1ConnectionStateMachine.Action, answersAtOnce: Bool) {
        var action = first
        while true {
            switch action {
            case .readMore, .pauseReading:
                return
            case .dispatch(let request, let context):
                check(request, context)
                events.append(
                    "dispatch \(request.method) \(request.target) \(request.headers.entries) \(request.body) \(context)")
                if request.method == "CONNECT" {
                    // The tunnel gets what came after the request, and then whatever was not fed yet.
                    events.append("tunnel \(machine.takeOver() + input[fed...])")
                    isFinished = true
                    return
                }
                guard answersAtOnce else {
                    isWaiting = true
                    return
                }
                action = machine.responseQueued(closesConnection: false, isBacklogged: false)
            case .sendContinue:
                events.append("100 Continue")
                action = machine.next()
            case .reject(let error):
                events.append("reject \(error.status)")
                isFinished = true
                return
            case .close:
                events.append("close")
                isFinished = true
                return
            }
        }
    }

    /// A request handed to the pipeline is one an upstream reads exactly as Orrery did.
    func check(_ request: HTTPRequest, _ context: ResponseContext) {
        require(HTTP1Parser.isToken(request.method), "method \(request.method)")
        require(!request.target.isEmpty && request.target.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }, "target \(request.target)")
        for (name, value) in request.headers.entries {
            require(HTTP1Parser.isToken(name), "header name \(name)")
            require(value.utf8.allSatisfy { ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }, "control in the value of \(name)")
            require(value.utf8.first != 0x20 && value.utf8.last != 0x20, "untrimmed value of \(name)")
        }
        let hosts = request.headers.all(named: "Host").count
        require(context.minorVersion == 1 ? hosts == 1 : hosts <= 1, "\(hosts) Host fields on HTTP/1.\(context.minorVersion)")
        require(context.isHead == (request.method == "HEAD"), "isHead for \(request.method)")
        require(request.body.count <= limits.maximumBodyBytes, "a body of \(request.body.count) bytes")

        let codings = request.headers.all(named: "Transfer-Encoding").flatMap { HTTP1Parser.listItems($0) }
        let lengths = request.headers.all(named: "Content-Length").flatMap { HTTP1Parser.listItems($0) }
        if !codings.isEmpty {
            require(lengths.isEmpty && codings.count == 1 && codings[0].lowercased() == "chunked", "codings \(codings) with lengths \(lengths)")
        } else {
            let values = Set(lengths.map { Int($0) })
            require(values.count <= 1 && !values.contains(nil), "lengths \(lengths)")
            require(request.body.count == (values.first.flatMap { $0 } ?? 0), "a body of \(request.body.count) for \(lengths)")
        }

        var close = false
        var keepAlive = false
        for name in ["Connection", "Proxy-Connection"] {
            for item in request.headers.all(named: name).flatMap({ HTTP1Parser.listItems($0) }) {
                if item.lowercased() == "close" { close = true }
                if item.lowercased() == "keep-alive" { keepAlive = true }
            }
        }
        let isKept = context.minorVersion == 1 ? !close : keepAlive && !close && codings.isEmpty
        require(context.isKeepAlive == isKept, "isKeepAlive \(context.isKeepAlive) for \(request.headers.entries)")
    }
}
