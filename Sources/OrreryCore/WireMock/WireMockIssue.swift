/// A part of a WireMock mapping that Orrery does not serve as WireMock would, with where it is and why.
public struct WireMockIssue: Sendable, Equatable, CustomStringConvertible {
    /// What became of the mapping.
    public enum Effect: String, Sendable {
        /// The mapping is left out: a request it would answer is a miss, never a different answer.
        case skipped
        /// The mapping is served, and the named part behaves as the reason says.
        case differs
        /// The part has no effect in WireMock either; said because its author may think it has.
        case ignored
    }

    public var file: String
    public var line: Int
    /// Where in the file, as a JSON path (`$.mappings[2].request.bodyPatterns[0].equalToXml`).
    public var jsonPath: String
    public var reason: String
    public var effect: Effect

    public init(file: String, line: Int, jsonPath: String, reason: String, effect: Effect) {
        self.file = file
        self.line = line
        self.jsonPath = jsonPath
        self.reason = reason
        self.effect = effect
    }

    /// The JSON path of the mapping the issue is in (`$`, or `$.mappings[2]`).
    public var mappingPath: String {
        guard jsonPath.hasPrefix("$.mappings["), let close = jsonPath.firstIndex(of: "]") else { return "$" }
        return String(jsonPath[...close])
    }

    public var description: String {
        let verdict =
            switch effect {
            case .skipped: "mapping not served"
            case .differs: "served with a difference"
            case .ignored: "ignored, as WireMock ignores it"
            }
        return "\(file):\(line): \(jsonPath): \(reason) (\(verdict))"
    }
}
