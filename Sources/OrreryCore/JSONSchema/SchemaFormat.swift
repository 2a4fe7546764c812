/// The `format`s Orrery checks. Others (`password`, `binary`, `hostname`, ...) are annotations and accept anything,
/// as JSON Schema lets a validator treat formats it does not know.
enum SchemaFormat: String, Sendable, CaseIterable {
    case dateTime = "date-time"
    case date
    case email
    case uuid
    case uri
    case ipv4
    case int32
    case int64
    case byte

    /// Whether the value passes the format. String formats pass every non-string and number formats every
    /// non-number, as the keyword applies only to its own type.
    func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.int32, .number(_, let text)): return Self.isInteger(text, in: Int64(Int32.min)...Int64(Int32.max))
        case (.int64, .number(_, let text)): return Self.isInteger(text, in: Int64.min...Int64.max)
        case (.int32, _), (.int64, _): return true
        case (_, .string(let text)): return accepts(text)
        default: return true
        }
    }

    private func accepts(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        switch self {
        case .dateTime: return Self.isDateTime(bytes)
        case .date: return bytes.count == 10 && Self.date(bytes[...]) != nil
        case .email: return Self.isEmail(bytes)
        case .uuid: return Self.isUUID(bytes)
        case .uri: return Self.isURI(bytes)
        case .ipv4: return Self.isIPv4(bytes[...])
        case .byte: return Self.isBase64(bytes)
        case .int32, .int64: return true
        }
    }

    private static func isInteger(_ text: String, in range: ClosedRange<Int64>) -> Bool {
        if let small = SmallDecimal(text), small.scale == 0 { return range.contains(small.significand) }
        guard let number = DecimalNumber(text), number.isInteger, let value = number.int64Value else { return false }
        return range.contains(value)
    }

    // MARK: dates (RFC 3339)

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.allSatisfy(isDigit) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// `YYYY-MM-DD` with a day that exists in that month.
    private static func date(_ bytes: ArraySlice<UInt8>) -> (year: Int, month: Int, day: Int)? {
        let start = bytes.startIndex
        guard bytes.count == 10, bytes[start + 4] == UInt8(ascii: "-"), bytes[start + 7] == UInt8(ascii: "-"),
            let year = number(bytes[start..<start + 4]), let month = number(bytes[start + 5..<start + 7]),
            let day = number(bytes[start + 8..<start + 10]), (1...12).contains(month), day >= 1
        else { return nil }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days ? (year, month, day) : nil
    }

    private static func isDateTime(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 20, date(bytes[0..<10]) != nil, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t")
        else { return false }
        let time = bytes[11...]
        let start = time.startIndex
        guard time.count >= 9, time[start + 2] == UInt8(ascii: ":"), time[start + 5] == UInt8(ascii: ":"),
            let hour = number(time[start..<start + 2]), let minute = number(time[start + 3..<start + 5]),
            let second = number(time[start + 6..<start + 8]), hour <= 23, minute <= 59, second <= 60
        else { return false }
        var index = start + 8
        if time[index] == UInt8(ascii: ".") {
            index += 1
            let digitsStart = index
            while index < time.endIndex && isDigit(time[index]) { index += 1 }
            guard index > digitsStart else { return false }
        }
        guard index < time.endIndex else { return false }
        var offsetMinutes = 0
        switch time[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == time.endIndex else { return false }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let offset = time[(index + 1)...]
            let at = offset.startIndex
            guard offset.count == 5, offset[at + 2] == UInt8(ascii: ":"), let hours = number(offset[at..<at + 2]),
                let minutes = number(offset[at + 3..<at + 5]), hours <= 23, minutes <= 59
            else { return false }
            offsetMinutes = (hours * 60 + minutes) * (time[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return false
        }
        // A leap second is only ever the last second of a day in UTC.
        if second == 60 {
            let utcMinutes = ((hour * 60 + minute - offsetMinutes) % 1440 + 1440) % 1440
            return utcMinutes == 23 * 60 + 59
        }
        return true
    }

    // MARK: addresses

    private static func isIPv4(_ bytes: ArraySlice<UInt8>) -> Bool {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            guard (1...3).contains(part.count), let value = number(part), value <= 255 else { return false }
            return part.count == 1 || part.first != UInt8(ascii: "0")
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool { SchemaURI.hexValue(byte) != nil }

    static func isIPv6(_ bytes: ArraySlice<UInt8>) -> Bool {
        var text = bytes
        var groupsAllowed = 8
        // A final dotted IPv4 address stands for the last two groups.
        if let lastColon = text.lastIndex(of: UInt8(ascii: ":")), text[(lastColon + 1)...].contains(UInt8(ascii: ".")) {
            guard isIPv4(text[(lastColon + 1)...]) else { return false }
            text = text[...lastColon]
            if text.count >= 2 && text.suffix(2).elementsEqual("::".utf8) {
                // `::1.2.3.4`: keep the double colon whole.
            } else {
                text = text.dropLast()
            }
            groupsAllowed = 6
        }
        let halves = split(text, onDoubleColon: ())
        guard halves.count <= 2 else { return false }
        var groups = 0
        for half in halves where !half.isEmpty {
            for group in half.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), group.allSatisfy(isHex) else { return false }
                groups += 1
            }
        }
        return halves.count == 2 ? groups < groupsAllowed : groups == groupsAllowed
    }

    private static func split(_ text: ArraySlice<UInt8>, onDoubleColon: Void) -> [ArraySlice<UInt8>] {
        var halves: [ArraySlice<UInt8>] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == UInt8(ascii: ":") && index + 1 < text.endIndex && text[index + 1] == UInt8(ascii: ":") {
                halves.append(text[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        halves.append(text[start..<text.endIndex])
        return halves
    }

    private static func isHostname(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        return bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { label in
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-")
            else { return false }
            return label.allSatisfy { isDigit($0) || isLetter($0) || $0 == UInt8(ascii: "-") }
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// The characters besides letters and digits that a dot-atom may hold.
    private static let atomMarks = Set("!#$%&'*+-/=?^_`{|}~".utf8)

    /// RFC 5321's mailbox: a dot-atom or quoted local part, and a host name or an address literal.
    private static func isEmail(_ bytes: [UInt8]) -> Bool {
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")), at > 0 else { return false }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        if local.first == UInt8(ascii: "\"") {
            guard local.count >= 2, local.last == UInt8(ascii: "\"") else { return false }
            var isEscaped = false
            for byte in local.dropFirst().dropLast() {
                if isEscaped {
                    isEscaped = false
                } else if byte == UInt8(ascii: "\\") {
                    isEscaped = true
                } else if byte == UInt8(ascii: "\"") || byte < 0x20 || byte >= 0x7F {
                    return false
                }
            }
            if isEscaped { return false }
        } else {
            let atoms = local.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard atoms.allSatisfy({ !$0.isEmpty && $0.allSatisfy { isLetter($0) || isDigit($0) || atomMarks.contains($0) } })
            else { return false }
        }
        if domain.first == UInt8(ascii: "[") {
            guard domain.last == UInt8(ascii: "]") else { return false }
            let literal = domain.dropFirst().dropLast()
            if literal.starts(with: "IPv6:".utf8) { return isIPv6(literal.dropFirst(5)) }
            return isIPv4(literal)
        }
        return isHostname(domain)
    }

    private static func isUUID(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            let isDash = index == 8 || index == 13 || index == 18 || index == 23
            guard isDash ? byte == UInt8(ascii: "-") : isHex(byte) else { return false }
        }
        return true
    }

    private static func isBase64(_ bytes: [UInt8]) -> Bool {
        guard bytes.count % 4 == 0 else { return false }
        let padding = bytes.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard padding <= 2 else { return false }
        return bytes.dropLast(padding).allSatisfy {
            isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/")
        }
    }

    // MARK: URIs (RFC 3986)

    private static let unreservedMarks = Set("-._~".utf8)
    private static let subDelimiters = Set("!$&'()*+,;=".utf8)

    /// Whether every byte is allowed by `isAllowed` or starts a complete `%XX`.
    private static func isEncoded(_ bytes: ArraySlice<UInt8>, allowing isAllowed: (UInt8) -> Bool) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else { return false }
                index += 3
                continue
            }
            guard isAllowed(byte) else { return false }
            index += 1
        }
        return true
    }

    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || unreservedMarks.contains(byte) || subDelimiters.contains(byte)
            || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
    }

    /// An absolute URI: a scheme, then a hierarchical part, query and fragment as RFC 3986 spells them.
    private static func isURI(_ bytes: [UInt8]) -> Bool {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isLetter(bytes[0]),
            bytes[..<colon].allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return false }
        var rest = bytes[(colon + 1)...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            let fragment = rest[(hash + 1)...]
            guard isEncoded(fragment, allowing: { isPathCharacter($0) || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
            else { return false }
            rest = rest[..<hash]
        }
        if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
            let query = rest[(mark + 1)...]
            guard isEncoded(query, allowing: { isPathCharacter($0) || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
            else { return false }
            rest = rest[..<mark]
        }
        if rest.starts(with: "//".utf8) {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            guard isAuthority(rest[..<end]) else { return false }
            rest = rest[end...]
        }
        return isEncoded(rest, allowing: { isPathCharacter($0) || $0 == UInt8(ascii: "/") })
    }

    private static func isAuthority(_ authority: ArraySlice<UInt8>) -> Bool {
        var host = authority
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[..<at]
            guard isEncoded(userinfo, allowing: { isPathCharacter($0) && $0 != UInt8(ascii: "@") }) else { return false }
            host = authority[(at + 1)...]
        }
        if host.first == UInt8(ascii: "[") {
            guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = host[(host.startIndex + 1)..<close]
            let isFuture = literal.first == UInt8(ascii: "v") || literal.first == UInt8(ascii: "V")
            guard isFuture || isIPv6(literal) else { return false }
            let port = host[(close + 1)...]
            return port.isEmpty || (port.first == UInt8(ascii: ":") && port.dropFirst().allSatisfy(isDigit))
        }
        if let colon = host.lastIndex(of: UInt8(ascii: ":")) {
            guard host[(colon + 1)...].allSatisfy(isDigit) else { return false }
            host = host[..<colon]
        }
        return isEncoded(host, allowing: { isLetter($0) || isDigit($0) || unreservedMarks.contains($0) || subDelimiters.contains($0) })
    }
}
