import Foundation

extension JournalEntry {
    /// The request's URL as the journal shows it: absolute for a request that came over TLS (the TLS port, as an
    /// intercepted one already is), so both kinds read the same; as the client wrote it otherwise.
    public var url: String {
        guard !request.isAbsoluteForm, scheme == "https" else { return request.target }
        return "https://\(request.host ?? "localhost")\(request.target)"
    }

    /// The admin API's and the traffic log's form of an entry. Headers are `[{name, value}]` in the order sent; a
    /// body is `body` when it is UTF-8 text and `bodyBase64` otherwise.
    public func json(includeHeaders: Bool = true, includeBody: Bool = true) -> JSONValue {
        var request: [(String, JSONValue)] = [
            ("method", .string(self.request.method)),
            ("url", .string(url)),
            ("path", .string(self.request.path)),
            ("query", .object(self.request.query.map { ($0.name, .string($0.value)) })),
            ("host", .string(self.request.host)),
            ("clientAddress", .string(clientAddress)),
        ]
        if let operation = graphQLOperationName { request.append(("graphqlOperation", .string(operation))) }
        // Only what is not the usual HTTP/1.1 is written, as `scheme` is.
        if httpVersion != "1.1" { request.append(("httpVersion", .string(httpVersion))) }
        if includeHeaders { request.append(("headers", Self.json(self.request.headers))) }
        request.append(("bodySize", .int(requestBodySize)))
        if includeBody {
            request += Self.json(body: self.request.body, truncated: self.request.body.count < requestBodySize)
        }
        var response: [(String, JSONValue)] = [("status", .int(self.response.status))]
        if includeHeaders { response.append(("headers", Self.json(self.response.headers))) }
        if includeHeaders, let trailers = self.response.trailers {
            response.append(("trailers", Self.json(trailers)))
        }
        response.append(("bodySize", .int(self.response.bodySize)))
        if includeBody {
            response += self.response.body.withUnsafeBytes {
                Self.json(body: Array($0), truncated: self.response.isBodyTruncated)
            }
        }
        var members: [(String, JSONValue)] = [
            ("id", .string(String(id))),
            ("time", .string(Self.timestamp(startedAt))),
            ("durationMs", .number(Double(durationMicroseconds) / 1000, text: Self.milliseconds(durationMicroseconds))),
            ("request", .object(request)),
            ("response", .object(response)),
        ]
        members += outcomeMembers
        if scheme != "http" { members.append(("scheme", .string(scheme))) }
        if let session { members.append(("session", .string(session))) }
        if let fault { members.append(("fault", .string(fault))) }
        if !messages.isEmpty { members.append(("messages", .array(messages.map(\.json)))) }
        if let contractViolations { members.append(("contractViolations", contractViolations)) }
        return .object(members)
    }

    /// Who answered: `matched` and the stub, the upstream tried, the closest stubs of a miss, or why it was refused.
    var outcomeMembers: [(String, JSONValue)] {
        switch outcome {
        case .stub(let id, let name, let location):
            let source = location?.description ?? "admin API"
            return [
                ("matched", .bool(true)),
                ("stub", .object([("id", .string(id)), ("name", .string(name)), ("source", .string(source))])),
            ]
        case .proxied(let environment, let upstream, let error):
            let proxy: [(String, JSONValue)] = [
                ("environment", .string(environment)), ("upstream", .string(upstream)), ("error", .string(error)),
            ]
            return [("matched", .bool(false)), ("proxied", .object(proxy))]
        case .unmatched(let closest):
            return [("matched", .bool(false)), ("closestStubs", closest)]
        case .rejected(let reason):
            return [("matched", .bool(false)), ("rejected", .string(reason))]
        case .spec(let operationId, let source):
            return [
                ("matched", .bool(operationId != nil)),
                ("openapi", .object([("operationId", .string(operationId)), ("source", .string(source))])),
            ]
        }
    }

    static func json(_ headers: HTTPHeaders) -> JSONValue {
        .array(headers.entries.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })
    }

    static func json(body: [UInt8], truncated: Bool) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let text = String(validating: body, as: UTF8.self) {
            members.append(("body", .string(text)))
        } else {
            members.append(("bodyBase64", .string(Data(body).base64EncodedString())))
        }
        if truncated { members.append(("bodyTruncated", .bool(true))) }
        return members
    }

    /// `2026-11-22T12:34:56.789Z`.
    public static func timestamp(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let milliseconds = Int((interval - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }

    static func milliseconds(_ microseconds: Int) -> String {
        let fraction = microseconds % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(microseconds / 1000).\(padded)"
    }
}
