import Foundation
import Testing
@testable import OrreryCore

@Suite("Body matchers: xml and xpath")
struct XMLBodyMatcherTests {
    let order = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- an order -->
        <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
          <soap:Body>
            <order id="42" currency='EUR'>
              <item sku="A-1"><qty>2</qty><price>9.50</price></item>
              <item sku="B-2"><qty>1</qty><price>20</price></item>
              <note><![CDATA[fragile & <boxed>]]></note>
              <customer>Ada &amp; Co &#x41;</customer>
            </order>
          </soap:Body>
        </soap:Envelope>
        """

    func matches(_ yaml: String, body: String? = nil) throws -> Bool {
        let stub = try StubText.decodeOne("request:\n  \(yaml)\nresponse: {}")
        return stub.request.matches(.make(method: "POST", target: "/", body: body ?? order))
    }

    @Test(
        "xpath: paths, axes, predicates, functions and comparisons",
        arguments: [
            ("//item", true),
            ("//missing", false),
            ("/soap:Envelope/soap:Body/order/@id", true),
            ("/s:Envelope/s:Body/order", true),
            ("/Envelope", false),
            ("//order[@id='42']", true),
            ("//order[@id='43']", false),
            ("//item[2]/@sku = 'B-2'", true),
            ("//item[last()]/qty = 1", true),
            ("count(//item) = 2", true),
            ("count(//item) > 2", false),
            ("sum(//item/price) = 29.5", true),
            ("//item[qty > 1]/@sku = 'A-1'", true),
            ("//item[count(preceding::item) < 1]/@sku = 'A-1'", true),
            ("//item[following-sibling::item]/@sku = 'A-1'", true),
            ("//qty[../@sku='B-2'] = 1", true),
            ("contains(//note, 'fragile & <boxed>')", true),
            ("//customer = 'Ada & Co A'", true),
            ("starts-with(//order/@currency, 'EU') and not(//refund)", true),
            ("//order/@currency = 'USD' or //order/@id = 42", true),
            ("string-length(normalize-space(' a  b ')) = 3", true),
            ("local-name(/*) = 'Envelope' and name(/*) = 'soap:Envelope'", true),
            ("//item/@sku | //order/@id", true),
            ("(//item)[1]/qty = 2", true),
            ("//item[position() = 2 and qty = 1]", true),
            ("//*[@sku='B-2']/descendant::text() = '20'", true),
            ("//price/ancestor::order/@id = '42'", true),
            ("false()", false),
            ("string(//order/@missing)", false),
        ] as [(String, Bool)])
    func xpath(expression: String, expected: Bool) throws {
        let yaml = "body: { xpath: \"\(expression.replacingOccurrences(of: "\"", with: "\\\""))\" }"
        #expect(try matches(yaml) == expected, "\(expression)")
    }

    @Test("xpath with equalTo, matches and contains: any selected node's text")
    func xpathConditions() throws {
        #expect(try matches(#"body: { xpath: "//item/@sku", equalTo: B-2 }"#))
        #expect(try !matches(#"body: { xpath: "//item/@sku", equalTo: C-3 }"#))
        #expect(try matches(#"body: { xpath: "//item/price", matches: "^9\\.5" }"#))
        #expect(try matches(#"body: { xpath: "//customer", contains: "& Co" }"#))
        #expect(try matches(#"body: { xpath: "count(//item)", equalTo: "2" }"#))
        #expect(try !matches(#"body: { xpath: "//item" }"#, body: "{\"item\": 1}"))
        #expect(try !matches(#"body: { xpath: "//item" }"#, body: "<a><item></a>"))
    }

    @Test("xml: the same document, whitespace between elements, comments and attribute order aside")
    func xml() throws {
        let expected = #"body: { xml: "<a x='1' y='2'><b>text</b><c/></a>" }"#
        #expect(try matches(expected, body: "<a y=\"2\" x=\"1\">\n  <b> text </b>\n  <!-- c -->\n  <c></c>\n</a>"))
        #expect(try matches(expected, body: "<?xml version=\"1.0\"?><a x='1' y='2'><b>text</b><c/></a>"))
        #expect(try !matches(expected, body: "<a x='1' y='3'><b>text</b><c/></a>"))
        #expect(try !matches(expected, body: "<a x='1' y='2'><b>text</b></a>"))
        #expect(try !matches(expected, body: "<a x='1' y='2'><c/><b>text</b></a>"))
        #expect(try !matches(expected, body: "not xml"))
    }

    @Test(
        "Bad xpath and xml are load errors with the line",
        arguments: [
            (#"body: { xpath: "//a[" }"#, "'xpath' //a[: the expression ends too early"),
            (#"body: { xpath: "foo(//a)" }"#, "the function foo() is not supported"),
            (#"body: { xpath: "$x" }"#, "variables ($name) are not supported"),
            (#"body: { xpath: "//a", equals: b }"#, "not 'equals'; did you mean 'equalTo'?"),
            (#"body: { xml: "<a><b></a>" }"#, "'xml' is not an XML document (</a> closes <b>"),
            (#"body: { xml: "<a>" }"#, "<a> is never closed"),
            (#"body: { xpth: "//a" }"#, "did you mean 'xpath'?"),
        ] as [(String, String)])
    func errors(yaml: String, message: String) {
        do {
            _ = try StubText.decodeOne("request:\n  \(yaml)\nresponse: {}")
            Issue.record("no error for \(yaml)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
            #expect("\(error)".contains(":2:"), "\(error)")
        }
    }

    @Test("Hostile XML: deep nesting is refused, not a crash")
    func deepNesting() {
        let deep = String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
        #expect(XMLTree(Array(deep.utf8)) == nil)
        let fine = String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200)
        #expect(XMLTree(Array(fine.utf8)) != nil)
    }
}
