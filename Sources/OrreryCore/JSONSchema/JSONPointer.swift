/// JSON pointers (RFC 6901): the tokens of a path, escaped and resolved in a `JSONValue`.
enum JSONPointer {
    /// `~` and `/` escaped, so a token can be appended after a `/`.
    static func escape(_ token: String) -> String {
        guard token.contains("~") || token.contains("/") else { return token }
        return token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    static func unescape(_ token: Substring) -> String {
        guard token.contains("~") else { return String(token) }
        return String(token.replacing("~1", with: "/").replacing("~0", with: "~"))
    }

    /// The tokens of a pointer such as `/a/b~1c/0`; nil when it does not start with `/` (and is not empty).
    static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(unescape)
    }

    /// The value the tokens lead to, array indices included.
    static func resolve(_ tokens: [String], in value: JSONValue) -> JSONValue? {
        var current = value
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members.first(where: { $0.0 == token })?.1 else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(token), index >= 0, index < items.count, String(index) == token else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }
}
