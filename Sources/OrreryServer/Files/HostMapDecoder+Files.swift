import Foundation
import OrreryCore

extension HostMapDecoder {
    /// Loads the map at `path`; nil when the file does not exist (the map is optional).
    public static func load(path: String) throws(SourceErrors) -> HostMap? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SourceErrors([SourceError(file: path, line: 0, message: "cannot be read")])
        }
        return try decode(Array(data), file: path)
    }
}
