import Foundation

/// Reads and checks `hosts.json`, reporting problems as `FILE:LINE: message`.
public enum HostMapDecoder {
    static let fileKeys = ["configurations"]
    static let configurationKeys = [
        "canonical_host", "canonical_protocol", "prerelease_key", "release_key", "hosts", "default", "inject_headers",
    ]
    static let hostKeys = ["key", "host", "protocol", "inject_headers", "http2"]

    /// Decodes the bytes of a host map file; errors are reported under `file`. Reading the file is the caller's:
    /// the daemon's `HostMapDecoder.load(path:)` in OrreryServer.
    public static func decode(_ bytes: [UInt8], file path: String) throws(SourceErrors) -> HostMap {
        let root: SourceNode
        do {
            root = try JSONSourceParser.parse(bytes)
        } catch {
            throw SourceErrors([SourceError(file: path, line: error.line, message: error.message)])
        }
        var errors: [SourceError] = []
        let map = decode(root, file: path, errors: &errors)
        guard errors.isEmpty else { throw SourceErrors(errors) }
        return map
    }

    static func decode(_ root: SourceNode, file: String, errors: inout [SourceError]) -> HostMap {
        func fail(_ line: Int, _ message: String) {
            errors.append(SourceError(file: file, line: line, message: message))
        }
        func checkKeys(_ node: SourceNode, _ allowed: [String], _ context: String) {
            guard case .object(let members) = node.value else { return }
            for member in members where !allowed.contains(member.key) {
                fail(member.keyLine, "unknown key '\(member.key)' in \(context)\(Suggestion.hint(for: member.key, in: allowed))")
            }
        }
        func text(_ node: SourceNode?, _ name: String, required: Bool, line: Int) -> String? {
            guard let node else {
                if required { fail(line, "'\(name)' is required") }
                return nil
            }
            guard case .string(let value) = node.value, !value.isEmpty else {
                fail(node.line, "'\(name)' must be a non-empty string")
                return nil
            }
            return value
        }
        /// `{ "Header-Name": "ENVIRONMENT_VARIABLE" }`: the value is read from the environment when a request is sent.
        func injectedHeaders(_ node: SourceNode?) -> [HostMap.InjectedHeader] {
            guard let node else { return [] }
            guard case .object(let members) = node.value else {
                fail(node.line, "'inject_headers' must map header names to environment variable names")
                return []
            }
            var headers: [HostMap.InjectedHeader] = []
            for member in members {
                guard case .string(let variable) = member.value.value, !variable.isEmpty,
                    variable.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
                else {
                    fail(member.value.line, "the value of '\(member.key)' must name an environment variable, such as API_TOKEN")
                    continue
                }
                headers.append(HostMap.InjectedHeader(name: member.key, variable: variable))
            }
            return headers
        }
        func protocolName(_ node: SourceNode?, _ name: String, line: Int) -> String? {
            guard let value = text(node, name, required: false, line: line) else { return nil }
            guard value == "http" || value == "https" else {
                fail(node?.line ?? line, "'\(name)' must be \"http\" or \"https\", not \"\(value)\"")
                return nil
            }
            return value
        }

        guard case .object = root.value else {
            fail(root.line, "the host map must be a mapping with a 'configurations' list")
            return HostMap(configurations: [])
        }
        checkKeys(root, fileKeys, "the host map")
        guard let list = root["configurations"], case .array(let items) = list.value else {
            fail(root.line, "'configurations' must be a list")
            return HostMap(configurations: [])
        }
        var configurations: [HostMap.Configuration] = []
        var canonicalHosts = Set<String>()
        for item in items {
            guard case .object = item.value else {
                fail(item.line, "a configuration must be a mapping")
                continue
            }
            checkKeys(item, configurationKeys, "a configuration")
            let canonicalHost = text(item["canonical_host"], "canonical_host", required: true, line: item.line) ?? ""
            if !canonicalHost.isEmpty, !canonicalHosts.insert(canonicalHost.lowercased()).inserted {
                fail(item["canonical_host"]?.line ?? item.line, "canonical host '\(canonicalHost)' appears twice")
            }
            let canonicalProtocol = protocolName(item["canonical_protocol"], "canonical_protocol", line: item.line) ?? "https"
            let prerelease = text(item["prerelease_key"], "prerelease_key", required: false, line: item.line)
            let release = text(item["release_key"], "release_key", required: false, line: item.line)
            var isDefault = false
            if let flag = item["default"] {
                if case .bool(let value) = flag.value { isDefault = value } else { fail(flag.line, "'default' must be true or false") }
            }
            var hosts: [HostMap.Host] = []
            if let hostList = item["hosts"], case .array(let hostItems) = hostList.value {
                for hostItem in hostItems {
                    guard case .object = hostItem.value else {
                        fail(hostItem.line, "a host entry must be a mapping")
                        continue
                    }
                    checkKeys(hostItem, hostKeys, "a host entry")
                    guard let key = text(hostItem["key"], "key", required: true, line: hostItem.line) else { continue }
                    if hosts.contains(where: { $0.key == key }) { fail(hostItem.line, "key '\(key)' appears twice") }
                    let host = text(hostItem["host"], "host", required: key != "USER", line: hostItem.line)
                    if let host, host.contains("/") || host.contains(" ") {
                        fail(hostItem["host"]?.line ?? hostItem.line, "'host' must be a host name with an optional port, not '\(host)'")
                    }
                    let proto = protocolName(hostItem["protocol"], "protocol", line: hostItem.line)
                    var speaksHTTP2 = false
                    if let flag = hostItem["http2"] {
                        if case .bool(let value) = flag.value {
                            speaksHTTP2 = value
                        } else {
                            fail(flag.line, "'http2' must be true or false")
                        }
                    }
                    hosts.append(
                        HostMap.Host(
                            key: key, host: host, protocol: proto,
                            injectedHeaders: injectedHeaders(hostItem["inject_headers"]),
                            speaksHTTP2: speaksHTTP2))
                }
            } else {
                fail(item.line, "'hosts' must be a list of { key, host }")
            }
            // The release key is the environment served by default, so it must exist; SquidKit files often name a
            // prerelease key they have no host for, which is harmless here.
            if let release, !hosts.contains(where: { $0.key == release }) {
                fail(item["release_key"]?.line ?? item.line, "'release_key' names '\(release)', which is not one of the hosts' keys")
            }
            configurations.append(
                HostMap.Configuration(
                    canonicalHost: canonicalHost, canonicalProtocol: canonicalProtocol, prereleaseKey: prerelease,
                    releaseKey: release, hosts: hosts, isDefault: isDefault,
                    injectedHeaders: injectedHeaders(item["inject_headers"])))
        }
        if configurations.filter(\.isDefault).count > 1 {
            fail(list.line, "only one configuration may be marked \"default\": true")
        }
        return HostMap(configurations: configurations)
    }
}
