import Foundation

/// A path the admin API is asked to write to (a traffic log, a recording folder), checked before anything opens it.
///
/// A client of the admin API must not be able to make the daemon write into a device (`/dev/sda`), the kernel's
/// files (`/proc/self/mem`, `/sys/...`) or a FIFO: opening a FIFO for writing waits for a reader, and the admin API
/// runs on an event loop. So a file must be a regular file or a new one, and a folder a folder or a new one.
enum WritablePath {
    enum Kind {
        case file
        case folder
    }

    /// Nil when `path` may be written as `kind`, else why not (`/dev/null is a character device`).
    static func refusal(_ path: String, as kind: Kind) -> String? {
        guard !path.isEmpty else { return "the path is empty" }
        var link = stat()
        if lstat(path, &link) == 0 {
            var target = link
            let isLink = link.st_mode & S_IFMT == S_IFLNK
            if isLink {
                guard stat(path, &target) == 0 else { return "\(path) is a symbolic link to nothing that exists" }
            }
            let type = target.st_mode & S_IFMT
            let expected = kind == .file ? S_IFREG : S_IFDIR
            if type != expected {
                let what = isLink ? "a symbolic link to \(describe(type))" : describe(type)
                return "\(path) is \(what), not \(kind == .file ? "a regular file" : "a folder")"
            }
        } else if errno != ENOENT {
            return "\(path) cannot be examined: \(String(cString: strerror(errno)))"
        }
        if let kernel = kernelFileSystem(at: realLocation(of: path)) {
            return "\(path) is under \(kernel), the kernel's view of the system, not a place for files"
        }
        return nil
    }

    /// Nil when an open descriptor is a regular file outside /proc and /sys, else why not: checked again after
    /// opening, because the path may have changed since `refusal` looked at it.
    static func refusal(descriptor: Int32, path: String) -> String? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return "\(path) cannot be examined: \(String(cString: strerror(errno)))" }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else { return "\(path) is \(describe(type)), not a regular file" }
        if let kernel = kernelFileSystem(device: status.st_dev) {
            return "\(path) is under \(kernel), the kernel's view of the system, not a place for files"
        }
        return nil
    }

    /// Opens a file for appending, creating it, without ever waiting: a FIFO with no reader fails at once (ENXIO)
    /// instead of holding up the thread, and a terminal does not become the daemon's controlling terminal.
    static func openForAppending(_ path: String) throws(FileError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o644)
        guard descriptor >= 0 else {
            if errno == ENXIO { throw FileError("opening \(path) failed: it is a FIFO or socket with no reader") }
            throw FileError(path: path, doing: "opening")
        }
        // Blocking again for the writes: on a pipe (`--log-traffic` to another program) a non-blocking write could
        // write part of a line. Regular files ignore the flag either way.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return descriptor
    }

    /// The path with every symbolic link resolved, as far as it exists: a file or folder that is still to be made
    /// is placed under its nearest existing ancestor's real location, its `..` taken as a folder maker would take
    /// them (`/tmp/new/../../proc/x` is under /proc).
    static func realLocation(of path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var existing = absolute
        var missing: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                var components = String(cString: resolved).split(separator: "/").map(String.init)
                for component in missing.reversed() {
                    if component == ".." {
                        _ = components.popLast()
                    } else if component != "." && !component.isEmpty {
                        components.append(component)
                    }
                }
                return "/" + components.joined(separator: "/")
            }
            let parent = (existing as NSString).deletingLastPathComponent
            guard parent != existing, !parent.isEmpty else { return absolute }
            missing.append((existing as NSString).lastPathComponent)
            existing = parent
        }
    }

    /// `/proc` or `/sys` when `path` lies on one of them: by name, or by device, so that a /proc mounted
    /// elsewhere (`/host/proc` in a container) counts too.
    private static func kernelFileSystem(at path: String) -> String? {
        for name in ["/proc", "/sys"] where path == name || path.hasPrefix(name + "/") { return name }
        var existing = path
        var status = stat()
        while stat(existing, &status) != 0 {
            let parent = (existing as NSString).deletingLastPathComponent
            guard parent != existing, !parent.isEmpty else { return nil }
            existing = parent
        }
        return kernelFileSystem(device: status.st_dev)
    }

    /// `/proc` or `/sys` when `device` is the one mounted there. Every mount of the same procfs or sysfs shares
    /// its device number.
    private static func kernelFileSystem(device: dev_t) -> String? {
        var root = stat()
        guard stat("/", &root) == 0 else { return nil }
        for name in ["/proc", "/sys"] {
            var mount = stat()
            // Not mounted, /proc is a plain folder of the root file system, whose device says nothing.
            if stat(name, &mount) == 0, mount.st_dev != root.st_dev, mount.st_dev == device { return name }
        }
        return nil
    }

    private static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFDIR: "a folder"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        case S_IFREG: "a regular file"
        default: "not a regular file"
        }
    }
}
