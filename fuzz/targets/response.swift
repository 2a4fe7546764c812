// libFuzzer target: the response parser the upstream client uses (Sources/OrreryCore/HTTP1/HTTP1Parser.swift), built
// into one module with the OrreryCore files it uses (see scripts/fuzz.sh).
//
// The first byte chooses the request method (HEAD or GET) and where to cut the input; the rest is what an upstream
// sends. The response read whole, cut once and a byte at a time must be the same, and never use more than it is given.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let control = data[0]
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let method = control & 0x80 != 0 ? "HEAD" : "GET"
    let cut = input.isEmpty ? 0 : Int(control & 0x7F) * input.count / 0x7F
    let whole = read(input, method: method, cuts: [])
    let once = read(input, method: method, cuts: [cut])
    let bytewise = read(input, method: method, cuts: Array(0...input.count))
    if whole != once { fatalError("cut at \(cut): \(once)\nwhole: \(whole)") }
    if whole != bytewise { fatalError("a byte at a time: \(bytewise)\nwhole: \(whole)") }
    return 0
}

/// Reads one response as the upstream client does, and describes what it read (or why it could not).
func read(_ input: [UInt8], method: String, cuts: [Int]) -> String {
    var parser = HTTP1Parser(requestMethod: method, maximumHeadBytes: 512)
    var pending: [UInt8] = []
    var start = 0
    var consumed = 0
    do {
        for end in cuts.filter({ $0 > 0 && $0 < input.count }) + [input.count] where end > start {
            pending += input[start..<end]
            start = end
            let used = try pending.withUnsafeBytes { try parser.parseMessage($0) }
            if used > pending.count { fatalError("parseMessage used \(used) of \(pending.count) bytes") }
            pending.removeFirst(used)
            consumed += used
            if parser.isComplete { break }
        }
        if !parser.isComplete { try parser.finishAtEndOfInput() }
    } catch {
        return "error \(error)"
    }
    if let length = parser.contentLength, parser.isComplete, !parser.isChunked, method != "HEAD",
        parser.status != 204, parser.status != 304, parser.body.count != length
    {
        fatalError("a body of \(parser.body.count) bytes for Content-Length \(length)")
    }
    return "\(parser.status) \(parser.reason) 1.\(parser.minorVersion) \(parser.headers.entries) \(parser.body) "
        + "closes \(parser.closesConnection) chunked \(parser.isChunked) consumed \(consumed)"
}
