import CLibevent
import Glibc

/// Calls back once when a descriptor reaches its end (a read returns 0) or fails: how the daemon learns that the
/// process that started it has gone, when that process holds the other end of its standard input. Whatever is
/// read before the end is dropped.
public final class EndOfInputWatcher {
    private var event: OpaquePointer?
    private let fd: Int32
    private var onEnd: (() -> Void)?

    /// Call on the loop's thread, or before the loop runs.
    public init(loop: EventLoop, fd: Int32, onEnd: @escaping () -> Void) throws(EventError) {
        self.fd = fd
        self.onEnd = onEnd
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let event = event_new(loop.base, fd, Int16(EV_READ | EV_PERSIST), Trampolines.endOfInputReadable, context),
            event_add(event, nil) == 0
        else { throw EventError("cannot watch descriptor \(fd)") }
        self.event = event
    }

    func readable() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) else { return }
        cancel()
        let onEnd = self.onEnd
        self.onEnd = nil
        onEnd?()
    }

    public func cancel() {
        if let event { event_free(event) }
        event = nil
    }

    deinit {
        cancel()
    }
}
