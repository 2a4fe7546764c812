import Foundation
import OrreryCore

/// A stubs folder on disk, as the loader and the decoder read it: every file under it, and body files that must
/// stay inside it, symbolic links resolved.
public struct FileStubSource: StubSource {
    /// The folder as the user named it; error messages use paths under this name.
    public let root: String

    public init(root: String) {
        self.root = root
    }

    public func files(skippingFolders skipFolder: (String) -> Bool) throws(SourceErrors) -> [String] {
        // The folder itself may be a symlink; the enumerator does not follow it.
        let rootURL = URL(fileURLWithPath: root).resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
            throw SourceErrors([SourceError(file: root, line: 0, message: "the stubs folder does not exist")])
        }
        guard isDirectory.boolValue else {
            throw SourceErrors([
                SourceError(
                    file: root, line: 0,
                    message: "is a file, and the stubs folder must be a folder: give the folder that holds it (orrery validate FILE checks one file)")
            ])
        }
        let rootPath = rootURL.standardizedFileURL.path
        var failures: [SourceError] = []
        // Without a handler the enumerator skips what it cannot read, silently.
        let enumerator = FileManager.default.enumerator(
            at: rootURL, includingPropertiesForKeys: [.isDirectoryKey], options: [],
            errorHandler: { [self] url, error in
                let path = url.standardizedFileURL.path
                let relative =
                    path == rootPath
                    ? "" : path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : path
                var isDirectory: ObjCBool = false
                let isFolder =
                    relative.isEmpty
                    || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                        && isDirectory.boolValue)
                failures.append(
                    SourceError(
                        file: display(relative), line: 0,
                        message:
                            "\(isFolder ? "cannot be listed" : "cannot be read"): \(FileAccessFailure(error).reason)"
                    ))
                return true
            })
        guard let enumerator else {
            throw SourceErrors([SourceError(file: root, line: 0, message: "the stubs folder cannot be read")])
        }
        var files: [String] = []
        for case let url as URL in enumerator {
            let path = url.standardizedFileURL.path
            let relative = path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : path
            let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if isFolder {
                if skipFolder(relative) { enumerator.skipDescendants() }
                continue
            }
            files.append(relative)
        }
        guard failures.isEmpty else { throw SourceErrors(failures.sorted { $0.file < $1.file }) }
        return files
    }

    public func contents(of path: String) throws(StubSourceFailure) -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: root).appendingPathComponent(path)))
        } catch {
            throw .unreadable(reason: FileAccessFailure(error).reason)
        }
    }

    /// `folder` is relative to the root, or an absolute path (a stub sent to the admin API names the folder its
    /// body files are relative to).
    public func bodyFile(_ reference: String, from folder: String, maximumBytes: Int) throws(StubSourceFailure) -> [UInt8] {
        let rootURL = URL(fileURLWithPath: root)
        let directory = folder.hasPrefix("/") ? URL(fileURLWithPath: folder) : rootURL.appendingPathComponent(folder)
        let resolvedRoot = rootURL.standardizedFileURL.resolvingSymlinksInPath().path
        let candidate =
            (reference.hasPrefix("/")
            ? URL(fileURLWithPath: reference) : directory.appendingPathComponent(reference))
            .standardizedFileURL.resolvingSymlinksInPath().path
        guard candidate.hasPrefix(resolvedRoot.hasSuffix("/") ? resolvedRoot : resolvedRoot + "/") else {
            throw .outsideRoot
        }
        // Read whole, and held for every stub that names it: the size is checked first, not found out by reading.
        if let size = (try? FileManager.default.attributesOfItem(atPath: candidate))?[.size] as? Int, size > maximumBytes {
            throw .tooLarge(bytes: size)
        }
        guard let data = FileManager.default.contents(atPath: candidate) else {
            throw .unreadable(reason: "it does not exist or cannot be read")
        }
        return Array(data)
    }
}
