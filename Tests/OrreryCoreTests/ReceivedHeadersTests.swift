import Testing

@testable import OrreryCore

/// Fields kept as the bytes a parser received (`HTTPHeaders.appendReceived`) answer every question, and take every
/// change, exactly as the same fields kept as strings do: generated lists, asked and changed both ways side by side.
@Suite("Received header fields")
struct ReceivedHeadersTests {
    /// Names in several cases, of lengths the lookups tell apart first, and some that share a length.
    private static let names = [
        "Host", "host", "HOST", "Hosx", "Via", "VIA", "Vie", "Content-Length", "content-length", "Accept",
        "X-Request-Id", "Cookie", "Set-Cookie", "Authorization", "Connection", "X-A-Name-Longer-Than-Sixteen-Bytes",
    ]
    private static let values = ["", "1", "a b", "café", "日本語のテキスト", String(repeating: "v", count: 300), "x,y , z"]

    private struct Generator {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    private static func lists(_ generator: inout Generator) -> [HTTPHeaders] {
        (0..<300).map { _ in
            var headers = HTTPHeaders()
            for _ in 0..<generator.next(7) {
                headers.add(names[generator.next(names.count)], values[generator.next(values.count)])
            }
            return headers
        }
    }

    private static func bytes(_ headers: HTTPHeaders) -> [[UInt8]] {
        var fields: [[UInt8]] = []
        headers.forEachField { fields.append(Array($0) + [0x3A] + Array($1)) }
        return fields
    }

    private static func expectSame(_ received: HTTPHeaders, _ list: HTTPHeaders, _ step: String) {
        #expect(received == list, "\(step)")
        #expect(
            received.entries.map { "\($0.name): \($0.value)" } == list.entries.map { "\($0.name): \($0.value)" },
            "\(step)")
        #expect(received.count == list.count && received.isEmpty == list.isEmpty, "\(step)")
        #expect(received.fieldBytes == list.fieldBytes, "\(step)")
        #expect(bytes(received) == bytes(list), "\(step)")
        #expect(received.hashValue == list.hashValue, "\(step)")
    }

    @Test("the fields are one word, as an array of strings was: a request is copied with one retain for them")
    func oneWord() {
        #expect(MemoryLayout<HTTPHeaders>.size == MemoryLayout<Int>.size)
    }

    /// Parses `head` given in pieces of `piece` bytes, each with what came before it and not yet used.
    private static func parsed(_ head: String, piece: Int) throws -> HTTPHeaders {
        var parser = HTTP1Parser(role: .request)
        let bytes = Array(head.utf8)
        var start = 0
        var end = 0
        while !parser.hasHead, end < bytes.count {
            end = min(bytes.count, end + piece)
            start += try bytes[start..<end].withUnsafeBytes { try parser.parse($0) }
        }
        #expect(parser.hasHead)
        return parser.headers
    }

    @Test("a head that arrived whole gets a buffer its size, and one of many short fields, which outruns it, grows")
    func sizedByTheHead() throws {
        // A usual request's head: the buffer holds its fields with little to spare, where it had 512 bytes.
        let usual = "GET /users/1 HTTP/1.1\r\nHost: api.example.com\r\nAccept: application/json\r\n\r\n"
        let fields = try Self.parsed(usual, piece: usual.utf8.count)
        let capacity = try #require(fields.receivedCapacity)
        #expect(capacity >= fields.fieldBytes + 8 * fields.count && capacity < 128, "capacity \(capacity)")
        // Two hundred one-letter fields take 9 bytes each in the buffer, against 4 on the wire: more than the
        // estimate, so the buffer grows, and every field is kept, in order.
        var list = HTTPHeaders()
        list.add("Host", "h")
        for index in 0..<200 { list.add(String(UnicodeScalar(UInt8(97 + index % 26))), "") }
        let short = "GET / HTTP/1.1\r\n" + list.entries.map { "\($0.name):\($0.value)\r\n" }.joined() + "\r\n"
        for piece in [short.utf8.count, 7, 1] {
            let parsed = try Self.parsed(short, piece: piece)
            Self.expectSame(parsed, list, "short fields in pieces of \(piece)")
            #expect(try #require(parsed.receivedCapacity) >= 9 * 200)
        }
        // A head arriving a byte at a time is estimated by its first field's line alone: the buffer grows as the
        // other fields come, and holds the same fields.
        let trickled = try Self.parsed(usual, piece: 1)
        Self.expectSame(trickled, fields, "a byte at a time")
    }

    @Test("lookups by name give what the same fields as strings give")
    func reads() {
        var generator = Generator()
        let sets = [HeaderNameSet(["cookie", "AUTHORIZATION"]), HeaderNameSet(["Via"]), HeaderNameSet(["X-Missing"])]
        for list in Self.lists(&generator) {
            let received = HTTPHeaders.asReceived(list)
            Self.expectSame(received, list, "as made")
            for name in Self.names + ["Absent", ""] {
                #expect(received.first(named: name) == list.first(named: name), "\(name)")
                #expect(received[name] == list[name], "\(name)")
                #expect(received.all(named: name) == list.all(named: name), "\(name)")
                #expect(received.contains(name) == list.contains(name), "\(name)")
                // The test without a walk may say yes for a name that is not there, never no for one that is.
                #expect(!list.contains(name) || received.mayContain(name), "\(name)")
            }
            for set in sets { #expect(received.containsName(in: set) == list.containsName(in: set)) }
        }
    }

    @Test("every change leaves the same fields as the same change to strings")
    func changes() {
        var generator = Generator()
        for (number, list) in Self.lists(&generator).enumerated() {
            var received = HTTPHeaders.asReceived(list)
            var strings = list
            for step in 0..<6 {
                let name = Self.names[generator.next(Self.names.count)]
                let value = Self.values[generator.next(Self.values.count)]
                // A copy made before the change shares the bytes, and must not see it.
                let copy = received
                let copied = copy.entries.map { "\($0.name): \($0.value)" }
                let what: String
                switch generator.next(7) {
                case 0:
                    what = "add \(name)"
                    received.add(name, value)
                    strings.add(name, value)
                case 1:
                    what = "set \(name)"
                    received.set(name, value)
                    strings.set(name, value)
                case 2:
                    what = "remove \(name)"
                    received.remove(name)
                    strings.remove(name)
                case 3:
                    what = "remove names of even length"
                    received.removeFields { $0.count.isMultiple(of: 2) }
                    strings.removeFields { $0.count.isMultiple(of: 2) }
                case 4 where !strings.isEmpty:
                    what = "change the last value in place"
                    received.entries[received.count - 1].value += value
                    strings.entries[strings.count - 1].value += value
                case 5:
                    what = "a field received after the others"
                    name.withUTF8Bytes { name in
                        value.withUTF8Bytes { value in
                            received.appendReceived(name: name, value: value)
                            strings.appendReceived(name: name, value: value)
                        }
                    }
                default:
                    what = "replace all"
                    received.entries = [(name, value)]
                    strings.entries = [(name, value)]
                }
                Self.expectSame(received, strings, "list \(number), step \(step): \(what)")
                #expect(copy.entries.map { "\($0.name): \($0.value)" } == copied, "a copy changed: \(what)")
                for name in Self.names where strings.contains(name) {
                    #expect(received.mayContain(name), "\(name) after \(what)")
                }
            }
        }
    }
}
