import Foundation
import OrreryCore

extension StubLoader {
    /// A loader for the stubs folder at `root` on disk.
    public init(root: String, excludedFolders: Set<String> = [], idNamespace: String = "") {
        self.init(source: FileStubSource(root: root), excludedFolders: excludedFolders, idNamespace: idNamespace)
    }

    /// Loads a stubs folder, or a single stub file (`orrery validate stubs/users.yaml`), whose body files are then
    /// looked for beside it.
    public static func loadPath(
        _ path: String, maximumBodyFileBytes: Int = StubDecoder.defaultMaximumBodyFileBytes
    ) throws(SourceErrors) -> (stubs: [Stub], files: Int) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            var loader = StubLoader(root: path)
            loader.maximumBodyFileBytes = maximumBodyFileBytes
            return try loader.loadWithFileCount()
        }
        let folder = (path as NSString).deletingLastPathComponent
        var loader = StubLoader(root: folder.isEmpty ? "." : folder)
        loader.maximumBodyFileBytes = maximumBodyFileBytes
        return (try loader.loadFile((path as NSString).lastPathComponent), 1)
    }

    /// `folder` relative to `root` when it lies inside it (`stubs/recorded` under `stubs` is `recorded`), symbolic
    /// links resolved.
    public static func relativePath(of folder: String, under root: String) -> String? {
        let rootPath = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
        let path = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
        if path == rootPath { return "" }
        return path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : nil
    }
}

extension StubDecoder {
    /// A decoder for stub text that is no file of the folder (a stub sent to the admin API): `bodyFile` paths are
    /// relative to `directory` and must stay inside the stubs folder `stubsRoot`.
    public init(displayPath: String, directory: URL, stubsRoot: URL, makeID: @escaping (Int) -> String) {
        let folder = StubLoader.relativePath(of: directory.path, under: stubsRoot.path) ?? directory.path
        self.init(
            displayPath: displayPath, source: FileStubSource(root: stubsRoot.path), folder: folder, makeID: makeID)
    }
}

extension WireMockLoader {
    /// A loader for WireMock roots on disk, each with its `mappings/` and `__files/` folders.
    public init(roots: [String]) {
        self.init(
            sources: roots.map { root in
                let folder = root.hasSuffix("/") ? root : root + "/"
                return Root(
                    path: root, mappings: FileStubSource(root: folder + "mappings"),
                    bodyFiles: FileStubSource(root: folder + "__files"))
            })
    }
}
