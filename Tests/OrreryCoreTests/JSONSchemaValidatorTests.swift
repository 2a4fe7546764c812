import Testing
@testable import OrreryCore

/// The validator's own behaviour beyond the official suite: exact numbers, every violation with its pointers,
/// OpenAPI 3.0's dialect, compile errors with their place, and schemas that refer to themselves.
@Suite("JSON Schema validator")
struct JSONSchemaValidatorTests {
    static func validator(_ schema: String, _ dialect: JSONSchemaDialect = .draft2020_12) throws -> JSONSchemaValidator {
        try JSONSchemaValidator(schema: try JSONValue.parse(schema), dialect: dialect)
    }

    static func violations(_ schema: String, _ instance: String, _ dialect: JSONSchemaDialect = .draft2020_12) throws -> [String] {
        try validator(schema, dialect).validate(try JSONValue.parse(instance)).map { "\($0.instancePointer): \($0.message)" }
    }

    @Test("Numbers are read exactly from their text", arguments: [
        ("0.3", "0.1", true), ("0.0075", "0.0001", true), ("1e308", "0.123456789", false), ("4.5", "1.5", true),
        ("10000000000000000000000000001", "2", false), ("10000000000000000000000000002", "2", true), ("0", "7", true),
        ("12.5", "0.25", true), ("12.51", "0.25", false), ("1e-8", "1e-9", true),
    ])
    func multipleOf(value: String, step: String, isMultiple: Bool) throws {
        let number = try #require(DecimalNumber(value))
        #expect(number.isMultiple(of: try #require(DecimalNumber(step))) == isMultiple)
    }

    @Test("Comparison and integer checks hold past a Double's precision")
    func exactComparison() throws {
        let below = try #require(DecimalNumber("9999999999999999999"))
        let bound = try #require(DecimalNumber("1e19"))
        #expect(below < bound)
        #expect(Double("9999999999999999999") == Double("1e19"))  // what a Double would have got wrong
        #expect(try #require(DecimalNumber("-0.0")).isZero)
        #expect(try #require(DecimalNumber("1.0")).isInteger)
        #expect(try #require(DecimalNumber("12345678910111213141516171819e-3")).isInteger == false)
        #expect(try #require(DecimalNumber("-1.50")) < #require(DecimalNumber("-1.4")))
        #expect(DecimalNumber("1.") == nil || DecimalNumber("1.")?.isInteger == true)
        #expect(DecimalNumber("abc") == nil)
        #expect(try #require(DecimalNumber("-9223372036854775808")).int64Value == Int64.min)
        #expect(try #require(DecimalNumber("9223372036854775808")).int64Value == nil)
    }

    @Test("Bounds and multipleOf agree on the small path and the exact one", arguments: [
        (#"{"multipleOf": 0.01}"#, "9.99", true), (#"{"multipleOf": 0.01}"#, "9.999", false),
        (#"{"multipleOf": 0.01}"#, "-0.07", true), (#"{"multipleOf": 3}"#, "999999999999999999", true),
        (#"{"multipleOf": 0.3}"#, "999999999999999999.9", true), (#"{"maximum": 0.5}"#, "0.50000000000000000001", false),
        (#"{"minimum": -1.5}"#, "-1.5", true), (#"{"exclusiveMinimum": -1.5}"#, "-1.5", false),
        (#"{"maximum": 1e3}"#, "1000.0", true), (#"{"maximum": 123456789012345678}"#, "123456789012345678.1", false),
    ])
    func smallAndExactPaths(schema: String, instance: String, isValid: Bool) throws {
        #expect(try Self.violations(schema, instance).isEmpty == isValid)
    }

    @Test("Every violation is reported, each with the instance's pointer and the keyword's location")
    func everyViolation() throws {
        let schema = #"""
            {"type": "object", "required": ["a", "b"], "additionalProperties": false,
             "properties": {"a": {"type": "integer", "maximum": 3}, "list": {"items": {"type": "string", "minLength": 2}}}}
            """#
        let all = try Self.validator(schema).validate(try JSONValue.parse(#"{"a": 4, "list": ["ok", "x", 5], "c/d~": 1}"#))
        #expect(all.map(\.instancePointer) == ["/a", "/list/1", "/list/2", "", ""])
        #expect(all.map(\.message) == [
            "must be at most 3", "must be at least 2 characters long", "must be string, not an integer",
            "has the property 'c/d~', which the schema does not allow", "is missing the required property 'b'",
        ])
        #expect(all[1].schemaPointer == "urn:orrery:schema#/properties/list/items/minLength")
        #expect(all[3].schemaPointer == "urn:orrery:schema#/additionalProperties")
        let escaped = try Self.validator(#"{"properties": {"c/d~": {"type": "string"}}}"#).validate(try JSONValue.parse(#"{"c/d~": 1}"#))
        #expect(escaped.first?.instancePointer == "/c~1d~0")
        #expect(escaped.first?.schemaPointer == "urn:orrery:schema#/properties/c~1d~0/type")
    }

    @Test("OpenAPI 3.0: nullable widens type only, boolean exclusive bounds, a $ref's siblings ignored")
    func openAPI30() throws {
        #expect(try Self.violations(#"{"type": "string", "nullable": true}"#, "null", .openAPI30).isEmpty)
        #expect(try Self.violations(#"{"type": "string", "nullable": true, "enum": ["a"]}"#, "null", .openAPI30)
            == [": must be one of \"a\""])
        #expect(try Self.violations(#"{"type": "string", "nullable": true}"#, "null") == [": must be string, not null"])
        #expect(try Self.violations(#"{"minimum": 1, "exclusiveMinimum": true}"#, "1", .openAPI30) == [": must be greater than 1"])
        #expect(try Self.violations(#"{"type": "integer"}"#, "4.0", .openAPI30) == [": must be integer, not a number"])
        #expect(try Self.violations(#"{"type": "integer"}"#, "4.0").isEmpty)
        let reference = ##"{"$defs": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/s", "maxLength": 1}}}"##
        #expect(try Self.violations(reference, #"{"a": "long"}"#, .openAPI30).isEmpty)
        #expect(try Self.violations(reference, #"{"a": "long"}"#) == ["/a: must be at most 1 characters long"])
    }

    @Test("OpenAPI's formats: int32, int64, byte; and formats only assert on their own type", arguments: [
        (#"{"format": "int32"}"#, "2147483647", true), (#"{"format": "int32"}"#, "2147483648", false),
        (#"{"format": "int32"}"#, "-2147483648", true), (#"{"format": "int64"}"#, "9223372036854775807", true),
        (#"{"format": "int64"}"#, "9223372036854775808", false), (#"{"format": "int64"}"#, "1.5", false),
        (#"{"format": "int32"}"#, "\"text\"", true), (#"{"format": "byte"}"#, "\"aGVsbG8=\"", true),
        (#"{"format": "byte"}"#, "\"aGVsbG8\"", false), (#"{"format": "byte"}"#, "\"a*==\"", false),
        (#"{"format": "date"}"#, "\"2024-02-29\"", true), (#"{"format": "date"}"#, "\"2023-02-29\"", false),
        (#"{"format": "password"}"#, "\"anything\"", true), (#"{"format": "email"}"#, "12", true),
    ])
    func formats(schema: String, instance: String, isValid: Bool) throws {
        #expect(try Self.violations(schema, instance, .openAPI30).isEmpty == isValid)
    }

    @Test("Compile errors name the keyword's place", arguments: [
        (#"{"properties": {"a": {"pattern": "(?<=x)y"}}}"#, "urn:orrery:schema#/properties/a/pattern"),
        (##"{"items": {"$ref": "#/$defs/missing"}}"##, "urn:orrery:schema#/items/$ref"),
        (#"{"type": "text"}"#, "urn:orrery:schema#/type"),
        (#"{"minLength": -1}"#, "urn:orrery:schema#/minLength"),
        (#"{"multipleOf": 0}"#, "urn:orrery:schema#/multipleOf"),
        (#"{"allOf": []}"#, "urn:orrery:schema#/allOf"),
    ])
    func compileErrors(schema: String, location: String) throws {
        #expect {
            _ = try Self.validator(schema)
        } throws: { error in
            (error as? SchemaCompileError)?.schemaPointer == location
        }
    }

    @Test("A schema that refers to itself without going deeper stops with a violation, not a crash")
    func selfReference() throws {
        #expect(try Self.violations(##"{"allOf": [{"$ref": "#"}]}"##, "1").first?.contains("deeper than") == true)
        // Recursion that follows the instance down is fine.
        let tree = ##"{"type": "object", "properties": {"child": {"$ref": "#"}}, "required": ["v"]}"##
        #expect(try Self.violations(tree, #"{"v": 1, "child": {"v": 2, "child": {}}}"#) == ["/child/child: is missing the required property 'v'"])
    }

    @Test("Documents reference each other by URI, both ways")
    func acrossDocuments() throws {
        let documents = [
            "https://example.com/a.json": try JSONValue.parse(##"{"$defs": {"b": {"$ref": "b.json"}}, "type": "object", "properties": {"x": {"$ref": "#/$defs/b"}}}"##),
            "https://example.com/b.json": try JSONValue.parse(#"{"type": "array", "items": {"$ref": "a.json"}}"#),
        ]
        let compilation = try JSONSchemaValidator.compile(["https://example.com/a.json#"], documents: documents, dialect: .draft2020_12)
        let validator = try #require(compilation.validators.first)
        #expect(validator.isValid(try JSONValue.parse(#"{"x": [{"x": []}]}"#)))
        #expect(validator.validate(try JSONValue.parse(#"{"x": [{"x": 3}]}"#)).map(\.instancePointer) == ["/x/0/x"])
    }

    @Test("Keywords not checked are reported with their place")
    func unsupported() throws {
        let compilation = try JSONSchemaValidator.compile(
            ["urn:s#"], documents: ["urn:s": try JSONValue.parse(#"{"properties": {"a": {"unevaluatedItems": false}}, "if": {}}"#)],
            dialect: .openAPI30)
        #expect(compilation.unsupportedKeywords.map(\.description).sorted() == [
            "urn:s#/if: 'if' is not checked", "urn:s#/properties/a/unevaluatedItems: 'unevaluatedItems' is not checked",
        ])
    }

    static let order = """
        {"type": "object", "required": ["currency", "lines"], "additionalProperties": false,
         "properties": {"currency": {"type": "string", "enum": ["EUR", "USD"]}, "note": {"type": "string", "maxLength": 20},
          "ref": {"$ref": "#/$defs/code"}, "id": {"type": "integer", "readOnly": true},
          "lines": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "object", "required": ["sku", "price"],
            "properties": {"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
              "price": {"type": "number", "minimum": 0, "multipleOf": 0.01}, "tags": {"oneOf": [{"type": "string"}, {"type": "array"}]}}}}},
         "$defs": {"code": {"type": "string", "minLength": 2}}}
        """

    /// A body read on its bytes (`isSettledValid(json:)`) is "valid" only where the tree says so; anything in doubt
    /// is left to the tree, which says what is wrong.
    @Test(
        "Bodies checked on their bytes: valid ones settled, every other left to the tree",
        arguments: [
            (#"{"currency":"EUR","lines":[{"sku":"ABC-0001","price":12.5,"tags":"x"}]}"#, true),
            (
                #" {"lines": [{"price": 0, "sku": "XYZ-9999", "tags": ["a", {"b": null}]}], "currency": "USD", "note": "é ok"} "#,
                true
            ),
            (
                #"{"currency":"EUR","ref":"ab","lines":[{"sku":"ABC-0001","price":1},{"sku":"ABC-0002","price":2.01}]}"#,
                true
            ),
            (#"{"currency":"EUR","lines":[{"sku":"ABC-001","price":12.5}]}"#, false),  // pattern
            (#"{"currency":"EUR","lines":[{"sku":"ABC-0001","price":12.555}]}"#, false),  // multipleOf
            (#"{"currency":"EUR","lines":[{"sku":"ABC-0001"}]}"#, false),  // required
            (#"{"currency":"EUR","lines":[]}"#, false),  // minItems
            (#"{"currency":"EUR","lines":[{"sku":"ABC-0001","price":1}],"extra":1}"#, false),  // additionalProperties
            (#"{"currency":"EUR","currency":"EUR","lines":[{"sku":"ABC-0001","price":1}]}"#, false),  // duplicate key
            (#"{"currency":"EUR","lines":[{"sku":"ABC-0001","price":1,"tags":1}]}"#, false),  // oneOf
            (#"{"currency":"EUR","ref":"a","lines":[{"sku":"ABC-0001","price":1}]}"#, false),  // through $ref
            (#"{"currency":"EUR","id":1,"lines":[{"sku":"ABC-0001","price":1}]}"#, false),  // readOnly in a request
            (#"{"currency":"EUR","lines":[{"sku":"ABC-0001","price":1}]"#, false),  // not JSON
            (#"{"currency":"EUR","lines":[{"sku":"ABC-0001","price":1}]} x"#, false),
            (#"{"currency":"EUR","lines":[{"sku":"ABC-0001","price":01}]}"#, false),
        ])
    func settledOnBytes(body: String, isValid: Bool) throws {
        let validator = try Self.validator(Self.order)
        let bytes = Array(body.utf8)
        let tree = JSONBodyParser.parse(bytes)
        let violations = tree.map { validator.validate($0, direction: .request) }
        #expect((violations?.isEmpty ?? false) == isValid, "\(violations.map(String.init(describing:)) ?? "not JSON")")
        #expect(validator.isSettledValid(json: bytes, direction: .request) == isValid)
    }

    /// Property names are told apart on bytes by their length and first eight bytes, then the rest; named keys are
    /// bits of a mask (duplicates, `required`), others compared as bytes.
    @Test(
        "Bodies checked on their bytes: long names alike in their first eight bytes, required names that are no property",
        arguments: [
            (#"{"abcdefgh_one":1,"abcdefgh_two":"x","extra":null}"#, true),
            (#"{"abcdefgh_one":1,"extra":1,"abcdefgh_on":2}"#, true),
            (#"{"abcdefgh_one":"x","extra":1}"#, false),  // the other long name's type
            (#"{"abcdefgh_two":1,"abcdefgh_one":1,"extra":1}"#, false),
            (#"{"abcdefgh_one":1}"#, false),  // a required name that is no property
            (#"{"abcdefgh":1,"extra":1}"#, false),  // the first eight bytes alone are no name
            (#"{"abcdefgh_one":1,"abcdefgh_one":2,"extra":1}"#, false),  // a named key twice
            (#"{"abcdefgh_one":1,"extra":1,"extra":2}"#, false),  // another key twice
        ])
    func settledOnBytesNames(body: String, isValid: Bool) throws {
        let validator = try Self.validator(
            #"""
            {"type": "object", "required": ["abcdefgh_one", "extra"],
             "properties": {"abcdefgh_one": {"type": "integer"}, "abcdefgh_two": {"type": "string"}}}
            """#)
        let bytes = Array(body.utf8)
        let tree = JSONBodyParser.parse(bytes)
        #expect((tree.map { validator.isValid($0) } ?? false) == isValid)
        #expect(validator.isSettledValid(json: bytes) == isValid)
    }

    /// Keys are first compared with the names `properties` lists, the one after the last met first; strings are
    /// read eight bytes at a time. Names and values of every length around a word, in any order, against the tree.
    @Test(
        "Bodies checked on their bytes: names and strings around eight bytes, members in any order",
        arguments: [
            (#"{"id":"a","abcdefgh":"1234567","abcdefghi":"12345678","abcdefghijkl":"123456789"}"#, true),
            (#"{"abcdefghijkl":"123456789012345","abcdefghi":"1234567890123456","abcdefgh":"","id":"b"}"#, true),
            (#"{"abcdefgh":"12345678901234567","id":"c"}"#, true),
            (#"{"id":"a","ab":1}"#, true),  // a key no property names, shorter than one
            (#"{"id":"a","abcdefghij":1}"#, true),  // between two names' lengths
            (#"{"id":"a","abcdefghijkm":1}"#, true),  // a long name but for its last byte
            (#"{"id":"a","abcdefgh":"x","abcdefgh":"y"}"#, false),  // a named key twice
            (#"{"id":"a","abcdefghi":1}"#, false),  // the long name's type
            (#"{"abcdefgh":"x"}"#, false),  // required
            (#"{"id":"abcdefghijklmnopq"}"#, false),  // maxLength 16
            (#"{"id":"abcdefghijklmnop"}"#, true),
            (#"{"id":"abcdefghijklmnop","abcdefgh":"1234567\\"}"#, true),  // escaped values: read as a tree
            (#"{"id":"a\u0062"}"#, true),
            (#"{"id":"a\u0062cdefghijklmnopq"}"#, false),
            (#"{"id":"a","ab\u0063":1}"#, true),  // an escaped key: the long way
        ])
    func settledOnBytesWords(body: String, isValid: Bool) throws {
        let validator = try Self.validator(
            #"""
            {"type": "object", "required": ["id"],
             "properties": {"id": {"type": "string", "maxLength": 16}, "abcdefgh": {"type": "string"},
               "abcdefghi": {"type": "string"}, "abcdefghijkl": {"type": "string", "pattern": "^[0-9]+$"}}}
            """#)
        let bytes = Array(body.utf8)
        let tree = JSONBodyParser.parse(bytes)
        #expect((tree.map { validator.isValid($0) } ?? false) == isValid)
        // Settled exactly where valid, but for a body with an escaped key, which the whole body's tree compares.
        #expect(validator.isSettledValid(json: bytes) == (isValid && !body.contains(#"ab\u0063""#)))
    }

    /// Up to 64 properties are compared on bytes (the names met are bits of one word); members in the schema's
    /// order cost one comparison each, others more, and either way the answer is the tree's.
    @Test("Bodies checked on their bytes: an object of 40 properties, members in order, reversed, twice, missing")
    func settledOnBytesManyProperties() throws {
        let names = (0..<40).map { "field\($0)" }
        let schema =
            #"{"type": "object", "additionalProperties": false, "required": ["field39"], "properties": {"#
            + names.map { #""\#($0)": {"type": "integer"}"# }.joined(separator: ", ") + "}}"
        let validator = try Self.validator(schema)
        // Read member by member on the bytes, not handed whole to the tree.
        #expect(validator.program.byteShapes.shape(validator.root).pointee.object == .members)
        let members = names.enumerated().map { #""\#($1)": \#($0)"# }
        for (body, isValid) in [
            ("{" + members.joined(separator: ",") + "}", true),
            ("{" + members.reversed().joined(separator: ",") + "}", true),
            ("{" + (members + [members[3]]).joined(separator: ",") + "}", false),
            ("{" + members.dropLast().joined(separator: ",") + "}", false),
            ("{" + (members + [#""field40": 1"#]).joined(separator: ",") + "}", false),
        ] {
            let tree = JSONBodyParser.parse(Array(body.utf8))
            #expect((tree.map { validator.isValid($0) } ?? false) == isValid)
            #expect(validator.isSettledValid(json: Array(body.utf8)) == isValid)
        }
    }

    @Test("Bodies checked on their bytes: numbers read with their bounds, exclusive bounds and step")
    func settledOnBytesNumbers() throws {
        let validator = try Self.validator(
            #"""
            {"type": "array", "items": {"type": "number", "minimum": -1.5, "exclusiveMaximum": 100,
              "multipleOf": 0.25}}
            """#)
        for (body, isValid) in [
            ("[-1.5, 0, 0.25, 99.75, 12]", true), ("[100]", false), ("[-1.75]", false), ("[0.3]", false),
            ("[1e1]", true), ("[99.750000000000000001]", false), ("[-0]", true), ("[1.250]", true),
        ] {
            let tree = JSONBodyParser.parse(Array(body.utf8))
            #expect((tree.map { validator.isValid($0) } ?? false) == isValid, "\(body)")
            let isSettled = validator.isSettledValid(json: Array(body.utf8))
            #expect(!isSettled || isValid, "\(body)")
            // Written without an exponent and in 18 digits: settled when valid.
            if !body.contains("e"), body.count < 20 { #expect(isSettled == isValid, "\(body)") }
        }
    }

    @Test("Bodies checked on their bytes: keys with escapes, and keys beyond ASCII, go the long way")
    func settledOnBytesDoubts() throws {
        let validator = try Self.validator(#"{"type": "object", "properties": {"a": {"type": "integer"}}}"#)
        #expect(validator.isSettledValid(json: Array(#"{"a": 1, "b": [true, null, "x"]}"#.utf8)))
        #expect(!validator.isSettledValid(json: Array(#"{"\u0061": 1}"#.utf8)))
        #expect(validator.isValid(try JSONValue.parse(#"{"\u0061": 1}"#)))
        #expect(!validator.isSettledValid(json: Array(#"{"é": 1}"#.utf8)))
        #expect(!validator.isSettledValid(json: []))
        // Nested past the tree parser's depth: refused by both.
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(JSONBodyParser.parse(Array(deep.utf8)) == nil)
        #expect(!validator.isSettledValid(json: Array(deep.utf8)))
    }
}
