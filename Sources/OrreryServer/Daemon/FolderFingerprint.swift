import Foundation
import OrreryCore

/// A cheap summary of a folder's files (paths, sizes and modification times) to notice edits without inotify.
struct FolderFingerprint: Equatable {
    private var value: Int

    init(folder: String) {
        var hasher = Hasher()
        let root = URL(fileURLWithPath: folder)
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey, .isDirectoryKey]
        if let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) {
            var entries: [(String, Int, Double)] = []
            for case let url as URL in enumerator {
                guard !StubLoader.isTemporary(url.lastPathComponent),
                    let values = try? url.resourceValues(forKeys: Set(keys)), values.isDirectory != true
                else { continue }
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
