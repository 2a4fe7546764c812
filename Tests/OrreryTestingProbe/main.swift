import Foundation
import OrreryTesting

// A test process in miniature: it starts a daemon through the kit, prints `PID URL` on one line, and then waits to
// be killed. The lifeline test kills it with SIGKILL and checks that the daemon goes too.
//
//   OrreryTestingProbe [blocking|async]
//
// `blocking` starts the daemon with OrreryDaemon.launch on the main thread; `async` with OrreryDaemon.start from a
// thread of Swift's concurrency pool, whose blocked signals a child would otherwise inherit.

let mode = CommandLine.arguments.dropFirst().first ?? "blocking"
let options = OrreryDaemon.Options(logLevel: "warning", threads: 1)

/// Starts the daemon the way `mode` says.
func start() throws -> OrreryDaemon {
    guard mode == "async" else { return try OrreryDaemon.launch(options) }
    let started = Task.detached { try await OrreryDaemon.start(options) }
    let outcome = LockedResult()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { outcome.set(.success(try await started.value)) } catch { outcome.set(.failure(error)) }
        done.signal()
    }
    done.wait()
    return try outcome.get()
}

/// The result handed from the task to the main thread.
final class LockedResult: @unchecked Sendable {  // Written once before the semaphore is signalled, read after.
    private var result: Result<OrreryDaemon, any Error>?
    func set(_ value: Result<OrreryDaemon, any Error>) { result = value }
    func get() throws -> OrreryDaemon {
        guard let result else { throw CancellationError() }
        return try result.get()
    }
}

// Held for the life of the process: releasing the daemon would stop it.
let daemon: OrreryDaemon
do {
    daemon = try start()
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
// Written straight to the descriptor: nothing is buffered when the test reads the line.
FileHandle.standardOutput.write(Data("\(daemon.pid ?? 0) \(daemon.url.absoluteString)\n".utf8))
while true { sleep(60) }
