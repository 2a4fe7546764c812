import Foundation

/// The fixtures of one route file: each distinct request once, with every distinct answer it got in order (a
/// sequence on replay), rendered as a stub file in the native format.
public struct FixtureFile: Sendable {
    /// Relative to the recording folder.
    public let relativePath: String
    /// Text kept at the top: the comment of a new file, or the fixtures a file already had (new episodes are
    /// appended after them).
    private let preamble: String
    private var episodes: [Episode] = []
    private var positions: [RecordedExchange.RequestKey: Int] = [:]
    /// What the last `add` put at the end of the text, when that is all it changed (a new request, or a new answer
    /// of the last one's sequence), with the body file it refers to: a writer appends it to the file on disk
    /// rather than writing the file anew. Nil when the text changed elsewhere.
    public private(set) var appended: (text: String, bodyFiles: [(path: String, bytes: [UInt8])])?
    /// About how many bytes this value holds (texts, bodies): what a writer that keeps many files open counts.
    public private(set) var retainedBytes: Int

    /// Bodies up to this size that are text are written inline; others go to body files.
    public static let inlineBodyLimit = 16 * 1024

    private struct Episode: Sendable {
        var exchange: RecordedExchange
        var responses: [RecordedResponse]
        /// Each response as YAML and its body file, made once when it is added: a route polled a thousand times is
        /// not written (and read back) a thousand times over.
        var renderedResponses: [(value: YAMLText.Value, bodyFile: (path: String, bytes: [UInt8])?)]
        /// The episode's text, kept until it changes.
        var text: String?
    }

    /// A new file; `comment` (one line) heads it.
    public init(relativePath: String, comment: String) {
        self.relativePath = relativePath
        preamble = "# " + comment.replacingOccurrences(of: "\n", with: " ") + "\n"
        retainedBytes = preamble.utf8.count
    }

    /// A file that already holds fixtures as a bare list: new ones are appended to `existingText`.
    public init(relativePath: String, appendingTo existingText: String) {
        self.relativePath = relativePath
        preamble = existingText.isEmpty || existingText.hasSuffix("\n") ? existingText : existingText + "\n"
        retainedBytes = preamble.utf8.count
    }

    /// Whether `text` is a list at its top level (what recordings write), so that items can be appended to it.
    public static func isBareList(_ text: String) -> Bool {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: " \t")
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed == "---" { continue }
            return line.hasPrefix("- ") || line == "-"
        }
        return false
    }

    public var isEmpty: Bool { episodes.isEmpty }

    /// Adds an exchange: a new request becomes a new fixture; a repeat whose answer differs from the last one
    /// adds that answer to its sequence. Returns false when nothing changed (the same answer again).
    @discardableResult
    public mutating func add(_ exchange: RecordedExchange) -> Bool {
        let key = exchange.requestKey
        let response = exchange.response
        appended = nil
        guard let position = positions[key] else {
            positions[key] = episodes.count
            let rendered = render(response)
            var episode = Episode(exchange: exchange, responses: [response], renderedResponses: [rendered])
            let text = render(episode)
            // A file read back from disk that already ends an item with this very fixture (the same request with
            // the same answer, written before): the same answer again adds nothing.
            if !preamble.isEmpty, Self.holdsItem(preamble, text) {
                positions[key] = nil
                return false
            }
            episode.text = text
            episodes.append(episode)
            retainedBytes += Self.size(of: exchange) + text.utf8.count
            appended = (text, rendered.bodyFile.map { [bodyFilePath($0)] } ?? [])
            return true
        }
        // The last answer repeats on replay, so the same answer again adds nothing.
        guard episodes[position].responses.last != response else { return false }
        let rendered = render(response)
        retainedBytes += response.body.count * 2 + 256
        episodes[position].responses.append(response)
        episodes[position].renderedResponses.append(rendered)
        // A third answer of the last request goes at the end of its `responses` list, which ends the file: only
        // that item is written, so a route polled a thousand times costs a thousand small appends.
        if position == episodes.count - 1, episodes[position].responses.count > 2, let text = episodes[position].text,
            case .mapping(let members) = rendered.value
        {
            var item = ""
            YAMLText.listItem(members, indent: Self.responseItemIndent, into: &item)
            episodes[position].text = text + item
            retainedBytes += item.utf8.count
            appended = (item, rendered.bodyFile.map { [bodyFilePath($0)] } ?? [])
        } else {
            episodes[position].text = nil
        }
        return true
    }

    /// Whether `text` holds `item` as a whole top-level list item: at its start or after a line break, and followed
    /// by the end or by the next item or comment.
    static func holdsItem(_ text: String, _ item: String) -> Bool {
        var searchStart = text.startIndex
        while let found = text.range(of: item, range: searchStart..<text.endIndex) {
            let isStart = found.lowerBound == text.startIndex || text[text.index(before: found.lowerBound)] == "\n"
            let rest = text[found.upperBound...]
            let isWhole = rest.isEmpty || rest.hasPrefix("-") || rest.hasPrefix("#") || rest.hasPrefix("\n")
            if isStart, isWhole { return true }
            searchStart = text.index(after: found.lowerBound)
        }
        return false
    }

    /// About the bytes an exchange holds once kept in an episode: its bodies, twice for the rendered copy.
    private static func size(of exchange: RecordedExchange) -> Int {
        exchange.requestBody.count + exchange.responseBody.count * 2 + exchange.target.utf8.count + 512
    }

    /// Where the items of an episode's `responses` list stand: the episode is a list item at 0, its members at 2.
    static let responseItemIndent = 4

    /// A body file's path relative to the recording folder (`render` gives it relative to the route file's folder).
    private func bodyFilePath(_ body: (path: String, bytes: [UInt8])) -> (path: String, bytes: [UInt8]) {
        let folder = relativePath.split(separator: "/").dropLast().joined(separator: "/")
        return ((folder.isEmpty ? "" : folder + "/") + body.path, body.bytes)
    }

    /// The file's text and the body files it refers to (paths relative to the recording folder).
    public mutating func render() -> (text: String, bodyFiles: [(path: String, bytes: [UInt8])]) {
        var text = preamble
        var bodyFiles: [(path: String, bytes: [UInt8])] = []
        for position in episodes.indices {
            if episodes[position].text == nil { episodes[position].text = render(episodes[position]) }
            text += episodes[position].text ?? ""
            for case let body? in episodes[position].renderedResponses.map(\.bodyFile) {
                bodyFiles.append(bodyFilePath(body))
            }
        }
        return (text, bodyFiles)
    }

    private func render(_ episode: Episode) -> String {
        var members: [(String, YAMLText.Value)] = [
            ("name", .scalar(String("\(episode.exchange.method) \(episode.exchange.target)".prefix(160)))),
            ("request", .mapping(requestMembers(episode.exchange))),
        ]
        let responses = episode.renderedResponses.map(\.value)
        if responses.count == 1, let only = responses.first {
            members.append(("response", only))
        } else {
            members.append(("responses", .list(responses)))
        }
        var text = ""
        YAMLText.listItem(members, indent: 0, into: &text)
        return text
    }

    private func requestMembers(_ exchange: RecordedExchange) -> [(String, YAMLText.Value)] {
        var members: [(String, YAMLText.Value)] = [("method", .scalar(exchange.method))]
        if let host = exchange.host { members.append(("host", .scalar(host))) }
        // `url` matches the path and the query exactly, parameters in any order. A brace in the path would read
        // as a path parameter (`{id}`), so it is written percent-encoded, as the loader asks.
        members.append(("url", .scalar(Self.literalBraces(exchange.target))))
        if !exchange.matchedHeaders.isEmpty {
            members.append(("headers", .mapping(exchange.matchedHeaders.map { ($0.name, .scalar($0.value)) })))
        }
        if let body = Self.bodyCondition(exchange.requestBody) {
            members.append(("body", .mapping([body])))
        }
        return members
    }

    /// The target with `{` and `}` in its path percent-encoded; the query as it is.
    static func literalBraces(_ target: String) -> String {
        let end = target.firstIndex(of: "?") ?? target.endIndex
        guard target[..<end].contains(where: { $0 == "{" || $0 == "}" }) else { return target }
        var path = ""
        for character in target[..<end] {
            switch character {
            case "{": path += "%7B"
            case "}": path += "%7D"
            default: path.append(character)
            }
        }
        return path + target[end...]
    }

    /// `json` for a JSON body (JSON-equal, key order free), `equalTo` for other text, `binaryEqualTo` for bytes;
    /// each only when it reads back as the same body.
    static func bodyCondition(_ body: [UInt8]) -> (String, YAMLText.Value)? {
        guard !body.isEmpty else { return nil }
        let first = body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let json = try? JSONValue.parse(body),
            readsBack(.json(json), as: { $0.jsonValue == json })
        {
            return ("json", .json(json))
        }
        if let text = String(validating: body, as: UTF8.self), readsBack(.text(text), as: { $0.scalarText == text }) {
            return ("equalTo", .text(text))
        }
        return ("binaryEqualTo", .scalar(Data(body).base64EncodedString()))
    }

    /// A response as YAML, with its body inline when that reads back exactly, else in a body file.
    private func render(_ response: RecordedResponse) -> (value: YAMLText.Value, bodyFile: (path: String, bytes: [UInt8])?) {
        var members: [(String, YAMLText.Value)] = [("status", .number(response.status))]
        if !response.headers.entries.isEmpty { members.append(("headers", .mapping(Self.grouped(response.headers)))) }
        if let trailers = response.trailers, !trailers.entries.isEmpty {
            members.append(("trailers", .mapping(Self.grouped(trailers))))
        }
        members.append(("encoding", .scalar((response.encoding ?? .identity).rawValue)))
        if let events = response.events {
            members.append(("events", .list(events.map(Self.event))))
            return (.mapping(members), nil)
        }
        guard !response.body.isEmpty else { return (.mapping(members), nil) }
        if response.body.count <= Self.inlineBodyLimit, let json = Self.jsonBody(response) {
            members.append(("json", json))
            return (.mapping(members), nil)
        }
        if response.body.count <= Self.inlineBodyLimit, let text = String(validating: response.body, as: UTF8.self),
            Self.readsBack(.text(text), as: { $0.scalarText == text })
        {
            members.append(("body", .text(text)))
            return (.mapping(members), nil)
        }
        let path = FixtureLayout.bodyFile(
            routeFile: relativePath, bytes: response.body, contentType: response.headers["Content-Type"])
        members.append(("bodyFile", .scalar(path)))
        return (.mapping(members), (path, response.body))
    }

    /// One recorded event as an `events` item: its fields, and its delay when it has one.
    static func event(_ event: EventStreamScript.Event) -> YAMLText.Value {
        var members: [(String, YAMLText.Value)] = []
        if let name = event.event { members.append(("event", .scalar(name))) }
        if let id = event.id { members.append(("id", .scalar(id))) }
        if let retry = event.retry { members.append(("retry", .number(retry))) }
        members.append(("data", .scalar(event.data)))
        if event.delayMilliseconds > 0 {
            members.append(("delay", .number(min(event.delayMilliseconds, Delay.maximumMilliseconds))))
        }
        return .mapping(members)
    }

    /// A JSON body as a `json:` tree when the loader, writing that tree back, gives the recorded bytes (compact
    /// JSON, keys in their order), and the answer names its type (the loader would add one otherwise); else nil,
    /// and the body is written as text.
    static func jsonBody(_ response: RecordedResponse) -> YAMLText.Value? {
        let body = response.body
        guard let first = body.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            response.headers["Content-Type"] != nil, let json = try? JSONValue.parse(body), json.encodedBytes == body
        else { return nil }
        for value in [YAMLText.tree(json), .json(json)] where readsBack(value, as: { $0.jsonValue.encodedBytes == body }) {
            return value
        }
        return nil
    }

    /// Header fields by name, in the order first seen; a repeated one as a list of its values.
    static func grouped(_ headers: HTTPHeaders) -> [(String, YAMLText.Value)] {
        var order: [String] = []
        var values: [String: (name: String, values: [String])] = [:]
        for (name, value) in headers.entries {
            let key = name.lowercased()
            if values[key] == nil { order.append(key) }
            values[key, default: (name, [])].values.append(value)
        }
        return order.compactMap { key in
            guard let field = values[key] else { return nil }
            return (field.name, field.values.count == 1 ? .scalar(field.values[0]) : .list(field.values.map { .scalar($0) }))
        }
    }

    /// Whether `value`, written as YAML and read back by the stub loader's parser, passes `check`: the proof that a
    /// body goes into the fixture byte for byte.
    static func readsBack(_ value: YAMLText.Value, as check: (SourceNode) -> Bool) -> Bool {
        var text = ""
        YAMLText.mapping([("value", value)], indent: 0, into: &text)
        guard let node = try? YAMLSourceParser.parse(text), let read = node["value"] else { return false }
        return check(read)
    }
}
