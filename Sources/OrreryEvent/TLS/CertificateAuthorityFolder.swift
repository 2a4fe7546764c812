import Glibc

/// The folder that holds the local CA: its files, and the lock that keeps two processes from both creating one.
struct CertificateAuthorityFolder {
    let path: String

    static let certificateFileName = "ca.pem"
    static let keyFileName = "ca-key.pem"
    static let lockFileName = "ca.lock"

    var certificatePath: String { path + "/" + Self.certificateFileName }
    var keyPath: String { path + "/" + Self.keyFileName }

    /// Creates the folder and any missing parents with mode 0700 (the XDG rule for data folders), unless it exists.
    func create() throws(EventError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var status = stat()
            if stat(prefix, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else { throw EventError("\(prefix) exists and is not a folder") }
                continue
            }
            guard errno == ENOENT else { throw EventError.system("cannot use the CA folder \(prefix)") }
            guard mkdir(prefix, 0o700) == 0 || errno == EEXIST else {
                throw EventError.system("cannot create the CA folder \(prefix)")
            }
            // mkdir's mode passes through the umask; an odd umask must not leave the folder unusable.
            _ = chmod(prefix, 0o700)
        }
    }

    /// Runs `body` while holding an exclusive lock on the folder's lock file, which another Orrery waits for.
    /// When the lock file cannot be created (a read-only folder holding a CA), `body` runs without it: with
    /// nothing to create there is nothing to race for.
    func withLock<Result>(_ body: () throws(EventError) -> Result) throws(EventError) -> Result {
        let lockPath = path + "/" + Self.lockFileName
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            guard errno == EROFS || errno == EACCES else { throw EventError.system("cannot open \(lockPath)") }
            return try body()
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw EventError.system("cannot lock \(lockPath)") }
        }
        return try body()
    }

    /// Whether `file` exists (a broken link or an unreadable one counts: reading it then says why).
    func exists(_ file: String) throws(EventError) -> Bool {
        var status = stat()
        if lstat(file, &status) == 0 { return true }
        guard errno == ENOENT else { throw EventError.system("cannot look at \(file)") }
        return false
    }

    /// The permission bits of `file`.
    func mode(of file: String) throws(EventError) -> mode_t {
        var status = stat()
        guard stat(file, &status) == 0 else { throw EventError.system("cannot read \(file)") }
        return status.st_mode & 0o7777
    }

    /// The whole of a small file.
    func read(_ file: String) throws(EventError) -> [UInt8] {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw EventError.system("cannot read \(file)") }
        defer { close(fd) }
        let limit = 1 << 20
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw EventError.system("cannot read \(file)") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= limit else { throw EventError("\(file) is larger than 1 MB: not a CA file") }
        }
    }

    /// Writes a new file whole, with `mode` from its first instant: into a temporary file created exclusively with
    /// that mode, then linked to its name, which fails rather than replace a file that is already there.
    func writeNew(_ file: String, _ bytes: [UInt8], mode: mode_t) throws(EventError) {
        let temporary = "\(path)/.\(Self.fileName(file)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw EventError.system("cannot create \(temporary)") }
        defer { unlink(temporary) }
        var failure: EventError?
        // The umask may have taken bits away; it never adds any, so the file was never more open than `mode`.
        if fchmod(fd, mode) != 0 { failure = EventError.system("cannot set the mode of \(temporary)") }
        var written = 0
        while failure == nil, written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { failure = EventError.system("cannot write \(temporary)") } else { written += count }
        }
        if failure == nil, fsync(fd) != 0 { failure = EventError.system("cannot write \(temporary)") }
        if close(fd) != 0, failure == nil { failure = EventError.system("cannot write \(temporary)") }
        if let failure { throw failure }
        guard link(temporary, file) == 0 else {
            guard errno != EEXIST else { throw EventError("\(file) appeared while the CA was being created; not replaced") }
            // Some file systems have no hard links; the lock already keeps other Orrerys out.
            guard errno == EPERM || errno == ENOTSUP || errno == EMLINK, rename(temporary, file) == 0 else {
                throw EventError.system("cannot create \(file)")
            }
            return
        }
    }

    /// Makes the new names durable: flushes the folder itself.
    func sync() {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func fileName(_ path: String) -> Substring {
        path.split(separator: "/").last ?? Substring(path)
    }
}
