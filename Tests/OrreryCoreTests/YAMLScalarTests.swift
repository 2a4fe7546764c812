import Testing
import Yams
@testable import OrreryCore

@Suite("YAML scalars")
struct YAMLScalarTests {
    /// What Yams' default resolver (NSRegularExpression over YAML 1.1's patterns) makes of a plain scalar, with the
    /// kinds the parser keeps as text (timestamps, `<<`, `=`) folded into text.
    private func yamsTag(_ text: String) -> Yams.Tag.Name {
        let name = Yams.Tag.Name(rawValue: Node(text).tag.rawValue)
        return [.bool, .int, .float, .null].contains(name) ? name : .str
    }

    @Test("Untagged plain scalars resolve exactly as Yams' regular expressions resolve them", arguments: [
        "", "~", "null", "Null", "NULL", "nULL", "yes", "No", "ON", "oFF", "true", "True", "FALSE", "y", "n",
        "0", "-0", "+0", "00", "012", "08", "089", "0o17", "0o", "0o8", "0b101", "0b", "0b12", "0x1F", "0xg", "0x_",
        "1_000", "1__", "_1", "-_1", "1:30", "1:60", "1:5", "1:555", "0:30", "190:20:30", "1:30.5", "0:30.5",
        "1.", "1.5", ".5", "-.5", "._", ".5e+3", ".5e3", "1e5", "1E-5", "1e", "1.5e+", "+1.5e10", "1.2.3",
        ".inf", "-.inf", "+.INF", ".Inf", ".iNF", ".nan", "-.nan", ".NaN", "nan", "inf", "2024-01-31", "<<", "=",
        "12abc", "0x1p3", "1 2", "- 1", "+", "-", ".", "1_", "1e+5_",
    ])
    func curated(text: String) {
        #expect(YAMLImplicitTag.of(text) == yamsTag(text), "\(text)")
    }

    @Test("...and so do 20,000 short strings made of the characters that matter")
    func generated() {
        let alphabet = Array("0159_.:-+eExXbBoOa~nNulLIiF ")
        var generator = SplitMix64(seed: 0x0_5EED)
        var differences: [String] = []
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 7)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            if YAMLImplicitTag.of(text) != yamsTag(text) { differences.append(text) }
        }
        #expect(differences.isEmpty, "\(differences.prefix(20))")
    }

    @Test("A tag written in the file wins; quoted scalars are text; untagged plain ones resolve")
    func explicitTags() throws {
        let node = try YAMLSourceParser.parse(
            """
            a: !!str 123
            b: &x !!str 5
            c: *x
            d: 123
            e: "123"
            f: yes
            g: ~
            h: 0x1F
            i: [ !!str 9, 10, é ]
            j: &y 12
            k: !!int "11"
            """)
        func value(_ key: String) -> SourceNode.Value? { node[key]?.value }
        #expect(node["a"]?.scalarText == "123" && node["a"]?.kindName == "a string")
        #expect(node["b"]?.kindName == "a string")
        #expect(node["c"]?.kindName == "a string")
        #expect(node["d"]?.kindName == "a number")
        #expect(node["e"]?.kindName == "a string")
        #expect(node["f"]?.kindName == "a string" && node["f"]?.scalarText == "yes")
        #expect(node["g"]?.kindName == "null")
        #expect(node["h"]?.scalarText == "31")
        guard case .array(let items)? = value("i") else { Issue.record("i is not a list"); return }
        #expect(items.map(\.kindName) == ["a string", "a number", "a string"])
        #expect(node["j"]?.kindName == "a number")
        #expect(node["k"]?.kindName == "a number")
    }
}

/// A small seeded generator, so a failure names strings that come back on every run.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
