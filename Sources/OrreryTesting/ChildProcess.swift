import Foundation
import OrreryClient

#if os(macOS) || os(Linux)

    /// The daemon's process, started so that it can never outlive this one and never inherits a blocked signal.
    ///
    /// - **The lifeline.** The child's standard input is a pipe whose write end only this process holds, and the
    ///   daemon runs with `--exit-on-stdin-eof`. However this process ends (a test that crashes, `exit()`, `SIGKILL`,
    ///   Ctrl-C) the kernel closes the write end, the daemon reads end-of-file and stops as on `SIGTERM`. Foundation's
    ///   `Process` puts the child in a process group of its own on Linux, so a signal to the test's group never
    ///   reaches it: the pipe is what ends it. The write end is close-on-exec, so no other child (another daemon, a
    ///   helper a test spawns) holds it open by accident; Foundation closes every other descriptor in the child.
    /// - **The signal mask.** A child starts with the blocked-signal mask of the thread that spawned it, and a thread
    ///   of Swift's concurrency pool or of Dispatch has `SIGTERM`, `SIGINT` and `SIGCHLD` blocked. So the spawn
    ///   happens on a new thread that first empties its mask, whatever thread asked for it.
    final class ChildProcess: @unchecked Sendable {  // Process is run once, then only read and signalled.
        private let process: Process
        /// The lifeline's write end; closing it tells the daemon to stop.
        private let lifeline: LockedValue<FileHandle?>
        let pid: Int32

        private init(process: Process, lifeline: FileHandle) {
            self.process = process
            self.lifeline = LockedValue(lifeline)
            self.pid = process.processIdentifier
        }

        /// Starts `executable` from a thread with an empty signal mask, and returns once it runs (or could not).
        static func spawn(
            executable: URL, arguments: [String], environment: [String: String], standardOutput: URL,
            standardError: URL
        ) async throws -> ChildProcess {
            let prepared = try prepare(executable, arguments, environment, standardOutput, standardError)
            return try await withCheckedThrowingContinuation { continuation in
                runOnCleanThread(prepared) { continuation.resume(with: $0) }
            }
        }

        /// The same, blocking the calling thread: for XCTest's synchronous `class func setUp()`.
        static func spawnBlocking(
            executable: URL, arguments: [String], environment: [String: String], standardOutput: URL,
            standardError: URL
        ) throws -> ChildProcess {
            let prepared = try prepare(executable, arguments, environment, standardOutput, standardError)
            let outcome = LockedValue<Result<ChildProcess, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            runOnCleanThread(prepared) { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
            done.wait()
            guard let result = outcome.withLock({ $0 }) else {
                throw OrreryTestingError.launchFailed("The thread that starts orrery gave no answer.")
            }
            return try result.get()
        }

        /// A process set up but not started, with the descriptors it is given.
        private struct Prepared: @unchecked Sendable {  // Handed to one thread, which alone uses it from then on.
            let process: Process
            let lifeline: Pipe
            let output: FileHandle
            let errors: FileHandle
        }

        private static func prepare(
            _ executable: URL, _ arguments: [String], _ environment: [String: String], _ standardOutput: URL,
            _ standardError: URL
        ) throws -> Prepared {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = environment
            let lifeline = Pipe()
            // Only this process may hold the write end: a child that inherited it would keep the daemon alive.
            _ = fcntl(lifeline.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(lifeline.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
            process.standardInput = lifeline
            // Files, not pipes: a pipe nobody reads fills up and then blocks the daemon's next log line.
            let output: FileHandle
            let errors: FileHandle
            do {
                output = try FileHandle(forWritingTo: standardOutput)
                errors = try FileHandle(forWritingTo: standardError)
            } catch {
                throw OrreryTestingError.launchFailed(
                    "Could not open \(standardOutput.path) for orrery's output.", underlyingError: error)
            }
            process.standardOutput = output
            process.standardError = errors
            return Prepared(process: process, lifeline: lifeline, output: output, errors: errors)
        }

        private static func runOnCleanThread(
            _ prepared: Prepared, then finish: @escaping @Sendable (Result<ChildProcess, any Error>) -> Void
        ) {
            let thread = Thread {
                var none = sigset_t()
                sigemptyset(&none)
                pthread_sigmask(SIG_SETMASK, &none, nil)
                do {
                    try prepared.process.run()
                } catch {
                    try? prepared.lifeline.fileHandleForWriting.close()
                    try? prepared.lifeline.fileHandleForReading.close()
                    try? prepared.output.close()
                    try? prepared.errors.close()
                    let path = prepared.process.executableURL?.path ?? "orrery"
                    finish(.failure(OrreryTestingError.launchFailed("Could not start \(path).", underlyingError: error)))
                    return
                }
                // The child has its copies now; this process keeps only the lifeline's write end.
                try? prepared.lifeline.fileHandleForReading.close()
                try? prepared.output.close()
                try? prepared.errors.close()
                finish(.success(ChildProcess(process: prepared.process, lifeline: prepared.lifeline.fileHandleForWriting)))
            }
            thread.name = "orrery-spawner"
            thread.start()
        }

        /// Whether the process has not exited yet.
        var isRunning: Bool { process.isRunning }

        /// How it ended, once it has.
        var exitStatus: OrreryDaemon.ExitStatus? {
            guard !process.isRunning else { return nil }
            switch process.terminationReason {
            case .exit: return .exited(process.terminationStatus)
            case .uncaughtSignal: return .signalled(process.terminationStatus)
            @unknown default: return .exited(process.terminationStatus)
            }
        }

        /// Sends `signal` while the process runs.
        func send(_ signal: Int32) {
            guard process.isRunning else { return }
            kill(pid, signal)
        }

        /// Closes the lifeline: the daemon stops as on `SIGTERM`.
        func closeLifeline() {
            let handle = lifeline.withLock { handle -> FileHandle? in
                defer { handle = nil }
                return handle
            }
            try? handle?.close()
        }

        /// Waits until the process has exited or `deadline` has passed; true when it has exited.
        func waitForExit(until deadline: ContinuousClock.Instant) -> Bool {
            while process.isRunning {
                guard ContinuousClock.now < deadline else { return false }
                usleep(2_000)
            }
            return true
        }

        /// The same, suspending instead of blocking the thread.
        func exited(by deadline: ContinuousClock.Instant) async -> Bool {
            while process.isRunning {
                guard ContinuousClock.now < deadline else { return false }
                // Cancellation must not cut a stop short (the deadline bounds it), nor turn it into a busy loop.
                if Task.isCancelled { usleep(2_000) } else { try? await Task.sleep(for: .milliseconds(2)) }
            }
            return true
        }
    }

#endif
