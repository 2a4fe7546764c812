import Foundation

/// HTTP/2 from Python through Tests/Fixtures/h2_client.py: many streams on one connection (the h2 library), or an
/// attack written as hand-made frames. Loopback only; every run is bounded in time.
enum H2Client {
    struct Request: Encodable {
        var method = "GET"
        var path: String
        var headers: [[String]] = []
        var bodyBase64 = ""

        init(_ path: String, headers: [(String, String)] = []) {
            self.init("GET", path, headers: headers)
        }

        init(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.method = method
            self.path = path
            self.headers = headers.map { [$0.0.lowercased(), $0.1] }
            bodyBase64 = Data(body).base64EncodedString()
        }
    }

    /// One stream as the client saw it: `status` nil when no HEADERS came, `reset` the RST_STREAM code, `ms` when it
    /// ended (nil if it never did).
    struct Stream: Decodable {
        var status: String?
        var headers: [[String]]
        var body: String
        var bodyBase64: String
        var reset: Int?
        var ms: Int?
        var trailers: [[String]]

        var bytes: [UInt8] { Array(Data(base64Encoded: bodyBase64) ?? Data()) }

        func values(_ name: String) -> [String] {
            headers.filter { $0[0] == name.lowercased() }.map { $0[1] }
        }
    }

    struct Result: Decodable {
        var streams: [Stream]
        var goaway: Int?
    }

    /// What the server did to an attack.
    struct Outcome: Decodable {
        struct GoAway: Decodable {
            var lastStream: Int
            var error: Int
        }
        var goaway: GoAway?
        var closed: Bool
        var resets: [String: Int]
    }

    /// Sends every request at once, each on its own stream of one connection, and waits at most `timeout` seconds.
    static func send(port: Int, tls: Bool = false, _ requests: [Request], timeout: Double = 5) throws -> Result {
        struct Input: Encodable {
            var requests: [Request]
            var timeout: Double
        }
        let input = try JSONEncoder().encode(Input(requests: requests, timeout: timeout))
        let arguments = [FixtureProcess.fixtures.appendingPathComponent("h2_client.py").path, String(port), "requests"]
        let output = try ClientProcess.run(
            "python3", arguments + (tls ? ["--tls"] : []), input: input, timeout: timeout + 20)
        return try JSONDecoder().decode(Result.self, from: output)
    }

    static func attack(_ name: String, port: Int, tls: Bool = false) throws -> Outcome {
        let arguments = [FixtureProcess.fixtures.appendingPathComponent("h2_client.py").path, String(port), name]
        let output = try ClientProcess.run("python3", arguments + (tls ? ["--tls"] : []), timeout: 60)
        return try JSONDecoder().decode(Outcome.self, from: output)
    }
}
