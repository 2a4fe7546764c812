import Foundation
import OrreryCore

/// A cheap summary of a folder's files (paths, sizes and modification times) to notice edits without inotify.
struct FolderFingerprint: Equatable {
    private var value: Int

    /// - Parameter excluding: folders under `folder` (relative paths) left out; `""` leaves out everything.
    init(folder: String, excluding: Set<String> = []) {
        var hasher = Hasher()
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey, .isDirectoryKey]
        if !excluding.contains(""), let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) {
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
            for (path, size, modified) in entries.sorted(by: { $0.0 < $1.0 }) {
                hasher.combine(path)
                hasher.combine(size)
                hasher.combine(modified)
            }
        }
        value = hasher.finalize()
    }
}
