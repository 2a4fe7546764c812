import Foundation
import Testing

/// Three daemons behind a real nginx running `deploy/nginx/nginx.conf` (its servers and port replaced by loopback
/// ones): sessions made through nginx each see only their own stubs, and when one daemon is killed its sessions fail
/// with a 502 naming them while the others go on.
@Suite("Fleet behind nginx")
struct FleetTests {
    static let nginxBinary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// nginx started on its own prefix and configuration, in the foreground; stopped when dropped.
    final class Nginx {
        let process = Process()
        let port: Int
        let prefix: URL

        init(upstreams: [Int], scratch: Scratch) throws {
            let binary = try #require(
                FleetTests.nginxBinary, "nginx is not installed (scripts/install-dependencies.sh --with-test-tools)")
            port = try FleetTests.freePort()
            prefix = scratch.url.appendingPathComponent("nginx")
            for folder in ["logs", "tmp"] {
                try FileManager.default.createDirectory(
                    at: prefix.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            let shipped = try String(
                contentsOf: OrreryProcess.packageRoot.appendingPathComponent("deploy/nginx/nginx.conf"), encoding: .utf8
            )
            let config = try FleetTests.loopbackConfig(shipped, upstreams: upstreams, port: port, prefix: prefix.path)
            let configFile = prefix.appendingPathComponent("nginx.conf")
            try Data(config.utf8).write(to: configFile)
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = [
                "-p", prefix.path + "/", "-c", configFile.path,
                "-g", "daemon off; pid \(prefix.path)/nginx.pid; error_log \(prefix.path)/logs/error.log;",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let ready = OrreryProcess.waitFor(seconds: 10) {
                (try? FleetTests.call(["http://127.0.0.1:\(port)/__admin/health"]).status) == 200 || !process.isRunning
            }
            let log = (try? String(contentsOf: prefix.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
            try #require(ready && process.isRunning, "nginx did not start: \(log)")
        }

        deinit {
            if process.isRunning {
                kill(process.processIdentifier, SIGQUIT)
                if !OrreryProcess.waitFor(seconds: 5, { !process.isRunning }) {
                    kill(process.processIdentifier, SIGKILL)
                }
            }
        }
    }

    /// The shipped configuration with loopback servers, a loopback port, and temporary files under the prefix.
    static func loopbackConfig(_ shipped: String, upstreams: [Int], port: Int, prefix: String) throws -> String {
        var lines: [String] = []
        var replaced = 0
        for line in shipped.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("server orrery-") {
                // The shipped file lists three replicas: one loopback daemon each, options kept.
                let options = trimmed.split(separator: " ").dropFirst(2).joined(separator: " ")
                lines.append("        server 127.0.0.1:\(upstreams[replaced]) \(options)")
                replaced += 1
            } else if trimmed == "listen 8080;" {
                lines.append("        listen 127.0.0.1:\(port);")
            } else if trimmed == "http {" {
                lines.append(String(line))
                for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"] {
                    lines.append("    \(kind)_temp_path \(prefix)/tmp/\(kind);")
                }
            } else {
                lines.append(String(line))
            }
        }
        try #require(replaced == upstreams.count, "deploy/nginx/nginx.conf should list \(upstreams.count) servers")
        return lines.joined(separator: "\n")
    }

    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func call(_ arguments: [String]) throws -> (status: Int, body: String) {
        let output = try Curl.run(["-w", "\n%{http_code}"] + arguments)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    @Test("sessions made through nginx see only their own stubs; a killed replica's sessions get a 502 naming them")
    func fleet() throws {
        let scratch = try Scratch([
            "stubs/shared.yaml": "- request: {method: GET, path: /shared}\n  response: {body: shared}\n"
        ])
        var daemons: [OrreryProcess] = []
        var ports: [Int] = []
        for _ in 0..<3 {
            let daemon = try OrreryProcess([
                "serve", "--port", "0", "--threads", "1", "--stubs", scratch.path("stubs"), "--config",
                scratch.path("config"),
                "--watch-interval", "0",
            ])
            let url = try daemon.waitUntilListening()
            ports.append(try #require(Int(url.split(separator: ":").last ?? "")))
            daemons.append(daemon)
        }
        let nginx = try Nginx(upstreams: ports, scratch: scratch)
        let front = "http://127.0.0.1:\(nginx.port)"

        // Each session is opened through nginx under the id it will be reached by, and given a stub of its own.
        let ids = (0..<12).map { "fleet-\($0)" }
        for id in ids {
            let made = try Self.call(["-X", "POST", "-H", "X-Orrery-Session: \(id)", front + "/__admin/sessions"])
            #expect(made.status == 201, "\(id): \(made.body)")
            let stub = #"{"request": {"method": "GET", "path": "/who"}, "response": {"body": "I am \#(id)"}}"#
            let added = try Self.call([
                "-X", "POST", "-H", "X-Orrery-Session: \(id)", "-d", stub, front + "/__admin/stubs",
            ])
            #expect(added.status == 201, "\(id): \(added.body)")
        }
        // Where each landed, asked of each daemon directly.
        var holder: [String: Int] = [:]
        for (index, port) in ports.enumerated() {
            let list = try Self.call(["http://127.0.0.1:\(port)/__admin/sessions"]).body
            for id in ids where list.contains("\"\(id)\"") { holder[id] = index }
        }
        #expect(holder.count == ids.count, "every session is held by exactly one daemon: \(holder)")
        #expect(Set(holder.values).count >= 2, "12 sessions hash onto more than one of 3 replicas: \(holder)")

        for id in ids {
            let answer = try Self.call(["-H", "X-Orrery-Session: \(id)", front + "/who"])
            #expect(answer.status == 200 && answer.body == "I am \(id)", "\(id): \(answer.status) \(answer.body)")
            #expect(try Self.call(["-H", "X-Orrery-Session: \(id)", front + "/shared"]).body == "shared")
        }

        // One replica dies mid-run: its sessions fail clearly, the others go on.
        let victim = try #require(holder.values.first)
        kill(daemons[victim].process.processIdentifier, SIGKILL)
        _ = daemons[victim].waitForExit()
        for id in ids {
            let answer = try Self.call(["-H", "X-Orrery-Session: \(id)", front + "/who"])
            if holder[id] == victim {
                #expect(answer.status == 502, "\(id): \(answer.status) \(answer.body)")
                #expect(answer.body.contains(id), "the 502 names the session: \(answer.body)")
                #expect(!answer.body.contains("I am"), "never another session's answer: \(answer.body)")
            } else {
                #expect(answer.status == 200 && answer.body == "I am \(id)", "\(id): \(answer.status) \(answer.body)")
            }
        }
        // A session the fleet never had is a 404 naming it, wherever it hashes (unless to the dead replica).
        let unknown = try Self.call(["-H", "X-Orrery-Session: never-opened", front + "/who"])
        #expect([404, 502].contains(unknown.status) && unknown.body.contains("never-opened"), "\(unknown.body)")
        withExtendedLifetime(nginx) {}
        for daemon in daemons where daemon.process.isRunning { #expect(daemon.stop() == 0) }
    }
}
