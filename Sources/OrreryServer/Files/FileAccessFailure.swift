import Foundation

/// Why a file or folder under the stubs folder could not be listed or read, from the error Foundation gives.
public struct FileAccessFailure: Error, Sendable {
    /// The system's reason, as a phrase: `permission denied`, `too many open files`.
    public let reason: String
    /// Out of file descriptors or memory, or interrupted: a later attempt may well succeed, and nothing on disk
    /// changed.
    public let isTransient: Bool

    public init(_ error: any Error) {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        let posix =
            underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? Int32(truncatingIfNeeded: $0.code) : nil }
            ?? Self.posixCode(error as NSError)
        let transient: [POSIXErrorCode] = [.EMFILE, .ENFILE, .ENOMEM, .EAGAIN, .EINTR]
        isTransient = posix.map { code in transient.contains { $0.rawValue == code } } ?? false
        var text: String
        if let posix, let known = Self.reasons[posix] {
            text = known
        } else {
            // Foundation's own words, as a phrase: "You don’t have permission." → "you don’t have permission".
            text = (underlying ?? (error as NSError)).localizedDescription
            if let first = text.first { text = first.lowercased() + text.dropFirst() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        if posix == POSIXErrorCode.EMFILE.rawValue || posix == POSIXErrorCode.ENFILE.rawValue {
            text += " (the file descriptor limit is reached)"
        }
        reason = text
    }

    /// The POSIX code of an error that is one, or of a Cocoa error that stands for one (reading a file reports a
    /// missing permission as `fileReadNoPermission`, with no POSIX error inside).
    private static func posixCode(_ error: NSError) -> Int32? {
        if error.domain == NSPOSIXErrorDomain { return Int32(truncatingIfNeeded: error.code) }
        guard error.domain == NSCocoaErrorDomain else { return nil }
        switch CocoaError.Code(rawValue: error.code) {
        case .fileReadNoPermission, .fileWriteNoPermission: return POSIXErrorCode.EACCES.rawValue
        case .fileReadNoSuchFile, .fileNoSuchFile: return POSIXErrorCode.ENOENT.rawValue
        default: return nil
        }
    }

    /// The usual reasons in the same words on every system.
    private static let reasons: [Int32: String] = [
        POSIXErrorCode.EACCES.rawValue: "permission denied",
        POSIXErrorCode.EPERM.rawValue: "operation not permitted",
        POSIXErrorCode.ENOENT.rawValue: "no such file or directory",
        POSIXErrorCode.ENOTDIR.rawValue: "a path component is not a folder",
        POSIXErrorCode.EMFILE.rawValue: "too many open files",
        POSIXErrorCode.ENFILE.rawValue: "too many open files in the system",
        POSIXErrorCode.ENOMEM.rawValue: "out of memory",
        POSIXErrorCode.ELOOP.rawValue: "too many levels of symbolic links",
        POSIXErrorCode.EIO.rawValue: "input/output error",
        POSIXErrorCode.ENAMETOOLONG.rawValue: "file name too long",
    ]
}
