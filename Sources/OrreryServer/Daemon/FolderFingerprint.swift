import Foundation
import OrreryCore

/// A cheap summary of a folder's files (paths, sizes and modification times) to notice edits without inotify.
struct FolderFingerprint: Equatable {
    private var value: Int

    /// Nil when the folder could not be listed for a passing reason (no file descriptor or memory left): that
    /// says nothing about the files, so the watcher keeps what it knew instead of seeing them all gone. A folder
    /// or file that cannot be read for another reason (a permission taken away, the folder removed) is part of
    /// the fingerprint: a change, which the reload it triggers reports by name.
    ///
    /// - Parameter excluding: folders under `folder` (relative paths) left out; `""` leaves out everything.
    init?(folder: String, excluding: Set<String> = []) {
        var hasher = Hasher()
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey, .isDirectoryKey]
        if !excluding.contains("") {
            var failures: [(path: String, reason: String)] = []
            var isTransient = false
            // Without a handler the enumerator skips what it cannot read, which would look like files removed.
            let enumerator = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: keys, options: [],
                errorHandler: { url, error in
                    let failure = FileAccessFailure(error)
                    isTransient = isTransient || failure.isTransient
                    failures.append((url.path, failure.reason))
                    return true
                })
            guard let enumerator else { return nil }
            var entries: [(String, Int, Double)] = []
            for case let url as URL in enumerator {
                guard !StubLoader.isTemporary(url.lastPathComponent),
                    let values = try? url.resourceValues(forKeys: Set(keys))
                else { continue }
                if values.isDirectory == true {
                    let relative = url.standardizedFileURL.path.dropFirst(root.path.count + 1)
                    if excluding.contains(String(relative)) { enumerator.skipDescendants() }
                    continue
                }
                entries.append(
                    (url.path, values.fileSize ?? 0, values.contentModificationDate?.timeIntervalSince1970 ?? 0))
            }
            if isTransient { return nil }
            for (path, size, modified) in entries.sorted(by: { $0.0 < $1.0 }) {
                hasher.combine(path)
                hasher.combine(size)
                hasher.combine(modified)
            }
            for failure in failures.sorted(by: { $0.path < $1.path }) {
                hasher.combine(failure.path)
                hasher.combine(failure.reason)
            }
        }
        value = hasher.finalize()
    }
}
