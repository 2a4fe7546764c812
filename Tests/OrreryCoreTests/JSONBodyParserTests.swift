import Testing
@testable import OrreryCore

@Suite("JSONBodyParser")
struct JSONBodyParserTests {
    @Test(
        "Accepts and refuses what the stub parser does, with the same values",
        arguments: [
            #"{"a": [1, 2.50, -0.1e+3, true, false, null], "b": {"c": "d\"e\\f\/g\u00e9\ud83d\ude00"}}"#,
            "  [ ]  ", "{}", "0", "-0", "1E5", "\"x\"", "\u{FEFF}[1]", "\"tab\there\"",
            "01", "1.", ".5", "-", "1.2.3", "+1", "[1,]", "{\"a\":1,}", "{\"a\":1,\"a\":2}", "\"line\nbreak\"",
            "[1] x", "tru", "nul", "\"\\x\"", "\"\\ud800\"", "\"\\ud800\\u0041\"", "\"\\u12\"", "{\"a\" 1}", "[", "\"open",
            "", " ", String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ])
    func differential(text: String) {
        let expected = try? JSONValue.parse(text)
        let actual = JSONBodyParser.parse(Array(text.utf8))
        #expect((expected == nil) == (actual == nil))
        if let expected, let actual {
            #expect(expected.encoded == actual.encoded)
        }
    }
}
