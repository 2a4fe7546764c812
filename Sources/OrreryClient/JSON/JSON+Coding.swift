import Foundation

extension JSON {
    /// The value as compact JSON text, object members in their order.
    public var encoded: String {
        var text = ""
        write(to: &text)
        return text
    }

    /// The value as UTF-8 JSON, ready to send.
    var data: Data { Data(encoded.utf8) }

    /// Parses JSON text. Object members come back in key order: the text's own order is not kept.
    public init(parsing data: Data) throws {
        self = try JSONDecoder().decode(JSON.self, from: data)
    }

    /// Any `Encodable` value as JSON, as `JSONEncoder` writes it.
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws {
        try self.init(parsing: encoder.encode(value))
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .number(let number): text += Self.format(number)
        case .string(let string): Self.quote(string, into: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                Self.quote(member.key, into: &text)
                text += ":"
                member.value.write(to: &text)
            }
            text += "}"
        }
    }

    /// Whole numbers without a fraction; JSON has no NaN or infinity, so those become `null`.
    private static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    private static func quote(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension JSON: Codable {
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                try container.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
                    (key: key.stringValue, value: try container.decode(JSON.self, forKey: key))
                })
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSON] = []
            while !container.isAtEnd { elements.append(try container.decode(JSON.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if number.rounded() == number, let whole = Int(exactly: number) {
                try container.encode(whole)
            } else {
                try container.encode(number)
            }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in members { try container.encode(value, forKey: AnyKey(key)) }
        }
    }

    /// A coding key for whatever names an object has.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
