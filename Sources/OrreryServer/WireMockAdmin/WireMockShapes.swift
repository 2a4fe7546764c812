import Foundation
import OrreryCore

/// The JSON and text shapes of WireMock's admin API, made from Orrery's values: a journal entry as a `LoggedRequest`
/// or a `ServeEvent`, errors as `{"errors": [...]}`, and the text a miss is answered with.
enum WireMockShapes {
    /// A journal entry's id as the UUID WireMock's clients expect; `journalID(of:)` reads it back.
    static func uuid(ofJournalID id: Int) -> String {
        let hex = String(id, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    static func journalID(of uuid: String) -> Int? {
        guard uuid.lowercased().hasPrefix("00000000-0000-4000-8000-") else { return nil }
        return Int(uuid.dropFirst(24), radix: 16)
    }

    /// `LoggedRequest`: what a client sent, as WireMock's journal gives it.
    static func loggedRequest(_ entry: JournalEntry) -> JSONValue {
        let request = entry.request
        let hostHeader = request.host ?? "localhost"
        let (host, port) = splitHost(hostHeader, scheme: entry.scheme)
        let url = request.isAbsoluteForm ? request.originForm : request.pathAndQuery
        let milliseconds = Int((entry.startedAt.timeIntervalSince1970 * 1000).rounded(.down))
        var queryParameters: [(String, JSONValue)] = []
        let query = request.query
        for item in query where !queryParameters.contains(where: { $0.0 == item.name }) {
            let values = query.filter { $0.name == item.name }.map { JSONValue.string($0.value) }
            queryParameters.append((item.name, .object([("key", .string(item.name)), ("values", .array(values))])))
        }
        return .object([
            ("url", .string(url)),
            ("absoluteUrl", .string("\(entry.scheme)://\(hostHeader)\(url)")),
            ("method", .string(request.method)),
            ("clientIp", .string(clientIP(entry.clientAddress))),
            ("headers", headers(request.headers)),
            ("cookies", cookies(request.headers)),
            ("browserProxyRequest", .bool(request.isAbsoluteForm)),
            ("loggedDate", .int(milliseconds)),
            ("bodyAsBase64", .string(Data(request.body).base64EncodedString())),
            ("body", .string(String(decoding: request.body, as: UTF8.self))),
            ("protocol", .string("HTTP/1.1")),
            ("scheme", .string(entry.scheme)),
            ("host", .string(host)),
            ("port", .int(port)),
            ("loggedDateString", .string(dateString(entry.startedAt))),
            ("queryParams", .object(queryParameters)),
        ])
    }

    /// `ServeEvent`: the request, the answer and the mapping that gave it (`mapping` finds a posted one by id).
    static func serveEvent(_ entry: JournalEntry, mapping: (String) -> JSONValue?) -> JSONValue {
        let body = entry.response.body.withUnsafeBytes { Array($0) }
        var stubID: String?
        if case .stub(let id, _, _) = entry.outcome { stubID = id }
        let matched = stubID != nil
        let definition: JSONValue =
            matched
            ? .object([("status", .int(entry.response.status))])
            : .object([("status", .int(entry.response.status)), ("fromConfiguredStub", .bool(false))])
        let stubMapping =
            stubID.flatMap(mapping)
            ?? .object([
                ("id", .string(stubID ?? uuid(ofJournalID: 0))), ("request", .object([("method", .string("ANY"))])),
                ("response", definition), ("uuid", .string(stubID ?? uuid(ofJournalID: 0))),
            ])
        let milliseconds = entry.durationMicroseconds / 1000
        return .object([
            ("id", .string(uuid(ofJournalID: entry.id))),
            ("request", loggedRequest(entry)),
            ("responseDefinition", definition),
            (
                "response",
                .object([
                    ("status", .int(entry.response.status)), ("headers", headers(entry.response.headers)),
                    ("bodyAsBase64", .string(Data(body).base64EncodedString())),
                    ("body", .string(String(decoding: body, as: UTF8.self))),
                ])
            ),
            ("wasMatched", .bool(matched)),
            (
                "timing",
                .object([
                    ("addedDelay", .int(0)), ("processTime", .int(milliseconds)), ("responseSendTime", .int(0)),
                    ("serveTime", .int(milliseconds)), ("totalTime", .int(milliseconds)),
                ])
            ),
            ("stubMapping", stubMapping),
        ])
    }

    /// Headers as WireMock writes them: one value as a string, several as a list.
    static func headers(_ headers: HTTPHeaders) -> JSONValue {
        var names: [String] = []
        var values: [String: [String]] = [:]
        for (name, value) in headers.entries {
            let key = names.first { $0.lowercased() == name.lowercased() } ?? name
            if values[key] == nil { names.append(key) }
            values[key, default: []].append(value)
        }
        return .object(
            names.map { name in
                let list = values[name] ?? []
                return (name, list.count == 1 ? .string(list[0]) : .array(list.map { .string($0) }))
            })
    }

    /// The request's cookies by name.
    static func cookies(_ headers: HTTPHeaders) -> JSONValue {
        var members: [(String, JSONValue)] = []
        for (name, value) in headers.entries where name.lowercased() == "cookie" {
            for pair in value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard let key = parts.first?.trimmingCharacters(in: .whitespaces), !key.isEmpty else { continue }
                members.append((key, .string(parts.count > 1 ? String(parts[1]) : "")))
            }
        }
        return .object(members)
    }

    /// `{"errors": [{"code": 10, "title": ..., "detail": ...}]}` as WireMock answers what it cannot read.
    static func errors(_ status: HTTPStatus, title: String, details: [String] = [], pointers: [String] = [])
        -> AdminReply
    {
        let items: [JSONValue] =
            details.isEmpty
            ? [.object([("code", .int(status.code == 404 ? 404 : 10)), ("title", .string(title))])]
            : details.enumerated().map { index, detail in
                let pointer = index < pointers.count ? pointers[index] : "/"
                return .object([
                    ("code", .int(10)), ("source", .object([("pointer", .string(pointer))])), ("title", .string(title)),
                    ("detail", .string(detail)),
                ])
            }
        return .json(.object([("errors", .array(items))]), status: status)
    }

    /// `{}`, as WireMock answers the calls that return an empty JSON object.
    static func emptyObject() -> AdminReply {
        .json(.object([]))
    }

    /// An empty answer with `status`, as WireMock gives for the calls that return nothing.
    static func empty(_ status: HTTPStatus = 200) -> AdminReply {
        AdminReply(status: status, headers: ["Cache-Control": "no-store"], body: [])
    }

    /// The text WireMock answers a miss with: the closest stub beside the request, and what differed.
    static func notMatched(_ request: HTTPRequest, closestStubs: JSONValue, hasStubs: Bool) -> Response {
        let first = closestStubs.arrayItems?.first
        guard hasStubs else {
            let text = "No response could be served as there are no stub mappings in this WireMock instance."
            return Response(status: 404, headers: ["Content-Type": "text/plain"], body: Payload(Array(text.utf8)))
        }
        let rule = String(repeating: "-", count: 119)
        func row(_ left: String, _ right: String, _ note: String = "") -> String {
            let padded = left.count < 59 ? left + String(repeating: " ", count: 59 - left.count) : left + " "
            return padded + "| " + right + (note.isEmpty ? "" : "   <<<<< " + note)
        }
        var lines = [
            "", String(repeating: " ", count: 47) + "Request was not matched",
            String(repeating: " ", count: 47) + "=======================", "",
            rule,
            "| Closest stub" + String(repeating: " ", count: 45) + "| Request" + String(repeating: " ", count: 50)
                + "|", rule,
            row("", ""),
        ]
        let label = first.map { $0["name"]?.stringValue ?? $0["id"]?.stringValue ?? "" } ?? ""
        lines.append(row(label, request.method))
        lines.append(row("", request.pathAndQuery))
        for difference in first?["differences"]?.arrayItems ?? [] {
            let field = difference["field"]?.stringValue ?? ""
            let expected = difference["expected"].map { $0.stringValue ?? $0.encoded } ?? ""
            lines.append(row(expected, "", "\(field) does not match"))
        }
        lines += [row("", ""), rule, ""]
        return Response(
            status: 404, headers: ["Content-Type": "text/plain"],
            body: Payload(Array(lines.joined(separator: "\n").utf8)))
    }

    private static func splitHost(_ authority: String, scheme: String) -> (String, Int) {
        let fallback = scheme == "https" ? 443 : 80
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<end])
            let rest = authority[authority.index(after: end)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? fallback : fallback)
        }
        let parts = authority.split(separator: ":")
        if parts.count == 2 { return (String(parts[0]), Int(parts[1]) ?? fallback) }
        return (authority, fallback)
    }

    private static func clientIP(_ address: String) -> String {
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        return address.split(separator: ":").count == 2 ? String(address.split(separator: ":")[0]) : address
    }

    /// `2026-11-25T15:56:19Z`, as WireMock writes `loggedDateString`.
    static func dateString(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
