import Foundation
import OrreryCore
import OrreryOpenAPI
import Testing

/// How the spec's router and parameter checks read a request as written: path and query values with escapes and
/// `+`, literal segments written with escapes or beyond ASCII, repeated and encoded query names, media types with
/// parameters and in any case. The router and the query reading work on bytes in place; these hold them to what
/// the decoded request says.
@Suite("OpenAPI mock: reading paths, queries and media types")
struct OpenAPIRequestReadingTests {
    static let mock = OpenAPIFixtures.mock("reading-3.0.yaml")

    static func answer(_ target: String, method: String = "GET", headers: HTTPHeaders = [:], body: String = "")
        -> OpenAPIAnswer?
    {
        OpenAPIFixtures.answer(mock, target, method: method, headers: headers, body: body)
    }

    /// The problem's errors as `location pointer`.
    static func pointers(_ answer: OpenAPIAnswer?) -> [String] {
        OpenAPIFixtures.errors(answer, withMessages: false)
    }

    @Test("A path value is decoded after the path is split: %2F is a slash in the value, not a separator")
    func pathValues() {
        #expect(Self.mock.specs.count == 1)
        #expect(Self.answer("/base/files/a%2Fb")?.operationId == "file")
        #expect(Self.answer("/base/files/a%2Fb")?.status == 200)
        #expect(Self.answer("/base/files/a/b") == nil)
        #expect(Self.answer("/base/files/x%20y")?.status == 200)
        #expect(Self.answer("/base/files/%C3%A9")?.status == 200)
        #expect(Self.answer("/base/files/x+y")?.status == 422)
        #expect(Self.pointers(Self.answer("/base/files/a%2Fc")) == ["path /name"])
        // The path ends at `?` or `#`; HEAD finds the GET operation; a proxy's absolute form is read for its path.
        #expect(Self.answer("/base/files/a%2Fb#x%2F")?.status == 200)
        #expect(Self.answer("/base/files/a%2Fb?q=1")?.status == 200)
        #expect(Self.answer("/base/files/a%2Fb", method: "HEAD")?.status == 200)
        #expect(Self.answer("http://api.example.com/base/files/a%2Fb?x")?.status == 200)
        #expect(Self.answer("/base/files/a%2Fb", method: "PUT")?.status == 405)
        #expect(Self.answer("/base/files/") == nil)
    }

    @Test("A value with text around it (`{name}.json`) is the text between, never empty")
    func valueWithSuffix() {
        #expect(Self.answer("/base/docs/abc.json")?.status == 200)
        #expect(Self.pointers(Self.answer("/base/docs/abcd.json")) == ["path /name"])
        #expect(Self.answer("/base/docs/%61bc.json")?.status == 200)
        #expect(Self.answer("/base/docs/abc") == nil)
        #expect(Self.answer("/base/docs/.json") == nil)
    }

    @Test("A literal segment matches written with escapes, and beyond ASCII as Swift compares strings")
    func literalSegments() {
        #expect(Self.answer("/base/%66iles/a%2Fb")?.operationId == "file")
        #expect(Self.answer("/base/caf%C3%A9/7")?.operationId == "cafe")
        #expect(Self.answer("/base/café/7")?.operationId == "cafe")
        // `e` and a combining acute accent: the same text as `é`.
        #expect(Self.answer("/base/cafe\u{301}/7")?.operationId == "cafe")
        #expect(Self.answer("/base/cafe/7") == nil)
        #expect(Self.answer("/base/café/x")?.status == 400)
    }

    @Test("A query value is decoded: %XX escapes, + as a space, = after the first kept in the value")
    func queryValues() {
        #expect(Self.answer("/base/search?q=a+b")?.status == 200)
        #expect(Self.answer("/base/search?q=a%20b")?.status == 200)
        #expect(Self.answer("/base/search?q=c%2Bd")?.status == 200)
        #expect(Self.pointers(Self.answer("/base/search?q=c+d")) == ["query /q"])
        #expect(Self.answer("/base/search?q=%C3%BC")?.status == 200)
        #expect(Self.answer("/base/search?q=x=y")?.status == 200)
        // A name without `=` has an empty value.
        #expect(Self.pointers(Self.answer("/base/search?q")) == ["query /q"])
        #expect(Self.answer("/base/search?&&on=true&&")?.status == 200)
        #expect(Self.answer("/base/search?on=maybe")?.status == 400)
        // A schema of `type: string` and annotations takes any text; one that says more is still checked.
        #expect(Self.answer("/base/search?tag=%C3%BC+x&tag=&code=ab")?.status == 200)
        #expect(Self.answer("/base/search?tag")?.status == 200)
        #expect(Self.pointers(Self.answer("/base/search?tag=x&code=a")) == ["query /code"])
    }

    @Test("A repeated name: a scalar reads the first value, an array every one; a name is compared decoded")
    func queryNames() {
        #expect(Self.answer("/base/search?n=1&n=5")?.status == 200)
        #expect(Self.pointers(Self.answer("/base/search?n=5&n=1")) == ["query /n"])
        #expect(Self.pointers(Self.answer("/base/search?%6E=5")) == ["query /n"])
        #expect(Self.pointers(Self.answer("/base/search?q=zz&n=5")) == ["query /q", "query /n"])
        #expect(Self.answer("/base/search?n+=5&nn=5&N=5")?.status == 200)
        #expect(Self.answer("/base/search?ids=1")?.status == 200)
        #expect(Self.pointers(Self.answer("/base/search?ids=1&x=2&ids=2")) == ["query /ids"])
        #expect(Self.answer("/base/search?ids=1&ids=x")?.status == 400)
    }

    @Test("Media types are read without their parameters and in any case, from fields named in any case")
    func mediaTypes() {
        let note = #"{"text": "hi"}"#
        let odd: HTTPHeaders = ["content-type": "Application/JSON; charset=utf-8"]
        let made = Self.answer("/base/notes", method: "POST", headers: odd, body: note)
        #expect(made?.status == 201)
        #expect(made?.body.text == #"{"id":1}"#)
        #expect(
            Self.answer("/base/notes", method: "POST", headers: ["Content-Type": " application/json"], body: note)?
                .status == 201)
        #expect(
            Self.pointers(
                Self.answer("/base/notes", method: "POST", headers: ["Content-Type": "text/plain"], body: note)) == [
                    "header /Content-Type"
                ])
        #expect(Self.pointers(Self.answer("/base/notes", method: "POST", body: note)) == ["header /Content-Type"])
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(Self.pointers(Self.answer("/base/notes", method: "POST", headers: json, body: "{}")) == ["body "])
        var text = json
        text.add("ACCEPT", "Text/Plain;q=0.9")
        #expect(Self.answer("/base/notes", method: "POST", headers: text, body: note)?.body.text == "made")
        var any = json
        any.add("accept", "text/*")
        #expect(Self.answer("/base/notes", method: "POST", headers: any, body: note)?.body.text == "made")
        var wild = json
        wild.add("Accept", "*/*")
        #expect(Self.answer("/base/notes", method: "POST", headers: wild, body: note)?.body.text == #"{"id":1}"#)
        var prefer = json
        prefer.add("prefer", "code=201")
        prefer.add("PREFER", "example=none")
        #expect(Self.answer("/base/notes", method: "POST", headers: prefer, body: note)?.status == 201)
    }
}
