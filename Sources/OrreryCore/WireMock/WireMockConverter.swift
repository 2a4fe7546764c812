import Foundation

/// Turns WireMock stub mappings into native stub trees that mean the same, and reports every part it cannot honour.
///
/// The trees go through `StubDecoder` like any stub file, so a WireMock mapping is served from the same index,
/// with responses encoded once at load; nothing of WireMock's format is read on the request path.
public struct WireMockConverter {
    /// The file the mappings came from, as issues name it.
    public let file: String
    /// The root's `__files` folder: body files are read from it (for their size, and when they are templates).
    public let bodyFiles: (any StubSource)?
    public private(set) var issues: [WireMockIssue] = []
    /// Whether the mapping being converted can be served at all.
    private var isSkipped = false

    public init(file: String, bodyFiles: (any StubSource)? = nil) {
        self.file = file
        self.bodyFiles = bodyFiles
    }

    /// One mapping, converted.
    public struct Mapping: Sendable {
        /// The native stub, without a priority: the loader gives it one from `wireMockPriority` and the load order.
        public var stub: SourceNode
        /// WireMock's priority (1 is the highest; 5 when the mapping gives none).
        public var wireMockPriority: Int
        /// Where the mapping is in its file (`$`, or `$.mappings[3]`).
        public var jsonPath: String
        /// Whether the mapping sets a Content-Type: WireMock adds none of its own, so Orrery's guess is dropped.
        public var setsContentType: Bool
    }

    static let mappingKeys: Set<String> = [
        "id", "uuid", "name", "request", "response", "priority", "scenarioName", "requiredScenarioState",
        "newScenarioState", "metadata", "persistent", "insertionIndex", "postServeActions", "serveEventListeners",
    ]

    /// The mappings of a file: one mapping, or `{"mappings": [...]}`. Mappings that cannot be served are left out
    /// and reported in `issues`.
    public mutating func convertFile(_ root: SourceNode) -> [Mapping] {
        if let list = root["mappings"] {
            guard case .array(let items) = list.value else {
                report(list, "$.mappings", "'mappings' must be a list, not \(list.kindName)", .skipped)
                return []
            }
            if let members = root.members {
                for member in members where member.key != "mappings" && member.key != "meta" {
                    report(member.value, "$.\(member.key)", "unknown key next to 'mappings'; ignored", .differs)
                }
            }
            return items.enumerated().compactMap { index, item in convertMapping(item, path: "$.mappings[\(index)]") }
        }
        return convertMapping(root, path: "$").map { [$0] } ?? []
    }

    /// One mapping; nil when it cannot be served as WireMock would serve it.
    public mutating func convertMapping(_ node: SourceNode, path: String) -> Mapping? {
        isSkipped = false
        guard let members = node.members else {
            report(node, path, "a mapping must be an object with 'request' and 'response', not \(node.kindName)", .skipped)
            return nil
        }
        for member in members where !Self.mappingKeys.contains(member.key) {
            report(member.value, "\(path).\(member.key)", "not a key of a WireMock mapping", .skipped)
        }
        var out: [(String, SourceNode)] = []
        if let name = node["name"]?.scalarText { out.append(("name", .text(name, line: node["name"]?.line ?? node.line))) }
        if let id = node["id"] ?? node["uuid"], let text = id.stringValue {
            if UUID(uuidString: text) == nil {
                report(id, "\(path).id", "WireMock refuses a mapping whose id is not a UUID: '\(text)'", .skipped)
            }
            out.append(("id", .text(text, line: id.line)))
        }
        var priority = 5
        if let given = node["priority"] {
            if let value = given.integerValue {
                priority = value
            } else {
                report(given, "\(path).priority", "'priority' must be a whole number", .skipped)
            }
        }
        let request = node["request"] ?? SourceNode(.object([]), line: node.line)
        let (nativeRequest, parameterNames) = convertRequest(request, path: "\(path).request")
        out.append(("request", nativeRequest))
        var setsContentType = false
        if let response = node["response"] {
            let converted = convertResponse(response, path: "\(path).response", parameterNames: parameterNames)
            out.append(("response", converted.node))
            setsContentType = converted.setsContentType
        } else {
            // WireMock answers a mapping without a response with an empty 200.
            out.append(("response", .mapping([("status", .integer(200, line: node.line))], line: node.line)))
        }
        if let scenario = node["scenarioName"] {
            if let name = scenario.scalarText {
                out.append(("scenario", .text(name, line: scenario.line)))
            } else {
                report(scenario, "\(path).scenarioName", "'scenarioName' must be text", .skipped)
            }
            if let state = node["requiredScenarioState"]?.scalarText {
                out.append(("requiredState", .text(state, line: node["requiredScenarioState"]?.line ?? node.line)))
            }
            if let state = node["newScenarioState"]?.scalarText {
                out.append(("newState", .text(state, line: node["newScenarioState"]?.line ?? node.line)))
            }
        } else if let orphan = node["requiredScenarioState"] ?? node["newScenarioState"] {
            // WireMock ignores scenario states without a scenario name.
            report(orphan, path, "a scenario state without 'scenarioName' has no effect; ignored", .differs)
        }
        for key in ["postServeActions", "serveEventListeners"] {
            if let actions = node[key] {
                report(actions, "\(path).\(key)", "webhooks and other serve-event listeners are not run", .differs)
            }
        }
        guard !isSkipped else { return nil }
        return Mapping(
            stub: .mapping(out, line: node.line), wireMockPriority: priority, jsonPath: path,
            setsContentType: setsContentType)
    }

    /// Records an issue; a `.skipped` one leaves the current mapping out.
    mutating func report(_ node: SourceNode, _ path: String, _ reason: String, _ effect: WireMockIssue.Effect) {
        issues.append(WireMockIssue(file: file, line: node.line, jsonPath: path, reason: reason, effect: effect))
        if effect == .skipped { isSkipped = true }
    }
}
