import CLibevent
import Glibc

/// Process-wide libevent setup, done once before the first event base exists.
enum Libevent {
    /// Runs `evthread_use_pthreads` (without it, waking a loop from another thread does nothing, and stopping
    /// hangs), keeps malloc from returning small amounts of memory as requests come and go, and ignores SIGPIPE (libevent does not, and a peer that hangs up would kill the process) and SIGXFSZ
    /// (a file over the size limit then fails its write with EFBIG, which the recorder and logs report, instead of
    /// killing the daemon).
    static let prepared: Bool = {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        // Each loop's allocations come and go per request: 4 MiB kept free at a heap's top stops it shrinking and
        // growing (an mprotect) every few requests.
        _ = CLibevent_malloc_keep_free(4 << 20)
        return evthread_use_pthreads() == 0
    }()

    static func prepare() {
        precondition(prepared, "libevent could not enable pthread locking")
    }
}

/// The process's memory, as the C library keeps it.
public enum ProcessMemory {
    /// Hands back to the system the memory malloc kept after frees, such as the parse trees of a large stub set.
    public static func returnFreedMemory() {
        _ = CLibevent_malloc_trim()
    }
}
