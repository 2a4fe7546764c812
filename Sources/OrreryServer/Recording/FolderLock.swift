import Foundation

/// The lock a daemon holds on the folder it records into: `.orrery.lock` in the folder, locked with `flock` and
/// naming its holder (pid and port), so that a second daemon asking for the folder is refused with the holder's name
/// instead of both writing and one losing its fixtures. The kernel drops the lock when the holder exits, however it
/// exits; the file is removed when the recording stops. Its name starts with `.`, so the loader skips it.
final class FolderLock: Sendable {
    static let fileName = ".orrery.lock"

    let path: String
    private let descriptor: Int32

    /// Takes the folder's lock, or throws naming who holds it. `holder` is written into the file (`pid 12, port
    /// 8080`).
    init(folder: String, holder: String) throws(RecordingError) {
        path = (folder.hasSuffix("/") ? folder : folder + "/") + Self.fileName
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw RecordingError("cannot open \(path): \(String(cString: strerror(errno)))")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let holder = Self.read(descriptor)
                close(descriptor)
                throw RecordingError(
                    "\(folder) is being recorded into by another Orrery (\(holder.isEmpty ? "its pid and port unknown" : holder)); stop that recording or choose another folder")
            }
            // A holder that stopped removed the file after this one opened it: lock the file that is there now.
            var opened = stat()
            var current = stat()
            if fstat(descriptor, &opened) == 0, stat(path, &current) == 0, opened.st_ino == current.st_ino,
                opened.st_dev == current.st_dev
            {
                let text = Array((holder + "\n").utf8)
                _ = ftruncate(descriptor, 0)
                _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
                self.descriptor = descriptor
                return
            }
            close(descriptor)
        }
    }

    /// Removes a lock file that no process holds (one a killed daemon left), as the leftovers of a recording are
    /// removed; a held one stays.
    static func removeStale(in folder: String) {
        let path = (folder.hasSuffix("/") ? folder : folder + "/") + fileName
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
        close(descriptor)
    }

    /// Removes the file and lets go of the lock.
    func release() {
        unlink(path)
        close(descriptor)
    }

    private static func read(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return "" }
        return String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
