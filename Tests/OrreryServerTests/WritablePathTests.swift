import Foundation
import Logging
import Testing

@testable import OrreryServer

/// The rule for files the admin API is asked to write, checked with no daemon.
@Suite("Writable paths")
struct WritablePathTests {
    /// A temporary folder holding a FIFO, a regular file, a folder and symbolic links to them.
    final class Scratch {
        let folder: URL

        init() throws {
            folder = try TemporaryFolder.make(files: ["file.txt": "x"])
            guard mkfifo(path("fifo"), 0o600) == 0 else { throw POSIXError(.EIO) }
            symlink(path("fifo"), path("link-to-fifo"))
            symlink("/dev/null", path("link-to-null"))
            symlink(path("file.txt"), path("link-to-file"))
            symlink("/proc/self/mem", path("link-to-proc"))
            symlink(path("nothing-here"), path("dangling"))
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test("a file must be a regular file or a new one, outside /proc and /sys")
    func files() throws {
        let scratch = try Scratch()
        let refused: [(String, String)] = [
            (scratch.path("fifo"), "is a FIFO"), (scratch.path("link-to-fifo"), "is a symbolic link to a FIFO"),
            ("/dev/null", "is a character device"), (scratch.path("link-to-null"), "symbolic link to a character device"),
            ("/proc/self/mem", "is under /proc"), (scratch.path("link-to-proc"), "is under /proc"),
            ("/proc/orrery-new-file", "is under /proc"), ("/sys/kernel/orrery", "is under /sys"),
            (scratch.path("stubs"), "is a folder, not a regular file"), (scratch.path("dangling"), "symbolic link to nothing"),
            ("", "empty"),
        ]
        for (path, reason) in refused {
            let refusal = WritablePath.refusal(path, as: .file)
            #expect(refusal?.contains(reason) == true, "\(path): \(refusal ?? "accepted")")
        }
        for path in [scratch.path("file.txt"), scratch.path("link-to-file"), scratch.path("new.jsonl"), scratch.path("new/deeper.jsonl")] {
            #expect(WritablePath.refusal(path, as: .file) == nil, "\(path) refused")
        }
    }

    @Test("a folder must be a folder or a new one, outside /proc and /sys")
    func folders() throws {
        let scratch = try Scratch()
        #expect(WritablePath.refusal(scratch.path("stubs"), as: .folder) == nil)
        #expect(WritablePath.refusal(scratch.path("recordings/new"), as: .folder) == nil)
        #expect(WritablePath.refusal(scratch.path("file.txt"), as: .folder)?.contains("is a regular file, not a folder") == true)
        #expect(WritablePath.refusal(scratch.path("fifo"), as: .folder)?.contains("is a FIFO") == true)
        #expect(WritablePath.refusal("/proc/self", as: .folder)?.contains("is under /proc") == true)
        #expect(WritablePath.refusal("/sys/orrery-recordings", as: .folder)?.contains("is under /sys") == true)
        let around = scratch.path("not-yet/../../../../../../../../../proc/orrery")
        #expect(WritablePath.refusal(around, as: .folder)?.contains("is under /proc") == true)
    }

    @Test("an open descriptor is checked again: a device or a /proc file is refused")
    func descriptors() throws {
        let null = open("/dev/null", O_WRONLY)
        defer { close(null) }
        #expect(WritablePath.refusal(descriptor: null, path: "/dev/null")?.contains("character device") == true)
        let proc = open("/proc/self/status", O_RDONLY)
        defer { close(proc) }
        #expect(WritablePath.refusal(descriptor: proc, path: "/proc/self/status")?.contains("under /proc") == true)
    }

    @Test("a traffic log opened on a FIFO with no reader fails at once instead of waiting for one")
    func fifoDoesNotBlock() throws {
        let scratch = try Scratch()
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let started = Date()
        #expect(throws: TrafficLogError.self) { _ = try TrafficLog(settings: TrafficLogSettings(path: scratch.path("fifo")), logger: logger) }
        #expect(Date().timeIntervalSince(started) < 5)
        // With a reader, `--log-traffic` may write into a pipe; the admin API's stricter settings refuse it once open.
        let reader = open(scratch.path("fifo"), O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        let piped = try TrafficLog(settings: TrafficLogSettings(path: scratch.path("fifo")), logger: logger)
        piped.close()
        var strict = TrafficLogSettings(path: scratch.path("fifo"))
        strict.isRegularFileRequired = true
        #expect(throws: TrafficLogError.self) { _ = try TrafficLog(settings: strict, logger: logger) }
    }
}
