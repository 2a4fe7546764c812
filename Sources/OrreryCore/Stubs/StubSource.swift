/// Where stub files come from: the names of the files under a stubs folder, and their bytes.
///
/// The loader and the decoder read stub files and body files through a source only, so that the domain reads no
/// disk: the daemon hands them a source on the file system (`FileStubSource`, in OrreryServer), tests and fuzzing a
/// ``MemoryStubSource``. A source reports what it cannot list or read; the loader puts its file and line on it.
public protocol StubSource: Sendable {
    /// The stubs folder as the user named it: errors name files under it (`stubs/shop.yaml`).
    var root: String { get }

    /// The path, relative to the root, of every file under it, in any order, without going into the folders for
    /// which `skipFolder` (given a folder's path relative to the root) is true. A root that is missing, or a
    /// folder that cannot be listed, is an error naming it: a listing with holes would load fewer stubs.
    func files(skippingFolders skipFolder: (String) -> Bool) throws(SourceErrors) -> [String]

    /// The bytes of the file at `path`, relative to the root.
    func contents(of path: String) throws(StubSourceFailure) -> [UInt8]

    /// The bytes of a stub's body file: `reference` as the stub file wrote it, relative to `folder` (the stub
    /// file's folder, relative to the root) unless absolute. A file that is not inside the root, whatever path or
    /// link leads there, is refused as ``StubSourceFailure/outsideRoot``.
    /// A body file over `maximumBytes` is refused as ``StubSourceFailure/tooLarge(bytes:)`` before it is read.
    func bodyFile(_ reference: String, from folder: String, maximumBytes: Int) throws(StubSourceFailure) -> [UInt8]
}

/// Why a source could not give a file's bytes.
public enum StubSourceFailure: Error, Sendable, Equatable {
    /// The file is not inside the stubs folder.
    case outsideRoot
    /// The file cannot be read, with the reason as a phrase (`permission denied`, `no such file or directory`).
    case unreadable(reason: String)
    /// The file is larger than the bound the caller gave (`--max-body-file`), with its size.
    case tooLarge(bytes: Int)
}

extension StubSource {
    /// A path under the root as error messages show it: under the root's name as the user gave it.
    public func display(_ relative: String) -> String {
        if relative.isEmpty { return root }
        return root.hasSuffix("/") ? root + relative : root + "/" + relative
    }
}
