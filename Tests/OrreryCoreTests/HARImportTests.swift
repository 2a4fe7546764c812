import Foundation
import Testing
@testable import OrreryCore

@Suite("HAR import")
struct HARImportTests {
    static func har(_ entries: String) throws -> JSONValue {
        try JSONValue.parse(#"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [\#(entries)]}}"#)
    }

    static func entry(
        method: String = "GET", url: String = "https://api.example.com/a?x=1", requestHeaders: String = "[]",
        postData: String? = nil, status: Int = 200, responseHeaders: String = "[]", content: String = #"{"size": 0}"#
    ) -> String {
        let post = postData.map { #", "postData": \#($0)"# } ?? ""
        return """
            {"request": {"method": "\(method)", "url": "\(url)", "headers": \(requestHeaders)\(post)},
             "response": {"status": \(status), "headers": \(responseHeaders), "content": \(content)}}
            """
    }

    @Test("An entry becomes an exchange: its URL's host pinned, HTTP/2 pseudo-headers dropped, secrets redacted")
    func basics() throws {
        let result = try HARImport.exchanges(
            from: Self.har(
                Self.entry(
                    requestHeaders: #"[{"name": ":authority", "value": "api.example.com"}, {"name": "authorization", "value": "Bearer abcdef123"}]"#,
                    responseHeaders: #"[{"name": ":status", "value": "200"}, {"name": "content-type", "value": "application/json"}, {"name": "x-echo", "value": "abcdef123"}]"#,
                    content: #"{"size": 2, "text": "{}"}"#)),
            redactor: Redactor())
        #expect(result.skipped.isEmpty)
        let exchange = try #require(result.exchanges.first)
        #expect(exchange.method == "GET")
        #expect(exchange.host == "api.example.com")
        #expect(exchange.folder == "api.example.com")
        #expect(exchange.target == "/a?x=1")
        #expect(exchange.responseHeaders.lines == ["content-type: application/json", "x-echo: [REDACTED]"])
        #expect(exchange.responseBody == Array("{}".utf8))
    }

    @Test("Bodies: base64 content, form params, and a coding that cannot be redone dropped")
    func bodies() throws {
        let result = try HARImport.exchanges(
            from: Self.har(
                [
                    Self.entry(content: #"{"size": 3, "text": "AAEC", "encoding": "base64"}"#),
                    Self.entry(
                        method: "POST",
                        postData: #"{"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "q", "value": "a b&c"}]}"#),
                    Self.entry(
                        responseHeaders: #"[{"name": "Content-Encoding", "value": "br"}]"#, content: #"{"size": 2, "text": "hi"}"#),
                    Self.entry(
                        responseHeaders: #"[{"name": "Content-Encoding", "value": "gzip"}]"#, content: #"{"size": 2, "text": "hi"}"#),
                ].joined(separator: ",")),
            pinsHost: false, redactor: Redactor())
        #expect(result.exchanges.count == 4)
        #expect(result.exchanges[0].responseBody == [0, 1, 2])
        #expect(result.exchanges[0].host == nil)
        #expect(result.exchanges[1].requestBody == Array("q=a+b%26c".utf8))
        #expect(result.exchanges[2].responseHeaders.lines.isEmpty)
        #expect(result.exchanges[2].encoding == nil)
        #expect(result.exchanges[3].encoding == .gzip)
        #expect(result.exchanges[3].responseHeaders.lines.isEmpty)
    }

    @Test("Entries without an answer or an absolute URL are skipped with the reason; a file without entries is refused")
    func skipped() throws {
        let result = try HARImport.exchanges(
            from: Self.har([Self.entry(status: 0), Self.entry(url: "/relative"), Self.entry()].joined(separator: ",")),
            redactor: Redactor())
        #expect(result.exchanges.count == 1)
        #expect(result.skipped == [
            "entry 1: GET https://api.example.com/a?x=1: no response was recorded",
            "entry 2: GET /relative: the url is not absolute",
        ])
        #expect(throws: HARError.self) { try HARImport.exchanges(from: .object([]), redactor: Redactor()) }
    }
}
