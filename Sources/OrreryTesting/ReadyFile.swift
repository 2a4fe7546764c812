import Foundation

/// What `orrery serve --ready-file FILE` writes once it answers: `{"url", "port", "pid", "version"}`.
struct ReadyFile: Decodable, Sendable, Equatable {
    let url: String
    let port: Int
    let pid: Int32
    let version: String
    let tlsPort: Int?

    /// The file at `path` once the daemon has written it whole, or nil while it is not there.
    ///
    /// The daemon writes `FILE.tmp` and renames it, so a file that is there is complete; one that does not decode is
    /// taken as not there yet rather than as an error, in case another writer is at work.
    static func read(at path: String) -> ReadyFile? {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return nil }
        return try? JSONDecoder().decode(ReadyFile.self, from: data)
    }
}
