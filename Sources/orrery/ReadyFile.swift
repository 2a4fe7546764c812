import Foundation
import OrreryCore
import OrreryServer

/// What `--ready-file` writes once the daemon answers: where it listens, its process and version.
struct ReadyFile {
    var url: String
    var port: Int
    var tlsPort: Int?
    var wireMockPort: Int?
    var metricsPort: Int?

    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("url", .string(url)), ("port", .int(port)), ("pid", .int(Int(getpid()))),
            ("version", .string(OrreryVersion.current)),
        ]
        if let tlsPort { members.append(("tlsPort", .int(tlsPort))) }
        if let wireMockPort { members.append(("wiremockPort", .int(wireMockPort))) }
        if let metricsPort { members.append(("metricsPort", .int(metricsPort))) }
        return .object(members)
    }

    /// Writes the file whole or not at all: a temporary file beside it, then a rename, so a reader never sees it
    /// half written.
    func write(to path: String) throws {
        let target = URL(fileURLWithPath: path)
        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(getpid()).tmp")
        try Data((json.encoded + "\n").utf8).write(to: temporary)
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: reason])
        }
    }
}
