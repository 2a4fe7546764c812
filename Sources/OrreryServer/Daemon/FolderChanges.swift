import Glibc
import Logging

/// What the daemon's watch asks each interval: inotify when the kernel allows it, else a walk of the files.
struct FolderChanges {
    private var watcher: FolderWatcher?
    private var fingerprint: [FolderFingerprint?] = []
    /// A change read while the daemon had no descriptors to spare: reloading then would fail to read the files,
    /// and the kernel will not report the change again, so it waits here for descriptors.
    private var isPending = false
    private let logger: Logger

    init(folders: FolderWatcher.Folders, logger: Logger) {
        self.logger = logger
        start(folders)
    }

    private mutating func start(_ folders: FolderWatcher.Folders) {
        watcher = FolderWatcher(folders: folders)
        if let failure = watcher?.failure {
            logger.warning("\(failure); checking the files by walking them instead")
            watcher = nil
        } else if watcher == nil {
            logger.warning("no inotify instance left; checking the files by walking them instead")
        }
        if watcher == nil { fingerprint = folders.map { FolderFingerprint(folder: $0.folder, excluding: $0.excluding) } }
    }

    /// Whether the files under `folders` changed since the last check. Another set of folders (a recording
    /// pinned or let go) counts as a change, as it did when the files were walked.
    mutating func check(_ folders: FolderWatcher.Folders) -> Bool {
        if let watcher {
            guard watcher.watches(folders) else {
                start(folders)
                return true
            }
            let changed = watcher.hasChanges() || isPending
            if changed, !Self.hasSpareDescriptors() {
                isPending = true
                return false
            }
            isPending = false
            if let failure = watcher.failure {
                // A folder made since could not be watched: from now on the files are walked.
                logger.warning("\(failure); checking the files by walking them instead")
                self.watcher = nil
                fingerprint = folders.map { FolderFingerprint(folder: $0.folder, excluding: $0.excluding) }
                return true
            }
            return changed
        }
        let current = folders.map { FolderFingerprint(folder: $0.folder, excluding: $0.excluding) }
        // A listing cut short by a lack of file descriptors says nothing about the files: try again later.
        guard !current.contains(nil), current != fingerprint else { return false }
        fingerprint = current
        return true
    }

    /// Whether a reload could open the files it reads: a few descriptors are taken and given back at once.
    static func hasSpareDescriptors(_ count: Int = 8) -> Bool {
        var taken: [Int32] = []
        defer { taken.forEach { close($0) } }
        for _ in 0..<count {
            let fd = dup(STDERR_FILENO)
            guard fd >= 0 else { return errno != EMFILE && errno != ENFILE }
            taken.append(fd)
        }
        return true
    }
}
