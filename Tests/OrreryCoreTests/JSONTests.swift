import Testing
@testable import OrreryCore

@Suite("JSON")
struct JSONTests {
    @Test("Parse then encode gives the text back: key order and number text are kept", arguments: [
        #"{"b":1,"a":2,"c":{"z":null,"y":[]}}"#,
        #"[1.50,-0,2e3,1E-7,-12.0e+2,0.1,12345678901234567890]"#,
        #"[true,false,null,"x",{},[]]"#,
        #""just a string""#,
        "42",
        "null",
    ])
    func roundTrip(text: String) throws {
        #expect(try JSONValue.parse(text).encoded == text)
    }

    @Test("Whitespace is dropped on encoding, and prettyEncoded indents")
    func whitespace() throws {
        let value = try JSONValue.parse("{ \"a\" : [ 1 , 2 ] ,\n \"b\" : { } }")
        #expect(value.encoded == #"{"a":[1,2],"b":{}}"#)
        #expect(value.prettyEncoded == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
    }

    @Test("Escapes and \\u sequences, including surrogate pairs, decode")
    func escapes() throws {
        let value = try JSONValue.parse(#""q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u4e2d \ud83d\ude00""#)
        #expect(value == .string("q\" b\\ s/ \u{08}\u{0C}\n\r\t Aé中 😀"))
    }

    @Test("Strings encode with the escapes JSON needs, and parse back")
    func encodeEscapes() throws {
        let text = "q\" b\\ s/ \u{08}\u{0C}\n\r\t\u{01} é 😀"
        let encoded = JSONValue.string(text).encoded
        #expect(encoded == #""q\" b\\ s/ \u0008\u000c\n\r\t\u0001 é 😀""#)
        #expect(try JSONValue.parse(encoded) == .string(text))
    }

    @Test("Raw UTF-8 in strings is kept", arguments: ["café", "中文", "😀", "e\u{301}"])
    func utf8(text: String) throws {
        #expect(try JSONValue.parse("\"\(text)\"") == .string(text))
    }

    @Test("Bad \\u escapes are errors", arguments: [
        #""\ud83d""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\ude00""#, #""\u12""#, #""\uzzzz""#, #""\x""#,
    ])
    func badUnicodeEscapes(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
    }

    @Test(
        "Numbers and escapes that JSON forbids are refused",
        arguments: ["01", "-01", "[1.]", #""\u+041""#])
    func forbiddenSpellings(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
    }

    @Test("Equality ignores object key order and compares numbers by value")
    func equality() throws {
        #expect(try JSONValue.parse(#"{"a":1,"b":{"c":[1,2],"d":true}}"#) == JSONValue.parse(#"{"b":{"d":true,"c":[1,2]},"a":1.0}"#))
        #expect(try JSONValue.parse("[1,2]") != JSONValue.parse("[2,1]"))
        #expect(try JSONValue.parse(#"{"a":1}"#) != JSONValue.parse(#"{"a":1,"b":2}"#))
        #expect(try JSONValue.parse(#"{"a":1,"b":2}"#) != JSONValue.parse(#"{"a":1}"#))
        #expect(try JSONValue.parse(#"{"a":null}"#) != JSONValue.parse("{}"))
        #expect(try JSONValue.parse("1e2") == JSONValue.parse("100"))
        #expect(try JSONValue.parse(#""1""#) != JSONValue.parse("1"))
        #expect(try JSONValue.parse("0") != JSONValue.parse("false"))
        #expect(try JSONValue.parse("null") != JSONValue.parse(#""""#))
    }

    @Test("Subscript and stringValue")
    func accessors() throws {
        let value = try JSONValue.parse(#"{"name":"orrery","n":1}"#)
        #expect(value["name"]?.stringValue == "orrery")
        #expect(value["n"]?.stringValue == nil)
        #expect(value["missing"] == nil)
        #expect(JSONValue.array([])["name"] == nil)
        #expect(JSONValue.int(-7).encoded == "-7")
        #expect(JSONValue.string(nil) == .null)
    }

    @Test("Source nodes carry the line of each value and key")
    func lines() throws {
        let node = try JSONSourceParser.parse(Array("{\n  \"a\": 1,\n  \"b\": [\n    true,\n    \"x\"\n  ]\n}".utf8))
        #expect(node.line == 1)
        guard case .object(let members) = node.value else {
            Issue.record("expected an object")
            return
        }
        #expect(members.map { $0.key } == ["a", "b"])
        #expect(members.map { $0.keyLine } == [2, 3])
        #expect(members.map { $0.value.line } == [2, 3])
        guard case .array(let items) = members[1].value.value else {
            Issue.record("expected a list")
            return
        }
        #expect(items.map(\.line) == [4, 5])
    }

    @Test("A UTF-8 byte order mark at the start is tolerated")
    func byteOrderMark() throws {
        #expect(try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)) == .object([("a", .int(1))]))
    }

    @Test("Syntax errors carry the line they were found on", arguments: [
        ("", 1, "unexpected end of JSON"),
        ("{\n  \"a\": 1,\n}", 3, "expected a quoted key"),
        ("[1,\n2,", 2, "unexpected end of JSON"),
        ("{\"a\": tru}", 1, "unexpected word; expected 'true'"),
        ("{\"a\": \"x\ny\"}", 1, "line break inside a string; write it as \\n"),
        ("{\n\"a\": 1,\n\"a\": 2\n}", 3, "duplicate key 'a'"),
        ("{}\n\n x", 3, "unexpected text after the JSON value"),
        ("[1 2]", 1, "expected ',' or ']' in a list"),
        ("{\n\n\"a\" 1}", 3, "expected ':' after key 'a'"),
        ("[\n\n  1.2.3]", 3, "malformed number '1.2.3'"),
        ("[\n  -]", 2, "malformed number '-'"),
        ("\n\n  +1", 3, "unexpected character '+'"),
        ("[\n\n  'x']", 3, "unexpected character '''"),
        ("[\"a\\qb\"]", 1, "invalid escape '\\q' in a string"),
        ("{\"a\": [1,\n 2", 2, "unexpected end of JSON; a list is not closed"),
        ("{\"a\": 1\n", 2, "unexpected end of JSON; an object is not closed"),
        ("\"abc", 1, "unexpected end of JSON inside a string"),
    ])
    func syntaxErrors(text: String, line: Int, message: String) {
        #expect(throws: JSONSyntaxError(line: line, message: message)) { try JSONValue.parse(text) }
    }

    @Test("Deep nesting is refused with an error, not a crash", arguments: ["[", "{\"a\":"])
    func deepNesting(opener: String) {
        let text = String(repeating: opener, count: 10_000)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
        #expect(error?.message.contains("nesting deeper than") == true)
    }

    @Test("Nesting within the limit parses")
    func nestingWithinLimit() throws {
        let text = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(try JSONValue.parse(text).encoded == text)
    }

    @Test("Nesting is refused just past the limit, wherever the text ends")
    func nestingLimitEdge() {
        let open = String(repeating: "[", count: 513)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(open + String(repeating: "]", count: 513)) }
    }
}
