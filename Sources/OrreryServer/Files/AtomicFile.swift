import Foundation

/// Writes a file so that readers (and a process killed half-way) see the old or the new contents, never a part: a
/// temporary file beside it (named with a leading dot and ending in `.tmp`, which the stub loader skips), flushed,
/// then renamed over the target.
enum AtomicFile {
    /// Throws a `FileError` that names the file and says why (`No space left on device`).
    static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, doing: "creating a temporary file for") }
        var failure = writeAll(bytes, to: descriptor, path: path, doing: "writing")
        if failure == nil, fsync(descriptor) != 0 { failure = FileError(path: path, doing: "flushing") }
        if close(descriptor) != 0, failure == nil { failure = FileError(path: path, doing: "closing") }
        if failure == nil, rename(temporary, path) != 0 { failure = FileError(path: path, doing: "renaming into place") }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Adds `bytes` at the end of an existing file, in one write where the system allows: what a recording appends
    /// to a route file (a new request, or a new answer at the end of a sequence) is whole text of its own, so the
    /// file is not written anew for it. Not flushed to disk each time; a file cut short by a crash loses its last
    /// item at most.
    static func append(_ bytes: [UInt8], to path: String) throws(FileError) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileError(path: path, doing: "opening to append to") }
        var failure = writeAll(bytes, to: descriptor, path: path, doing: "appending to")
        if close(descriptor) != 0, failure == nil { failure = FileError(path: path, doing: "closing") }
        if let failure { throw failure }
    }

    /// Writes every byte to `descriptor`, again after a short write or `EINTR`; the error that stopped it, if any.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String, doing: String) -> FileError? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return FileError(path: path, doing: doing)
            }
        }
        return nil
    }

    /// Removes the temporary files that processes no longer running left under `folder` (never read: the loader
    /// skips them). Those of a live process, another daemon writing there, stay.
    static func removeLeftovers(in folder: String) {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return }
        for case let relative as String in enumerator {
            let name = (relative as NSString).lastPathComponent
            guard name.hasPrefix("."), name.hasSuffix(".tmp") else { continue }
            // `.NAME.PID.RANDOM.tmp`
            let parts = name.split(separator: ".")
            guard parts.count >= 4, let pid = pid_t(parts[parts.count - 3]) else { continue }
            if pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + relative) }
        }
    }

    /// Makes a folder and its parents.
    static func makeFolder(_ path: String) throws(FileError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw FileError("making the folder \(path) failed: \((error as NSError).localizedDescription)")
        }
    }
}

/// A file operation that failed, with the system's reason: `writing recordings/a.GET.yaml failed: No space left
/// on device`.
public struct FileError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }

    /// From `errno`, right after the failing call.
    init(path: String, doing action: String) {
        description = "\(action) \(path) failed: \(String(cString: strerror(errno)))"
    }
}

/// Small questions about the file system.
enum FileSystem {
    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
