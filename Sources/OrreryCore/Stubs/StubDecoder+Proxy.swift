// `proxy:` in a response: the matched request is forwarded to a base URL rather than answered.
extension StubDecoder {
    static let proxyKeys = ["to", "addHeaders", "removeHeaders"]

    /// `proxy: { to: URL, addHeaders: {...}, removeHeaders: [...] }`, or a URL alone.
    mutating func decodeProxy(_ node: SourceNode) -> ProxyTarget? {
        let urlNode: SourceNode?
        var added: [(name: String, value: String)] = []
        var removed: [String] = []
        if case .object(let members) = node.value {
            checkKeys(members, allowed: Self.proxyKeys, in: "'proxy'")
            urlNode = node["to"]
            if let headers = node["addHeaders"] {
                if case .object(let entries) = headers.value {
                    for entry in entries {
                        if let value = string(entry.value, "addHeaders.\(entry.key)") {
                            added.append((entry.key, value))
                        }
                    }
                } else {
                    fail(
                        headers.line,
                        "'addHeaders' must be a mapping of header names to values, not \(headers.kindName)")
                }
            }
            if let names = node["removeHeaders"] {
                if case .array(let items) = names.value {
                    removed = items.compactMap { string($0, "removeHeaders") }
                } else {
                    fail(names.line, "'removeHeaders' must be a list of header names, not \(names.kindName)")
                }
            }
        } else {
            urlNode = node
        }
        guard let urlNode else {
            fail(node.line, "'proxy' needs 'to', the base URL the request is forwarded to (to: http://127.0.0.1:8080)")
            return nil
        }
        guard let url = string(urlNode, "proxy.to") else { return nil }
        guard let target = ProxyTarget(baseURL: url, addedHeaders: added, removedHeaders: removed) else {
            fail(urlNode.line, "'proxy' must be an http:// or https:// URL with a host, not '\(url)'")
            return nil
        }
        return target
    }
}
