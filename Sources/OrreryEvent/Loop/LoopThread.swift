import Glibc

/// A pthread running one event loop, joined when the loop stops.
final class LoopThread {
    private var thread: pthread_t?

    /// Starts a thread that runs `loop` until it is stopped.
    init(running loop: EventLoop) throws(EventError) {
        let context = Unmanaged.passRetained(loop).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, Trampolines.threadEntry, context) == 0 else {
            Unmanaged<EventLoop>.fromOpaque(context).release()
            throw EventError.system("pthread_create")
        }
        self.thread = thread
    }

    /// Waits for the loop's thread to finish.
    func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }
}
