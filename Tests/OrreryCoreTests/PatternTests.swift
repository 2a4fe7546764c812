import Testing
@testable import OrreryCore

@Suite("Regular expressions in stubs")
struct PatternTests {
    @Test("The ICU syntax stub files use matches as Nocilla's NSRegularExpression did", arguments: [
        ("^/api/v1/users/[0-9]+$", "/api/v1/users/42", true),
        ("^/api/v1/users/[0-9]+$", "/api/v1/users/42/posts", false),
        ("users/\\d+", "/api/v1/users/7?x=1", true),  // unanchored: anywhere in the text
        ("^Bearer .+", "Bearer abc", true),
        ("^Bearer .+", "Basic abc", false),
        ("(?i)^application/json", "Application/JSON; charset=utf-8", true),
        ("^[\\w.-]+@example\\.com$", "ada.l@example.com", true),
        ("^a{2,3}$", "aaaa", false),
        ("^(GET|HEAD)$", "HEAD", true),
        ("^x.y$", "x\ny", false),  // `.` does not cross a line break
        ("^/caf\\u00E9$", "/café", true),
    ])
    func matches(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected)
    }

    @Test("Matching is on Unicode scalars, as ICU's: a combining accent is a character of its own")
    func unicodeScalars() throws {
        let decomposed = "e\u{301}"
        #expect(try Pattern("^e.$").matches(decomposed))
        #expect(try !Pattern("^.$").matches(decomposed))
    }

    @Test("An escaped literal matches itself and nothing else", arguments: [
        "/api/v1.0", "/a+b/(c)", "/x[1]{2}", "/cost$|^/free", "/back\\slash", "/*?",
    ])
    func escaped(literal: String) throws {
        let pattern = try Pattern("^" + Pattern.escaped(literal) + "$")
        #expect(pattern.matches(literal))
        #expect(!pattern.matches(literal + "x"))
        #expect(!pattern.matches(String(literal.dropLast()) + "_"))
    }
}
