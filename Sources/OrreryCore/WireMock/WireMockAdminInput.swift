import Foundation

/// What WireMock's admin API is sent, read with the same converter as mapping files: a mapping posted to
/// `/__admin/mappings` means what it means in a file, and a request pattern sent to `/__admin/requests/count` means
/// what the same `request` section of a mapping means.
public enum WireMockAdminInput {
    /// A mapping as a native stub, or the reasons it cannot be served.
    public struct ConvertedMapping: Sendable {
        public var stub: Stub
        /// WireMock's priority (1 is the highest; 5 when the mapping gives none).
        public var wireMockPriority: Int
        /// Parts served with a difference; the mapping is served.
        public var differences: [WireMockIssue]
    }

    /// Converts one mapping (a JSON object) with its id set to `id` and the native priority `priority` makes of
    /// WireMock's. Throws the issues that leave it unserved, or the stub decoder's errors.
    public static func mapping(
        _ json: JSONValue, id: String, bodyFiles: (any StubSource)? = nil, priority: (Int) -> Int
    ) throws(WireMockAdminInputError) -> ConvertedMapping {
        let node: SourceNode
        do {
            node = try StubLoader.parse(Array(json.prettyEncoded.utf8), isJSON: true)
        } catch {
            throw WireMockAdminInputError(messages: ["request body:\(error.line): \(error.message)"])
        }
        var converter = WireMockConverter(file: "request body", bodyFiles: bodyFiles)
        let withID = node.setting("id", .text(id, line: node.line))
        guard let mapping = converter.convertMapping(withID, path: "$") else {
            let refused = converter.issues.filter { $0.effect == .skipped }
            throw WireMockAdminInputError(messages: refused.map(\.description), jsonPaths: refused.map(\.jsonPath))
        }
        let native = mapping.stub.setting("priority", .integer(priority(mapping.wireMockPriority), line: node.line))
        var decoder = StubDecoder(
            displayPath: "request body", source: bodyFiles ?? MemoryStubSource(), folder: "", makeID: { _ in id })
        guard var stub = decoder.decodeSingle(native), decoder.errors.isEmpty else {
            throw WireMockAdminInputError(messages: decoder.errors.map(\.description))
        }
        stub.id = id
        stub.location = nil
        // WireMock sends no Content-Type it was not given; Orrery guesses one for body files.
        if !mapping.setsContentType {
            for position in stub.responses.indices { stub.responses[position].headers.remove("Content-Type") }
        }
        return ConvertedMapping(
            stub: stub, wireMockPriority: mapping.wireMockPriority,
            differences: converter.issues.filter { $0.effect != .skipped })
    }

    /// A WireMock request pattern (`{"method": "GET", "url": "/x"}`) as a native one, for journal queries.
    public static func requestPattern(_ json: JSONValue) throws(WireMockAdminInputError) -> RequestPattern {
        let node: SourceNode
        do {
            node = try StubLoader.parse(Array(json.prettyEncoded.utf8), isJSON: true)
        } catch {
            throw WireMockAdminInputError(messages: ["request body:\(error.line): \(error.message)"])
        }
        var converter = WireMockConverter(file: "request body")
        let (native, _) = converter.convertRequest(node, path: "$")
        let refused = converter.issues.filter { $0.effect == .skipped }
        guard refused.isEmpty else {
            throw WireMockAdminInputError(messages: refused.map(\.description), jsonPaths: refused.map(\.jsonPath))
        }
        var decoder = StubDecoder(
            displayPath: "request body", source: MemoryStubSource(), folder: "", makeID: { _ in "" })
        let pattern = decoder.decodeRequestPattern(native)
        guard decoder.errors.isEmpty else { throw WireMockAdminInputError(messages: decoder.errors.map(\.description)) }
        return pattern
    }
}

/// Why a mapping or request pattern sent to the WireMock admin API cannot be honoured: each message names the JSON
/// path and the reason.
public struct WireMockAdminInputError: Error, Sendable {
    public var messages: [String]
    /// The JSON path (`$.request.bad`) each message is about; `$` when it is about the whole body.
    public var jsonPaths: [String]

    public init(messages: [String], jsonPaths: [String]? = nil) {
        self.messages = messages
        self.jsonPaths = jsonPaths ?? messages.map { _ in "$" }
    }

    /// Each path as the JSON pointer WireMock's errors name (`/request/bad`).
    public var pointers: [String] {
        jsonPaths.map { path in
            let inner = path.hasPrefix("$") ? path.dropFirst() : Substring(path)
            let pointer = inner.replacingOccurrences(of: "[", with: ".").replacingOccurrences(of: "]", with: "")
                .split(separator: ".").joined(separator: "/")
            return "/" + pointer
        }
    }
}
