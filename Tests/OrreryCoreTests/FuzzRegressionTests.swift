import Foundation
import Testing
@testable import OrreryCore

/// Inputs the fuzz targets (fuzz/targets) found that once failed, each with what it showed.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// From fuzz/targets/har.swift: a HAR response header whose name is not a token made a fixture file that the
    /// stub loader refuses ("'Cont\u{16}nt-Type' is not a valid header name"), so the imported folder did not load.
    @Test("A HAR entry with a response header name that is not a token is skipped, saying why; the rest loads")
    func harHeaderName() throws {
        let result = try HARImport.exchanges(
            from: HARImportTests.har(
                [
                    HARImportTests.entry(
                        url: "https://api.example.com/bad",
                        responseHeaders: #"[{"name": "Cont\u0016nt-Type", "value": "application/json"}]"#),
                    HARImportTests.entry(
                        url: "https://api.example.com/good",
                        responseHeaders: #"[{"name": "Content-Type", "value": "application/json"}]"#),
                ].joined(separator: ",")),
            pinsHost: false, redactor: Redactor())
        #expect(result.skipped == [
            #"entry 1: GET https://api.example.com/bad: the response header name "Cont\u{16}nt-Type" is not an HTTP token"#
        ])
        #expect(try loads(result.exchanges).count == 1)
    }

    /// From fuzz/targets/har.swift: an entry answered with status 100 was imported, and its fixture file was then
    /// refused by the stub loader ("status 100 is informational (1xx) and cannot be a stub's answer"), so the imported
    /// folder did not load. A browser's HAR keeps a WebSocket's 101 the same way.
    @Test("A HAR entry answered with a 1xx status is skipped, saying why; the rest loads", arguments: [100, 101, 199])
    func harInformationalStatus(status: Int) throws {
        let result = try HARImport.exchanges(
            from: HARImportTests.har(
                [
                    HARImportTests.entry(url: "https://api.example.com/socket", status: status),
                    HARImportTests.entry(url: "https://api.example.com/good", status: 200),
                ].joined(separator: ",")),
            pinsHost: false, redactor: Redactor())
        #expect(
            result.skipped == [
                "entry 1: GET https://api.example.com/socket: the answer recorded is \(status), informational (1xx), "
                    + "which cannot be a stub's answer"
            ])
        #expect(try loads(result.exchanges).count == 1)
    }

    /// From fuzz/targets/template.swift: a YAML base-60 integer too large for an Int (`-8888888888888888813:1:3`)
    /// trapped in Yams' arithmetic, which would end the daemon on loading or reloading such a stub file.
    @Test("A base-60 YAML integer too large for an Int is read as a float; one that fits is its value", arguments: [
        ("-8888888888888888813:1:3", #"{"n":-3.2e+22}"#), ("9999999999999999:59:59", #"{"n":3.6000000000000004e+19}"#),
        ("1:30", #"{"n":90}"#), ("-1_0:00", #"{"n":-600}"#), ("190:20:30", #"{"n":685230}"#),
    ])
    func sexagesimalOverflow(number: String, body: String) throws {
        let stub = try StubText.decodeOne("response:\n  json: { n: \(number) }")
        #expect(String(decoding: stub.response.body, as: UTF8.self) == body)
    }

    /// Firefox writes a repeated field as one value with line breaks between the values; such a value made a fixture
    /// file that the stub loader refuses ("the value of header 'link' contains a line break").
    @Test("A HAR response header value with line breaks becomes one field per line, and the fixture loads")
    func harHeaderLineBreaks() throws {
        let result = try HARImport.exchanges(
            from: HARImportTests.har(
                HARImportTests.entry(
                    responseHeaders: #"[{"name": "link", "value": "</a>; rel=next\n</b>; rel=last\r\n\n</c>; rel=first"}]"#)),
            pinsHost: false, redactor: Redactor())
        #expect(result.skipped.isEmpty)
        let exchange = try #require(result.exchanges.first)
        let links = ["</a>; rel=next", "</b>; rel=last", "</c>; rel=first"]
        #expect(exchange.responseHeaders.all(named: "Link") == links)
        let stubs = try loads(result.exchanges)
        #expect(stubs.first?.response.headers.all(named: "link") == links)
    }

    /// From fuzz/targets/har.swift: a URL with a literal brace in its path (`/rec/cookie{`) was written as the
    /// fixture's `url`, which the loader reads as a path parameter and refuses, so the imported folder did not load.
    @Test("A request path with braces is written so that it loads, and its fixture answers it",
        arguments: ["/rec/cookie{", "/a/{id}/b", "/x}y?q={z}"])
    func braces(target: String) throws {
        let result = try HARImport.exchanges(
            from: HARImportTests.har(HARImportTests.entry(url: "https://api.example.com\(target)")),
            pinsHost: false, redactor: Redactor())
        let exchange = try #require(result.exchanges.first)
        var file = FixtureFile(
            relativePath: FixtureLayout.routeFile(folder: exchange.folder, method: "GET", path: exchange.path),
            comment: "test")
        file.add(exchange)
        let (folder, index) = try FixtureFileTests.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(index.lookup(HTTPRequest(method: "GET", target: target)) != nil)
        #expect(index.lookup(HTTPRequest(method: "GET", target: target + "x")) == nil)
    }

    /// Writes the exchanges as fixture files and loads them as the daemon would.
    func loads(_ exchanges: [RecordedExchange]) throws -> [Stub] {
        var files: [String: FixtureFile] = [:]
        for exchange in exchanges {
            let route = FixtureLayout.routeFile(folder: exchange.folder, method: exchange.method, path: exchange.path)
            var file = files[route] ?? FixtureFile(relativePath: route, comment: "test")
            file.add(exchange)
            files[route] = file
        }
        let (folder, index) = try FixtureFileTests.load(Array(files.values))
        defer { try? FileManager.default.removeItem(at: folder) }
        return index.stubs.map(\.stub)
    }
}

@Suite("Fuzz regressions: regex")
struct RegexFuzzRegressionTests {
    /// From fuzz/targets/regex.swift: ICU reads POSIX class names without regard to case (`[[:^diGit:]]` is \D), and
    /// Orrery read a name with a capital as a nested class of its characters (`:`, `^`, `d`, `i`, `G`, `t`).
    @Test("POSIX class names are read without regard to case, as ICU reads them", arguments: [
        ("^[[:Digit:]]+$", "42", true), ("^[[:Digit:]]+$", ":Dgt", false), ("^[[:^diGit:]]+$", "ab", true),
        ("^[[:ALPHA:]]+$", "abC", true), ("^[[:Alpha:]]+$", "1", false), ("^[x[:XDigit:]]+$", "xF0", true),
    ])
    func posixNames(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }

    /// From fuzz/targets/regex.swift: outside a class, ICU reads `[:^digit:]` as the POSIX class itself (\D), and
    /// Orrery read it as a class of the characters `:`, `^`, `d`, `i`, `g`, `t`.
    @Test("[:name:] outside a class is the POSIX class, as ICU reads it", arguments: [
        ("^[:digit:]+$", "42", true), ("^[:digit:]+$", ":dig", false), ("^[:^digit:]", "\u{0}m", true),
        ("^[:upper:]$", "A", true), ("^[:Digit:]$", "7", true), ("^[:digit:]x$", "7x", true),
        ("^[:digit]$", ":", true),
    ])
    func posixOutsideClass(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }

    /// Found while checking the case above against ICU: a POSIX class ignored `(?i)`, inside a class or out.
    @Test("POSIX classes follow (?i), as in ICU", arguments: [
        ("(?i)^[[:upper:]]$", "a", true), ("(?i)^[:lower:]+$", "ABC", true), ("(?i)^[x[:upper:]]+$", "xaB", true),
        ("(?i)^[[:^upper:]]$", "a", false), ("^[[:upper:]]$", "a", false), ("(?i)^[[:digit:]]$", "a", false),
    ])
    func posixCase(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }

    /// From fuzz/targets/regex.swift: `\E` with no `\Q` before it matched the empty text; ICU reads it as the letter.
    @Test("A stray \\E is the letter E, as ICU reads it", arguments: [
        ("\\E", "", false), ("\\E", "E", true), ("^\\Eb$", "Eb", true), ("^a\\E$", "a", false),
        ("^\\Qa\\E$", "a", true),
    ])
    func strayEndOfQuote(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }

    /// From fuzz/targets/regex.swift: `\Qa.b\E?` repeated the whole quoted text, so it matched any text (by
    /// matching nothing); ICU repeats the last quoted character only, as it would after any literal.
    @Test("A quantifier after \\Q...\\E repeats the last quoted character, as ICU reads it", arguments: [
        ("\\Qa.b\\E?", "AXB", false), ("^\\Qa.b\\E?$", "a.", true), ("^\\Qa.b\\E?$", "a.b", true),
        ("^\\Qa.b\\E?$", "", false), ("^\\Qab\\E{2}$", "abb", true), ("^\\Qab\\E{2}$", "abab", false),
        ("^\\Qa\\E+$", "aaa", true), ("^(?:\\Qab\\E)?$", "", true),
    ])
    func quantifiedQuote(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }

    /// From fuzz/targets/regex.swift: `$` matched between the CR and the LF of a final CRLF, so `\r$` matched
    /// "\r\n"; ICU reads a CRLF as one terminator.
    @Test("$ and \\Z do not match inside a final CRLF, as ICU reads them", arguments: [
        ("\\r$", "\r\n", false), ("^a\\r$", "a\r\n", false), ("\\r\\Z", "\r\n", false), ("^\\r$", "\r\n", false),
        ("a$", "a\r\n", true), ("^a$", "a\r\n", true), ("\\r$", "\r", true), ("\\n$", "\r\n", true),
    ])
    func dollarInsideCRLF(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }

    @Test("An unknown POSIX class name with capitals is refused, as one in lower case is")
    func unknownPosixName() {
        #expect(throws: RegexSyntaxError("unknown POSIX class '[:Klingon:]' at offset 1")) { try Pattern("[[:Klingon:]]") }
    }
}
