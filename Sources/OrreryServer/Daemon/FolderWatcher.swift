import Foundation
import Glibc
import OrreryCore

/// Notices changes under the stubs folders through inotify: the kernel keeps a queue of what changed, and a check
/// is one read of that queue, so an idle daemon costs nothing however many files it watches (a walk of 20,000
/// files every second took half a core).
///
/// Every folder below a watched one is watched too, and a folder created later is added when its creation is read.
/// Temporary files (editors' swap and backup files) and the excluded folders do not count as changes.
final class FolderWatcher {
    typealias Folders = [(folder: String, excluding: Set<String>)]

    private let fd: Int32
    /// The folders as asked for: another set means another watcher.
    let folders: Folders
    /// Each watch: which of `folders` it is under, and its path relative to that folder (`""` for the folder).
    private var watches: [Int32: (root: Int, relative: String)] = [:]
    /// Roots that could not be watched yet (missing, say): tried again at each check, a change once they can be.
    private var unwatchedRoots: Set<Int> = []
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Why a watch could not be added, once: the inotify limits are the kernel's, and a log line says which.
    private(set) var failure: String?

    private static let mask: UInt32 = UInt32(
        IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF
            | IN_MOVE_SELF | IN_ONLYDIR)

    /// Nil when the kernel gives no inotify instance (none left for this user, say): the caller falls back.
    init?(folders: Folders) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.folders = folders
        for index in folders.indices where !folders[index].excluding.contains("") {
            if !watchTree(root: index, relative: "") { unwatchedRoots.insert(index) }
        }
    }

    deinit {
        close(fd)
    }

    /// Whether `folders` are the ones this watcher watches.
    func watches(_ folders: Folders) -> Bool {
        folders.count == self.folders.count
            && zip(folders, self.folders).allSatisfy { $0.folder == $1.folder && $0.excluding == $1.excluding }
    }

    /// Whether anything changed since the last check; reads what the kernel queued, without waiting.
    func hasChanges() -> Bool {
        var changed = false
        for root in unwatchedRoots where watchTree(root: root, relative: "") {
            unwatchedRoots.remove(root)
            changed = true
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + 16 <= count {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    (
                        raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                        Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                offset += 16 + length
                changed = handle(wd: wd, mask: mask, name: String(decoding: nameBytes, as: UTF8.self)) || changed
            }
        }
        return changed
    }

    /// Takes one event in; whether it is a change that calls for a reload.
    private func handle(wd: Int32, mask: UInt32, name: String) -> Bool {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }
        if mask & UInt32(IN_IGNORED) != 0 {
            // The folder went away (or was moved): its watch is gone with it.
            if let watch = watches.removeValue(forKey: wd), watch.relative.isEmpty { unwatchedRoots.insert(watch.root) }
            return false
        }
        guard let watch = watches[wd] else { return false }
        if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 { return true }
        guard !name.isEmpty else { return true }
        let relative = watch.relative.isEmpty ? name : watch.relative + "/" + name
        if folders[watch.root].excluding.contains(where: { relative == $0 || relative.hasPrefix($0 + "/") }) {
            return false
        }
        if mask & UInt32(IN_ISDIR) != 0 {
            if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { _ = watchTree(root: watch.root, relative: relative) }
            return true
        }
        return !StubLoader.isTemporary(name)
    }

    /// Watches a folder and every folder below it; false when the folder itself could not be watched.
    @discardableResult
    private func watchTree(root: Int, relative: String) -> Bool {
        let base = folders[root].folder
        let path = relative.isEmpty ? base : (base.hasSuffix("/") ? base : base + "/") + relative
        let wd = inotify_add_watch(fd, path, Self.mask)
        guard wd >= 0 else {
            if errno == ENOSPC, failure == nil {
                failure = "cannot watch \(EscapedText.escaped(path)): the inotify watches are used up (sysctl fs.inotify.max_user_watches)"
            }
            return false
        }
        watches[wd] = (root, relative)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return true }
        for name in names {
            let child = relative.isEmpty ? name : relative + "/" + name
            // lstat: a link to a folder is not followed (as loading does not), so a link loop cannot recurse.
            var status = stat()
            guard lstat(path + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFDIR,
                !folders[root].excluding.contains(child)
            else { continue }
            watchTree(root: root, relative: child)
        }
        return true
    }
}
