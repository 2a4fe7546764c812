import Foundation
import OrreryClient
import Testing

/// What a failed call tells the test that made it.
@Suite struct ErrorTests {
    @Test func theDaemonsErrorsCarryItsTexts() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let error = try await #require(throws: OrreryClientError.self) { try await daemon.client.stub(id: "nope") }
        #expect(error.kind == .daemonError)
        #expect(error.status == 404)
        #expect(error.call == "GET /__admin/stubs/nope")
        #expect(error.message == "There is no stub with id 'nope'.")
        let failureReason = try #require(error.failureReason)
        let recoverySuggestion = try #require(error.recoverySuggestion)
        #expect(error.body?["status"] == 404)
        #expect(
            error.description == """
                Orrery answered 404 Not Found to GET /__admin/stubs/nope: There is no stub with id 'nope'.
                Failure reason: \(failureReason)
                Recovery suggestion: \(recoverySuggestion)
                """)
        #expect(error.localizedDescription == error.description)
    }

    @Test func anInvalidStubNamesTheProblemAndItsLine() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let error = try await #require(throws: OrreryClientError.self) {
            try await daemon.client.addStub(json: ["request": ["method": "GET", "pathh": "/x"], "response": [:]])
        }
        #expect(error.status == 422)
        #expect(error.message == "The stub is not valid.")
        #expect(error.description.contains("request body:1:"))
        #expect(error.description.contains("'pathh'"))
    }

    @Test func idsAreSentAsOnePathSegment() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let id = "team a/users?1#x"
        #expect(try await stubRequest(.get, "/odd").withID(id).install(on: daemon.client) == id)
        #expect(try await daemon.client.stub(id: id).id == id)
        try await daemon.client.removeStub(id: id)
    }

    @Test func anUnreachableDaemonIsATransportFailure() async throws {
        let port = try ClosedPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(port.port)"))
        let client = OrreryClient(baseURL: url, timeout: 5)
        let error = try await #require(throws: OrreryClientError.self) { try await client.health() }
        #expect(error.kind == .transportFailure)
        #expect(error.status == nil)
        #expect(error.underlyingError != nil)
        #expect(
            error.description.hasPrefix("GET /__admin/health failed. Could not reach Orrery at \(url.absoluteString)"))
        #expect(error.description.contains("Recovery suggestion: Check that orrery is running"))
    }

    @Test func aBodyThatIsNotTheExpectedJSONIsAnInvalidResponse() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        try await stubRequest(.any, pattern: "^/fake/").andReturn(200).withBody("<html>").install(on: daemon.client)
        let fake = OrreryClient(baseURL: try #require(URL(string: "http://127.0.0.1:\(daemon.port)/fake")))
        let error = try await #require(throws: OrreryClientError.self) { try await fake.health() }
        #expect(error.kind == .invalidResponse)
        #expect(error.description.contains("<html>"))
    }
}

/// A loopback port held bound but not listening: connecting to it is refused for as long as this lives.
final class ClosedPort {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
