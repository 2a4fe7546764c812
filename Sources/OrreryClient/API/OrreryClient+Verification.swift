extension OrreryClient {
    /// How many exchanges a failed verification lists.
    static let verificationListLimit = 20

    /// Checks that exactly `count` journaled requests had this method and URL (`/path?query`, or
    /// `https://host/path?query`), and throws a `verificationFailed` error listing what was received otherwise.
    /// The error names the line of the call (`fileID`, `filePath`, `line` and `column` are the caller's), where
    /// `OrreryTesting` reports it.
    public func verify(
        _ method: HTTPMethod, _ url: String, count: Int = 1, fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        try await verify(
            RequestPattern(method, url), count: count, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Checks that exactly `count` journaled requests match `pattern`, and throws a `verificationFailed` error
    /// listing what was received otherwise, naming the line of the call.
    public func verify(
        _ pattern: RequestPattern, count expected: Int = 1, fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) async throws {
        let matched = try await findRequests(pattern)
        guard matched.count != expected else { return }
        let received = try await requests(limit: Self.verificationListLimit)
        throw OrreryClientError.verificationFailed(
            Self.verificationMessage(pattern: pattern, expected: expected, matched: matched, received: received),
            at: OrreryClientError.CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    static func verificationMessage(
        pattern: RequestPattern, expected: Int, matched: [JournalEntry], received: JournalPage
    ) -> String {
        func requests(_ count: Int) -> String { count == 1 ? "1 request" : "\(count) requests" }
        var lines = ["Expected \(requests(expected)) matching \(pattern), but \(matched.count) matched."]
        if received.total == 0 {
            lines.append("The journal is empty: no request reached Orrery since it started or was last cleared.")
        } else {
            let shown =
                received.requests.count < received.total
                ? "the newest \(received.requests.count) of \(received.total)" : "all \(received.total)"
            lines.append("Received (\(shown), newest first; * matched):")
            let matchedIDs = Set(matched.map(\.id))
            for entry in received.requests {
                lines.append("  \(matchedIDs.contains(entry.id) ? "*" : " ") \(entry)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
