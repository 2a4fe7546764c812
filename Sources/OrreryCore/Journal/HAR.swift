import Foundation

/// The journal as an HTTP Archive (HAR 1.2), the format browsers, Charles and mitmproxy read and write.
public enum HAR {
    /// A HAR log of `entries` (oldest first, as HAR viewers expect). Orrery's own facts about each exchange (its id,
    /// the stub or upstream that answered) are in an `_orrery` member, which HAR allows for custom fields.
    public static func log(_ entries: [JournalEntry], version: String) -> JSONValue {
        .object([
            (
                "log",
                .object([
                    ("version", .string("1.2")),
                    ("creator", .object([("name", .string("Orrery")), ("version", .string(version))])),
                    ("pages", .array([])),
                    ("entries", .array(entries.map(entry))),
                ])
            )
        ])
    }

    static func entry(_ entry: JournalEntry) -> JSONValue {
        let milliseconds = Double(entry.durationMicroseconds) / 1000
        let duration = JSONValue.number(milliseconds, text: JournalEntry.milliseconds(entry.durationMicroseconds))
        return .object([
            ("startedDateTime", .string(JournalEntry.timestamp(entry.startedAt))),
            ("time", duration),
            ("request", request(entry)),
            ("response", response(entry)),
            ("cache", .object([])),
            ("timings", .object([("send", .int(0)), ("wait", duration), ("receive", .int(0))])),
            ("_orrery", orreryFacts(entry)),
        ])
    }

    private static func request(_ entry: JournalEntry) -> JSONValue {
        let request = entry.request
        var members: [(String, JSONValue)] = [
            ("method", .string(request.method)),
            ("url", .string(absoluteURL(request, scheme: entry.scheme))),
            ("httpVersion", .string(entry.httpVersion == "2" ? "HTTP/2" : "HTTP/" + entry.httpVersion)),
            ("cookies", .array([])),
            ("headers", JournalEntry.json(request.headers)),
            ("queryString", .array(request.query.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })),
            ("headersSize", .int(-1)),
            ("bodySize", .int(entry.requestBodySize)),
        ]
        if entry.requestBodySize > 0 {
            var postData: [(String, JSONValue)] = [("mimeType", .string(request.headers["Content-Type"] ?? ""))]
            postData += content(request.body)
            members.append(("postData", .object(postData)))
        }
        return .object(members)
    }

    private static func response(_ entry: JournalEntry) -> JSONValue {
        let response = entry.response
        var content: [(String, JSONValue)] = [
            ("size", .int(response.bodySize)), ("mimeType", .string(response.headers["Content-Type"] ?? "")),
        ]
        content += response.body.withUnsafeBytes { self.content(Array($0)) }
        if response.isBodyTruncated { content.append(("comment", .string("cut at the journal's body limit"))) }
        return .object([
            ("status", .int(response.status)),
            ("statusText", .string(HTTPStatusCode.reasonPhrase(for: response.status))),
            ("httpVersion", .string(entry.httpVersion == "2" ? "HTTP/2" : "HTTP/" + entry.httpVersion)),
            ("cookies", .array([])),
            ("headers", JournalEntry.json(response.headers)),
            ("content", .object(content)),
            ("redirectURL", .string(response.headers["Location"] ?? "")),
            ("headersSize", .int(-1)),
            ("bodySize", .int(response.bodySize)),
        ])
    }

    /// `text`, base64-encoded (with `encoding`) when the bytes are not UTF-8.
    private static func content(_ body: [UInt8]) -> [(String, JSONValue)] {
        if let text = String(validating: body, as: UTF8.self) { return [("text", .string(text))] }
        return [("text", .string(Data(body).base64EncodedString())), ("encoding", .string("base64"))]
    }

    /// The journal's own account of who answered, under the entry's id.
    private static func orreryFacts(_ entry: JournalEntry) -> JSONValue {
        .object([("id", .string(String(entry.id)))] + entry.outcomeMembers)
    }

    /// HAR wants absolute URLs: the request's own when it sent one, else `http://` + its host + its target.
    static func absoluteURL(_ request: HTTPRequest, scheme: String = "http") -> String {
        if request.isAbsoluteForm { return request.target }
        return "\(scheme)://\(request.host ?? "localhost")\(request.target)"
    }
}
