import Foundation
import Testing

@testable import OrreryCore

@Suite("Redaction: a secret in every encoding")
struct SecretFormsTests {
    /// A secret with characters that every encoding treats differently: a space, `/`, `+`, `:`, `"`, `\`, `é`.
    static let secret = #"p@ss wörd/+:"\x"#

    /// An exchange whose `Authorization` carries the secret as a bearer token, and that shows `echo` in the
    /// request's target, a request header, both bodies and a response header.
    static func exchange(echo: String, target: ((String) -> String)? = nil) -> JournalEntry {
        JournalEntry(
            startedAt: Date(), durationMicroseconds: 10,
            request: HTTPRequest(
                method: "POST", target: target?(echo) ?? "/cb?state=\(echo)",
                headers: ["Authorization": "Bearer \(secret)", "X-Echo": echo], body: Array("q=\(echo)&x=1".utf8)),
            requestBodySize: 0, clientAddress: "127.0.0.1",
            response: CapturedResponse(
                status: 200, headers: ["X-Seen": echo], body: Payload(#"{"seen": "\#(echo)", "n": 1}"#), limit: 1 << 20),
            outcome: .unmatched(closestStubs: .array([])))
    }

    /// The places the echo stood in, after redaction.
    static func places(_ entry: JournalEntry) -> [String] {
        [
            entry.request.target, entry.request.headers["X-Echo"] ?? "-", entry.request.bodyText,
            entry.response.headers["X-Seen"] ?? "-", entry.response.body.text,
        ]
    }

    static let scrubbedPlaces = [
        "/cb?state=[REDACTED]", "[REDACTED]", "q=[REDACTED]&x=1", "[REDACTED]", #"{"seen": "[REDACTED]", "n": 1}"#,
    ]

    static func urlEncoded(_ text: String, lowercase: Bool = false, plusForSpace: Bool = false) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " ") where plusForSpace:
                encoded += "+"
            default:
                let hex = String(byte, radix: 16, uppercase: !lowercase)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return encoded
    }

    @Test("Percent-encoded: upper- and lowercase hex, + for a space, and encoders that leave some characters be",
        arguments: [
            urlEncoded(secret), urlEncoded(secret, lowercase: true), urlEncoded(secret, plusForSpace: true),
            // encodeURIComponent's way: `/` encoded, `@` and `:` too, but a mix of raw and encoded is still found.
            "p%40ss%20w%C3%B6rd/+:%22%5Cx", "p@ss%20w%c3%b6rd%2F%2B%3A%22%5cx",
        ])
    func percentEncoded(echo: String) {
        #expect(Self.places(Redactor().redact(Self.exchange(echo: echo))) == Self.scrubbedPlaces, "\(echo)")
    }

    @Test("JSON-escaped: \\\", \\/, \\\\ and \\uXXXX forms (surrogate pairs too)", arguments: [
        #"p@ss w\u00f6rd\/+:\"\\x"#, #"p@ss wörd/+:\"\\x"#, #"\u0070@ss\u0020w\u00F6rd\u002f\u002B:\u0022\u005cx"#,
    ])
    func jsonEscaped(echo: String) {
        #expect(Self.places(Redactor().redact(Self.exchange(echo: echo))) == Self.scrubbedPlaces, "\(echo)")
        let emoji = "tok\u{1F512}en-123"
        let entry = JournalEntry(
            startedAt: Date(), durationMicroseconds: 1,
            request: HTTPRequest(method: "GET", target: "/", headers: ["Cookie": "sid=\(emoji)"]), requestBodySize: 0,
            clientAddress: "", response: CapturedResponse(
                status: 200, headers: [:], body: Payload(#"{"sid": "tok\ud83d\udd12en-123"}"#), limit: 1 << 20),
            outcome: .unmatched(closestStubs: .array([])))
        #expect(Redactor().redact(entry).response.body.text == #"{"sid": "[REDACTED]"}"#)
    }

    @Test("base64 and base64url, padded or not, alone", arguments: [
        Data(secret.utf8).base64EncodedString(),
        String(Data(secret.utf8).base64EncodedString().prefix { $0 != "=" }),
        Data(secret.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_"),
    ])
    func base64(echo: String) {
        #expect(Self.places(Redactor().redact(Self.exchange(echo: echo))) == Self.scrubbedPlaces, "\(echo)")
    }

    @Test("base64 of the secret inside a longer base64 text, at each of the three alignments", arguments: [
        "", "u:", "us:", "use:", "user:", "users:",
    ])
    func base64Inside(lead: String) {
        let encoded = Data((lead + Self.secret + "-and-more").utf8).base64EncodedString()
        let redacted = Redactor().redact(Self.exchange(echo: encoded))
        let body = redacted.response.body.text
        #expect(body.contains("[REDACTED]"), "\(encoded) → \(body)")
        // What is left around the placeholder is at most the few characters that mix the secret's bits with
        // its neighbours'.
        let secretCore = Base64.forms(of: Array(Self.secret.utf8), alphabet: Base64.standard)
        for form in secretCore { #expect(!body.contains(String(decoding: form, as: UTF8.self))) }
    }

    @Test("Basic credentials are decoded: user:password and the password are scrubbed in every form")
    func basicCredentials() {
        let credentials = "ada:hunter2-long"
        let basic = "Basic " + Data(credentials.utf8).base64EncodedString()
        #expect(Redactor.secretParts(of: basic, header: "Authorization").contains(credentials))
        #expect(Redactor.secretParts(of: basic, header: "Authorization").contains("hunter2-long"))
        let echoes = [
            credentials, "hunter2-long", Data("hunter2-long".utf8).base64EncodedString(), "hunter2%2Dlong",
            Data("ada:hunter2-long".utf8).base64EncodedString(),
        ]
        let entry = JournalEntry(
            startedAt: Date(), durationMicroseconds: 1,
            request: HTTPRequest(method: "GET", target: "/", headers: ["Authorization": basic]), requestBodySize: 0,
            clientAddress: "", response: CapturedResponse(
                status: 200, headers: [:], body: Payload(echoes.joined(separator: " | ")), limit: 1 << 20),
            outcome: .unmatched(closestStubs: .array([])))
        let redacted = Redactor().redact(entry)
        #expect(redacted.request.headers["Authorization"] == Redactor.placeholder)
        #expect(redacted.response.body.text == Array(repeating: "[REDACTED]", count: echoes.count).joined(separator: " | "))
    }

    @Test("Configured query parameters and JSON fields are scrubbed in their encoded forms elsewhere too")
    func configuredSecrets() {
        let entry = JournalEntry(
            startedAt: Date(), durationMicroseconds: 1,
            request: HTTPRequest(
                method: "POST", target: "/login?key=abc%2Fdef%3D", body: Array(#"{"password": "hunter2 long"}"#.utf8)),
            requestBodySize: 0, clientAddress: "", response: CapturedResponse(
                status: 200, headers: [:], body: Payload("k=abc%2fdef%3d p=hunter2+long b=aHVudGVyMiBsb25n"),
                limit: 1 << 20),
            outcome: .unmatched(closestStubs: .array([])))
        let redacted = Redactor(queryParameters: ["key"], jsonFields: ["password"]).redact(entry)
        #expect(redacted.request.target == "/login?key=[REDACTED]")
        #expect(redacted.response.body.text == "k=[REDACTED] p=[REDACTED] b=[REDACTED]")
    }

    @Test("Decoded views map what they find back to the text, an escape cut by the find taken whole")
    func decodedViews() throws {
        let text = Array(#"a%41b\u00e9c"#.utf8)
        try text.withUnsafeBytes { bytes in
            let percent = try #require(DecodedView.percentDecoded(bytes, plusIsSpace: false))
            #expect(String(decoding: percent.bytes, as: UTF8.self) == #"aAb\u00e9c"#)
            #expect(percent.sourceRange(1..<2) == 1..<4)
            #expect(percent.sourceRange(2..<3) == 4..<5)
            let json = try #require(DecodedView.jsonUnescaped(bytes))
            #expect(String(decoding: json.bytes, as: UTF8.self) == "a%41béc")
            // `é` is two bytes from one escape: either half of it maps to the whole escape.
            #expect(json.sourceRange(5..<6) == 5..<11)
            #expect(json.sourceRange(6..<8) == 5..<12)
            #expect(DecodedView.percentDecoded(UnsafeRawBufferPointer(rebasing: bytes[6...]), plusIsSpace: true) == nil)
        }
        #expect(Base64.decode("aGk=") == Array("hi".utf8))
        #expect(Base64.decode("aGk") == Array("hi".utf8))
        #expect(Base64.decode("a*k=") == nil)
        #expect(Base64.decode("aGk=x") == nil)
    }

    @Test("Short values are only replaced where they stand, in no other form")
    func shortValues() {
        let entry = JournalEntry(
            startedAt: Date(), durationMicroseconds: 1,
            request: HTTPRequest(method: "GET", target: "/", headers: ["Cookie": "a=yes12"]), requestBodySize: 0,
            clientAddress: "", response: CapturedResponse(status: 200, headers: [:], body: Payload("yes12 eWVz"), limit: 1 << 20),
            outcome: .unmatched(closestStubs: .array([])))
        #expect(Redactor().redact(entry).response.body.text == "yes12 eWVz")
    }
}
