import Foundation
import OrreryCore
import OrreryEvent
import Testing

/// Python's http.client, through Tests/Fixtures/client.py: answers exactly as they came over the wire, a gzip body
/// still gzip, every header in order.
enum PythonClient {
    struct Request: Encodable {
        var method = "GET"
        var path: String
        var headers: [[String]] = []
        var body = ""

        init(_ method: String = "GET", _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.method = method
            self.path = path
            self.headers = headers.map { [$0.0, $0.1] }
            self.body = Data(body).base64EncodedString()
        }
    }

    struct Answer: Decodable {
        var status: Int
        var headers: [[String]]
        var body: String

        var bytes: [UInt8] { Array(Data(base64Encoded: body) ?? Data()) }
        var text: String { String(decoding: bytes, as: UTF8.self) }

        func values(_ name: String) -> [String] {
            headers.filter { $0[0].lowercased() == name.lowercased() }.map { $0[1] }
        }

        /// The body without its Content-Encoding.
        var decodedBody: [UInt8]? {
            guard let value = values("Content-Encoding").first else { return bytes }
            guard let coding = ContentCoding(headerValue: value) else { return nil }
            return Zlib.decompress(bytes, coding)
        }

        /// Headers a replay may recompute: the date, the framing, the coding, the connection's own.
        static let recomputed: Set<String> = ["date", "content-length", "transfer-encoding", "content-encoding", "connection", "keep-alive"]

        /// The headers that must survive a replay, in order.
        var lastingHeaders: [String] {
            headers.filter { !Self.recomputed.contains($0[0].lowercased()) }.map { "\($0[0]): \($0[1])" }
        }
    }

    static func send(port: Int, _ requests: [Request]) throws -> [Answer] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", FixtureProcess.fixtures.appendingPathComponent("client.py").path, String(port)]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONEncoder().encode(requests))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError("client.py failed with status \(process.terminationStatus)") }
        return try JSONDecoder().decode([Answer].self, from: data)
    }
}
