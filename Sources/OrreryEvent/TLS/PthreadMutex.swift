import Glibc

/// A pthread mutex on the heap (a `pthread_mutex_t` must not move once in use). Not `NSLock`: this target
/// imports no Foundation. Not `Synchronization.Mutex`: ThreadSanitizer intercepts pthread locks, and reports false
/// races inside `Mutex` on Linux.
final class PthreadMutex: @unchecked Sendable {
    // @unchecked: the mutex is what makes the callers' state safe to share.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
