import Foundation
import OrreryClient
import Testing

@Suite struct JSONTests {
    @Test func encodesCompactlyInTheOrderWritten() {
        let value: JSON = ["b": 1, "a": [true, nil, 1.5, "x\"y\n\u{1}"], "c": ["z": -3]]
        #expect(value.encoded == #"{"b":1,"a":[true,null,1.5,"x\"y\n\u0001"],"c":{"z":-3}}"#)
        #expect(JSON.number(.infinity).encoded == "null")
        #expect(JSON.number(1e20).encoded == "1e+20")
    }

    @Test func parsesAndComparesObjectsWhateverTheirOrder() throws {
        let parsed = try JSON(parsing: Data(#"{"a": [1, 2.5, "three", false, null], "b": {"c": true}}"#.utf8))
        #expect(parsed == ["b": ["c": true], "a": [1, 2.5, "three", false, nil]])
        #expect(parsed["a"]?[1]?.doubleValue == 2.5)
        #expect(parsed["a"]?[0]?.intValue == 1)
        #expect(parsed["a"]?[4]?.isNull == true)
        #expect(parsed["b"]?["c"]?.boolValue == true)
        #expect(parsed["missing"] == nil)
        #expect(Set<JSON>([["x": 1, "y": 2], ["y": 2, "x": 1]]).count == 1)
    }

    @Test func roundTripsThroughCodable() throws {
        let value: JSON = ["list": [1, "two"], "flag": false, "nothing": nil]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == value)
        struct Point: Encodable { let x: Int; let y: Double }
        #expect(try JSON(encoding: Point(x: 1, y: 0.5)) == ["x": 1, "y": 0.5])
    }
}
