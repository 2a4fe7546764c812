import Foundation
import Logging
import OrreryCore
import Synchronization

/// What a traffic log writes and where: `--log-traffic FILE`, or `POST /__admin/logging/start`.
public struct TrafficLogSettings: Sendable, Equatable {
    public var path: String
    public var includeHeaders = true
    public var includeBody = true
    /// The file is rotated (FILE → FILE.1 → FILE.2 ...) before it would grow past this.
    public var maximumBytes = 64 * 1024 * 1024
    /// Rotated files kept besides the current one.
    public var keptFiles = 3
    /// Whether the file must be a regular one (checked again once open): true for a file named over the admin API;
    /// `--log-traffic` may name a device or a pipe (`/dev/stdout`), as the person starting the daemon chooses.
    public var isRegularFileRequired = false

    public init(path: String) {
        self.path = path
    }
}

/// The traffic log: one JSON line per exchange, written as it happens on a queue of its own, so the event loops
/// never wait on the disk. Each line goes out in one `write` to a file opened for appending, so a reader (or a
/// crash) only ever sees whole lines, and nothing sits in a buffer.
final class TrafficLog: Sendable {
    let settings: TrafficLogSettings
    private let queue = DispatchQueue(label: "orrery.traffic-log")
    private let state: Mutex<State>
    private let logger: Logger

    private struct State {
        var descriptor: Int32
        var size: Int
        var written = 0
        /// Set when a write failed; the log stops and says why.
        var failure: String?
    }

    /// Opens (creating or appending to) the file; throws when it cannot be opened.
    init(settings: TrafficLogSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        let descriptor = try Self.open(settings.path, isRegularFileRequired: settings.isRegularFileRequired)
        var status = stat()
        fstat(descriptor, &status)
        state = Mutex(State(descriptor: descriptor, size: Int(status.st_size)))
    }

    /// Exchanges queued and not yet written; past `maximumQueued` new ones are dropped (and counted) rather than
    /// letting a disk slower than the traffic grow the daemon's memory without end.
    private let queued = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    static let maximumQueued = 50_000

    /// Queues one exchange; returns at once.
    func write(_ entry: JournalEntry) {
        guard queued.add(1, ordering: .relaxed).newValue <= Self.maximumQueued else {
            queued.subtract(1, ordering: .relaxed)
            dropped.add(1, ordering: .relaxed)
            return
        }
        queue.async { [self] in
            defer { queued.subtract(1, ordering: .relaxed) }
            var line = entry.json(includeHeaders: settings.includeHeaders, includeBody: settings.includeBody).encodedBytes
            line.append(UInt8(ascii: "\n"))
            append(line)
        }
    }

    /// Lines written, lines dropped because the disk fell behind, and the failure that stopped the log if there
    /// was one. Waits for queued lines first.
    var status: (written: Int, dropped: Int, failure: String?) {
        queue.sync {}
        let dropped = dropped.load(ordering: .relaxed)
        return state.withLock { ($0.written, dropped, $0.failure) }
    }

    /// Writes what is queued and closes the file.
    func close() {
        queue.sync {}
        state.withLock { state in
            if state.descriptor >= 0 { Glibc.close(state.descriptor) }
            state.descriptor = -1
        }
    }

    private func append(_ bytes: [UInt8]) {
        state.withLock { state in
            guard state.descriptor >= 0, state.failure == nil else { return }
            if state.size > 0 && state.size + bytes.count > settings.maximumBytes {
                rotate(&state)
                guard state.descriptor >= 0 else { return }
            }
            let written = bytes.withUnsafeBytes { Glibc.write(state.descriptor, $0.baseAddress, $0.count) }
            if written == bytes.count {
                state.size += written
                state.written += 1
                return
            }
            let reason = written < 0 ? String(cString: strerror(errno)) : "only \(written) of \(bytes.count) bytes written"
            // A partial line would break the JSON Lines file: cut it back to the last whole line.
            if written > 0 { ftruncate(state.descriptor, off_t(state.size)) }
            state.failure = "writing \(settings.path) failed: \(reason); the traffic log is stopped, serving goes on"
            logger.error("\(state.failure ?? "")")
        }
    }

    /// FILE → FILE.1, FILE.1 → FILE.2, ... keeping `keptFiles`, then a fresh FILE.
    private func rotate(_ state: inout State) {
        Glibc.close(state.descriptor)
        state.descriptor = -1
        let path = settings.path
        if settings.keptFiles > 0 {
            for index in stride(from: settings.keptFiles - 1, through: 1, by: -1) {
                rename("\(path).\(index)", "\(path).\(index + 1)")
            }
            rename(path, "\(path).1")
        } else {
            unlink(path)
        }
        do {
            state.descriptor = try Self.open(path, isRegularFileRequired: settings.isRegularFileRequired)
            state.size = 0
        } catch {
            state.failure = "reopening \(path) after rotating it failed: \(error); the traffic log is stopped"
            logger.error("\(state.failure ?? "")")
        }
    }

    /// Opens the file without ever waiting on it (see `WritablePath.openForAppending`).
    private static func open(_ path: String, isRegularFileRequired: Bool) throws -> Int32 {
        let descriptor: Int32
        do {
            descriptor = try WritablePath.openForAppending(path)
        } catch {
            throw TrafficLogError("the traffic log cannot be opened: \(error)")
        }
        if isRegularFileRequired, let reason = WritablePath.refusal(descriptor: descriptor, path: path) {
            Glibc.close(descriptor)
            throw TrafficLogError("the traffic log cannot be written to \(path): \(reason)")
        }
        return descriptor
    }
}

struct TrafficLogError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
