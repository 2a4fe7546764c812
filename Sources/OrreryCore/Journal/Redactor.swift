/// Replaces secrets with a placeholder before an exchange is kept, logged, exported or recorded.
///
/// Sensitive headers (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and configured names),
/// configured query parameters and configured JSON body fields lose their values; each value taken is then also
/// scrubbed wherever else it appears in the exchange (an upstream that echoes the token back), in headers, the
/// target and both bodies, in the forms it travels in: as it is, percent-encoded, JSON-escaped and in base64
/// (see `SecretScrubber`). Basic credentials are decoded, and scrubbed whole and by their password.
public struct Redactor: Sendable {
    public static let placeholder = "[REDACTED]"
    public static let defaultHeaders = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
    /// Values shorter than this are replaced where they stand but not searched for elsewhere: scrubbing "1" or
    /// "yes" everywhere would ruin the exchange and protect nothing.
    static let minimumScrubbedLength = 6

    /// Compared without regard to case and without allocating: this runs for every exchange.
    private let headerNames: HeaderNameSet
    private let queryNames: Set<String>
    private let jsonFields: Set<String>

    public init(headers: [String] = [], queryParameters: [String] = [], jsonFields: [String] = []) {
        headerNames = HeaderNameSet(
            Self.defaultHeaders + headers.filter { name in !Self.defaultHeaders.contains { $0.equalsIgnoringASCIICase(name) } })
        queryNames = Set(queryParameters)
        self.jsonFields = Set(jsonFields)
    }

    /// The entry with every secret replaced.
    public func redact(_ entry: JournalEntry) -> JournalEntry {
        var entry = entry
        redact(&entry)
        return entry
    }

    /// Replaces every secret of the entry in place; an exchange without secrets is only read.
    public func redact(_ entry: inout JournalEntry) {
        if mayHoldSecrets(entry) { redactSecrets(&entry) }
    }

    /// The usual exchange holds no secret: found out without building anything.
    private func mayHoldSecrets(_ entry: JournalEntry) -> Bool {
        !queryNames.isEmpty || !jsonFields.isEmpty
            || entry.request.headers.entries.contains { isSensitive($0.name) }
            || entry.response.headers.entries.contains { isSensitive($0.name) }
    }

    private func redactSecrets(_ entry: inout JournalEntry) {
        var secrets: [String] = []
        entry.request.headers = redactHeaders(entry.request.headers, into: &secrets)
        entry.response.headers = redactHeaders(entry.response.headers, into: &secrets)
        if !queryNames.isEmpty, entry.request.query.contains(where: { queryNames.contains($0.name) }) {
            for item in entry.request.query where queryNames.contains(item.name) && !item.value.isEmpty {
                secrets.append(item.value)
            }
            entry.request = HTTPRequest(
                method: entry.request.method, target: redactQuery(entry.request.target), headers: entry.request.headers,
                body: entry.request.body)
        }
        if !jsonFields.isEmpty {
            secrets += jsonSecrets(entry.request.body) + entry.response.body.withUnsafeBytes { jsonSecrets($0) }
        }
        let scrubbed = Set(secrets.filter { $0.utf8.count >= Self.minimumScrubbedLength }).sorted()
        guard !scrubbed.isEmpty else { return }
        let needles = SecretScrubber(secrets: scrubbed.map { Array($0.utf8) })
        // Only what contains a secret is rebuilt: the request is parsed again only when its target changes.
        let target = Self.scrub(entry.request.target, needles)
        if target != entry.request.target {
            entry.request = HTTPRequest(
                method: entry.request.method, target: target, headers: entry.request.headers, body: entry.request.body)
        }
        entry.request.headers = Self.scrub(entry.request.headers, needles)
        entry.request.body = Self.scrub(entry.request.body, needles)
        entry.response.headers = Self.scrub(entry.response.headers, needles)
        if let scrubbedBody = entry.response.body.withUnsafeBytes({ Self.scrubbed($0, needles) }) {
            entry.response.bodySize += scrubbedBody.count - entry.response.body.count
            entry.response.body = Payload(scrubbedBody)
        }
    }

    private func redactHeaders(_ headers: HTTPHeaders, into secrets: inout [String]) -> HTTPHeaders {
        guard headers.entries.contains(where: { isSensitive($0.name) }) else { return headers }
        var redacted = HTTPHeaders()
        for (name, value) in headers.entries {
            if isSensitive(name) {
                secrets += Self.secretParts(of: value, header: name)
                redacted.add(name, Self.placeholder)
            } else {
                redacted.add(name, value)
            }
        }
        return redacted
    }

    /// The target with the values of configured query parameters replaced, short ones included.
    private func redactQuery(_ target: String) -> String {
        guard let questionMark = target.firstIndex(of: "?") else { return target }
        let pairs = target[target.index(after: questionMark)...].split(separator: "&", omittingEmptySubsequences: false)
        let redacted = pairs.map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map { PercentDecoding.decode($0) } ?? ""
            return queryNames.contains(name) ? "\(pair.split(separator: "=", maxSplits: 1).first ?? "")=\(Self.placeholder)" : String(pair)
        }
        return target[...questionMark] + redacted.joined(separator: "&")
    }

    private func isSensitive(_ name: String) -> Bool {
        headerNames.contains(name)
    }

    /// The value, and the parts of it that travel alone: a bearer token, each cookie's value, and Basic
    /// credentials decoded (`user:password`, and the password).
    static func secretParts(of value: String, header: String) -> [String] {
        var parts = [value]
        if let space = value.firstIndex(of: " ") {
            let credentials = String(value[value.index(after: space)...]).trimmingSpaces
            parts.append(credentials)
            if String(value[..<space]).equalsIgnoringASCIICase("Basic"), let decoded = Base64.decode(Substring(credentials)),
                let text = String(validating: decoded, as: UTF8.self)
            {
                parts.append(text)
                if let colon = text.firstIndex(of: ":") { parts.append(String(text[text.index(after: colon)...])) }
            }
        }
        let lower = header.lowercased()
        if lower == "cookie" || lower == "set-cookie" {
            // Every pair of a Cookie; only the first of a Set-Cookie (the rest are attributes such as Path).
            let pairs = value.split(separator: ";")
            for pair in lower == "cookie" ? pairs : Array(pairs.prefix(1)) {
                if let equals = pair.firstIndex(of: "=") { parts.append(String(pair[pair.index(after: equals)...]).trimmingSpaces) }
            }
        }
        return parts
    }

    /// String values of configured fields anywhere in a JSON body.
    private func jsonSecrets(_ body: some Collection<UInt8>) -> [String] {
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let value = try? JSONValue.parse(body)
        else { return [] }
        var found: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let members):
                for (key, member) in members {
                    if jsonFields.contains(key) {
                        switch member {
                        case .string(let text): found.append(text)
                        case .number(_, let text): found.append(text)
                        default: walk(member)
                        }
                    } else {
                        walk(member)
                    }
                }
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        walk(value)
        return found
    }

    static func scrub(_ text: String, _ needles: SecretScrubber) -> String {
        var text = text
        guard let scrubbed = text.withUTF8({ needles.scrubbed(UnsafeRawBufferPointer($0)) }) else { return text }
        return String(decoding: scrubbed, as: UTF8.self)
    }

    static func scrub(_ headers: HTTPHeaders, _ needles: SecretScrubber) -> HTTPHeaders {
        var scrubbed = headers
        for (index, entry) in headers.entries.enumerated() {
            let value = scrub(entry.value, needles)
            if value != entry.value { scrubbed.entries[index].value = value }
        }
        return scrubbed
    }

    static func scrub(_ bytes: [UInt8], _ needles: SecretScrubber) -> [UInt8] {
        bytes.withUnsafeBytes { needles.scrubbed($0) } ?? bytes
    }

    static func scrubbed(_ bytes: UnsafeRawBufferPointer, _ needles: SecretScrubber) -> [UInt8]? {
        needles.scrubbed(bytes)
    }

    /// `text` with the secrets (given as bytes) scrubbed in every form.
    static func scrub(_ text: String, _ secrets: [[UInt8]]) -> String {
        scrub(text, SecretScrubber(secrets: secrets))
    }

    /// `bytes` with the secrets (given as bytes) scrubbed in every form; nil when none occurs.
    static func scrubbed(_ bytes: UnsafeRawBufferPointer, _ secrets: [[UInt8]]) -> [UInt8]? {
        SecretScrubber(secrets: secrets).scrubbed(bytes)
    }
}
