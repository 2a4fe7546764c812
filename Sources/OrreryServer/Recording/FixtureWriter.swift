import Foundation
import OrreryCore

/// Writes recorded exchanges into a recording folder: each to its route's fixture file, body files first, every
/// file whole (a temporary file, then a rename). Used by the recorder as traffic passes and by `orrery import har`.
public struct FixtureWriter: Sendable {
    public let folder: String
    /// Route files that exist are written anew (record mode `all`) rather than appended to.
    public let isReplacing: Bool
    /// Request headers the fixtures must match.
    public let matchHeaders: [String]
    /// Where the exchanges come from, for the comment at the top of a new file (`a recording`, `session.har`).
    public let origin: String
    /// The route files written most recently, kept open by route file with the turn of their last write: a
    /// recording of many routes keeps at most `openFileLimit` of them, and about `openBytesLimit` bytes, in memory.
    private var files: [String: (file: FixtureFile, turn: Int)] = [:]
    /// Route files whose text on disk is what their `FixtureFile` last rendered: what is added at the end of one is
    /// appended to it.
    private var isWritten: Set<String> = []
    private var turn = 0
    /// In mode `all`, the hashes of the route files let go of: written by this writer, they are appended to when
    /// their route comes again, not written anew (8 bytes a file, where an open file holds its fixtures).
    private var letGo: Set<Int> = []
    private var openBytes = 0
    /// How many route files stay open. One let go of is read back from disk when its route is recorded again, as a
    /// file of an earlier recording is: the same answer again adds nothing, a new request or answer is appended.
    public static let openFileLimit = 256
    /// About how many bytes the open files may hold in all.
    public static let openBytesLimit = 8 * 1024 * 1024

    public init(folder: String, isReplacing: Bool, matchHeaders: [String] = [], origin: String) {
        self.folder = folder
        self.origin = origin
        self.isReplacing = isReplacing
        self.matchHeaders = matchHeaders
    }

    /// Adds the exchange to its route's file and writes that file; returns the file's path relative to the folder,
    /// or nil when nothing changed (the same answer again).
    @discardableResult
    public mutating func write(_ exchange: RecordedExchange) throws(FileError) -> String? {
        let route = FixtureLayout.routeFile(folder: exchange.folder, method: exchange.method, path: exchange.path)
        var file: FixtureFile
        if let open = files.removeValue(forKey: route) {
            file = open.file
            openBytes -= open.file.retainedBytes
        } else {
            isWritten.remove(route)
            file = openFile(route, isReplacing: isReplacing && !letGo.contains(route.hashValue))
        }
        // Put back (or let go of) whatever happens below.
        defer { keep(file, route: route) }
        guard file.add(exchange) else { return nil }
        let path = folder + "/" + file.relativePath
        if let appended = file.appended, isWritten.contains(route) {
            try writeBodyFiles(appended.bodyFiles)
            do {
                try AtomicFile.append(Array(appended.text.utf8), to: path)
            } catch {
                isWritten.remove(route)
                throw error
            }
            return file.relativePath
        }
        let (text, bodyFiles) = file.render()
        try writeBodyFiles(bodyFiles)
        try AtomicFile.makeFolder((path as NSString).deletingLastPathComponent)
        try AtomicFile.write(Array(text.utf8), to: path)
        isWritten.insert(route)
        return file.relativePath
    }

    /// Keeps `file` open as the newest, and lets go of the oldest open files while over the limits; a file over
    /// the byte limit on its own is not kept.
    private mutating func keep(_ file: FixtureFile, route: String) {
        turn += 1
        files[route] = (file, turn)
        openBytes += file.retainedBytes
        guard files.count > Self.openFileLimit || openBytes > Self.openBytesLimit else { return }
        // Sorted once per trim, down to three quarters of the limits, so that trimming is rare.
        let byAge = files.sorted { $0.value.turn < $1.value.turn }
        for (oldest, open) in byAge {
            guard files.count > Self.openFileLimit * 3 / 4 || openBytes > Self.openBytesLimit * 3 / 4 else { break }
            files[oldest] = nil
            isWritten.remove(oldest)
            openBytes -= open.file.retainedBytes
            if isReplacing { letGo.insert(oldest.hashValue) }
        }
    }

    private func writeBodyFiles(_ bodyFiles: [(path: String, bytes: [UInt8])]) throws(FileError) {
        for body in bodyFiles {
            let path = folder + "/" + body.path
            // Body files are named by content: one already there holds these bytes.
            guard !FileManager.default.fileExists(atPath: path) else { continue }
            try AtomicFile.makeFolder((path as NSString).deletingLastPathComponent)
            try AtomicFile.write(body.bytes, to: path)
        }
    }

    /// A new file for the route, or the one on disk appended to when it is a plain list of fixtures; a file of
    /// another shape is left alone for a numbered sibling (`users.GET.2.yaml`).
    private func openFile(_ route: String, isReplacing: Bool) -> FixtureFile {
        // No time stamp nor version: recording the same traffic again must leave the file as it was.
        let comment = "Recorded by Orrery from \(origin); edit freely."
        guard !isReplacing else { return FixtureFile(relativePath: route, comment: comment) }
        var candidate = route
        var number = 1
        while true {
            guard let data = FileManager.default.contents(atPath: folder + "/" + candidate) else {
                return FixtureFile(relativePath: candidate, comment: comment)
            }
            if let text = String(validating: data, as: UTF8.self), FixtureFile.isBareList(text) {
                return FixtureFile(relativePath: candidate, appendingTo: text)
            }
            number += 1
            candidate = String(route.dropLast(".yaml".count)) + ".\(number).yaml"
        }
    }
}
