import Testing

@testable import OrreryServer

/// The start-up check of the open-file limit, as a value.
@Suite("Open-file limit")
struct OpenFileLimitTests {
    @Test("a limit below every loop's connections is a warning that says what to do; enough is silence")
    func warning() throws {
        let text = try #require(OpenFileLimit.warning(limit: 1_024, maxConnectionsPerLoop: 10_000, threads: 2))
        #expect(text.contains("1024") && text.contains("20064"), "\(text)")
        #expect(text.contains("ulimit -Hn") && text.contains("--max-connections"))
        #expect(OpenFileLimit.warning(limit: 1_048_576, maxConnectionsPerLoop: 10_000, threads: 2) == nil)
        #expect(OpenFileLimit.warning(limit: 1_024, maxConnectionsPerLoop: 400, threads: 2) == nil)
    }

    @Test("raising leaves the soft limit at the hard one")
    func raise() {
        let limits = OpenFileLimit.raise()
        #expect(limits.soft == limits.hard)
        #expect(OpenFileLimit.current == limits.soft)
    }
}
