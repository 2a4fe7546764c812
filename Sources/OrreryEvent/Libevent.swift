import CLibevent
import Glibc

/// Process-wide libevent setup, done once before the first event base exists.
enum Libevent {
    /// Runs `evthread_use_pthreads` (without it, waking a loop from another thread does nothing, and stopping
    /// hangs) and ignores SIGPIPE (libevent does not, and a peer that hangs up would kill the process).
    static let prepared: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return evthread_use_pthreads() == 0
    }()

    static func prepare() {
        precondition(prepared, "libevent could not enable pthread locking")
    }
}
