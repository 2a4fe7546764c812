// libFuzzer target: the WebSocket frame parser (Sources/OrreryCore/WebSocket/WebSocketParser.swift), built into one
// module with the framing files it uses (see scripts/fuzz.sh).
//
// The first byte chooses the role (server: client frames must be masked; client: they must not) and where to cut the
// input; the rest is what a peer sends. Read whole, cut once and a byte at a time, the events and the violation must
// be the same; no message may pass the limits, a text message is valid UTF-8, and each message written again by
// the frame writer reads back as itself.

let limits = WebSocketLimits(maximumFrameBytes: 1024, maximumMessageBytes: 2048)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let control = data[0]
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let role: WebSocketParser.Role = control & 0x80 != 0 ? .client : .server
    let cut = input.isEmpty ? 0 : Int(control & 0x7F) * input.count / 0x7F
    let whole = read(input, role: role, cuts: [])
    let once = read(input, role: role, cuts: [cut])
    let bytewise = read(input, role: role, cuts: Array(0...input.count))
    if whole != once { fatalError("cut at \(cut): \(once)\nwhole: \(whole)") }
    if whole != bytewise { fatalError("a byte at a time: \(bytewise)\nwhole: \(whole)") }
    for event in whole.events {
        guard case .message(let message) = event else { continue }
        if message.payload.count > limits.maximumMessageBytes {
            fatalError("a message of \(message.payload.count) bytes")
        }
        if message.isText, String(validating: message.payload, as: UTF8.self) == nil {
            fatalError("a text message that is not UTF-8")
        }
        var again = WebSocketParser(
            role: role, limits: WebSocketLimits(maximumFrameBytes: 4096, maximumMessageBytes: 4096))
        let frame = WebSocketFrameWriter.message(message, mask: role == .server ? [1, 2, 3, 4] : nil)
        let reread = again.received(frame)
        if reread.events != [.message(message)] || reread.violation != nil {
            fatalError("\(message) reads back as \(reread)")
        }
    }
    return 0
}

struct Reading: Equatable {
    var events: [WebSocketParser.Event] = []
    var violation: WebSocketParser.Violation?
}

func read(_ input: [UInt8], role: WebSocketParser.Role, cuts: [Int]) -> Reading {
    var parser = WebSocketParser(role: role, limits: limits)
    var reading = Reading()
    var start = 0
    for end in cuts.filter({ $0 > 0 && $0 < input.count }) + [input.count] where end > start {
        let result = parser.received(input[start..<end])
        start = end
        reading.events += result.events
        if let violation = result.violation {
            reading.violation = violation
            break
        }
        if parser.bufferedBytes > limits.maximumFrameBytes + 14 { fatalError("\(parser.bufferedBytes) bytes buffered") }
    }
    return reading
}
