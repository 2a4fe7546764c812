import CLibevent
import Glibc
import OrreryCore

/// One connection to an upstream, plain or TLS: a bufferevent that carries one request at a time, and stays open
/// between them (keep-alive) in its client's pool.
///
/// Requests are written as bytes made in one piece and responses read by `HTTP1Parser`, without evhttp's
/// client: its request objects, header lists and printf formatting doubled what proxying a small request cost.
/// A plain connection's answers are read from the socket by a read event of its own, one recv() per wakeup into
/// the client's scratch buffer; the bufferevent's reading would ask the socket for its size first (an ioctl) and
/// copy through a buffer chain allocated for the purpose. TLS connections read through their bufferevent.
final class UpstreamConnection {
    let key: String
    let isTLS: Bool
    unowned let client: UpstreamClient
    private(set) var bufferevent: OpaquePointer?
    /// The exchange waiting for a response on this connection; nil while idle in the pool.
    /// unowned(unsafe): the exchange holds itself until it finishes and detaches from its connection first, so
    /// this never outlives it; a weak reference would cost a side-table load on every read.
    unowned(unsafe) var exchange: UpstreamExchange?
    /// TCP (and TLS) established.
    private(set) var isConnected = false
    /// The upstream closed it, or it failed: not to be used again.
    private(set) var isClosed = false
    /// The response deadline of the request on this connection: one libevent timer for the connection's life,
    /// rather than a timer made and freed for each request.
    private var deadline: OpaquePointer?
    /// When the armed deadline is due (`now` milliseconds); nil when disarmed.
    private var due: Int?
    /// When the timer, if it is pending, fires. The timer is added only when none is pending that fires by the new
    /// deadline: arming for a request moves `due`, a timer that fires early waits again for the rest, and
    /// disarming leaves the timer to fire once for nothing. Adding and deleting it for every request was two
    /// libevent calls, each under the base's lock.
    private var timerAt: Int?
    /// A plain connection's read event.
    private var socketRead: OpaquePointer?
    /// What the last recv() brought, valid while the exchange reads it.
    private var received = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Reading is stopped for back-pressure (an idle connection reads, to notice the upstream closing it).
    private var isPaused = false
    /// Bytes received that the parser could not use yet (a line not complete), or that came after a response.
    private var carried: [UInt8] = []
    /// The HTTP/2 session when the connection speaks HTTP/2 (h2c from the start, or `h2` once ALPN chose it); nil
    /// for HTTP/1.1, whose path never looks further.
    private(set) var http2: UpstreamHTTP2Session?

    init?(key: String, upstream: Upstream, address: String, client: UpstreamClient, tls: TLSContext) {
        self.key = key
        self.client = client
        isTLS = upstream.scheme == "https"
        let base = client.loop.base
        if isTLS {
            guard let session = tls.makeSession(host: upstream.host) else { return nil }
            // h2 first: the upstream picks; one that knows no ALPN answers in HTTP/1.1, as before.
            _ = Self.alpnOffer.withUnsafeBufferPointer {
                SSL_set_alpn_protos(session, $0.baseAddress, UInt32($0.count))
            }
            bufferevent = bufferevent_openssl_socket_new(
                base, -1, session, BUFFEREVENT_SSL_CONNECTING,
                Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue))
            if let bufferevent { bufferevent_openssl_set_allow_dirty_shutdown(bufferevent, 1) }
        } else {
            bufferevent = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        }
        guard let bufferevent else { return nil }
        if upstream.usesHTTP2PriorKnowledge, !isTLS {
            // The preface and SETTINGS are queued now and go out once connected, with the first request.
            guard let session = UpstreamHTTP2Session(connection: self) else {
                free()
                return nil
            }
            http2 = session
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bufferevent, Trampolines.upstreamReadable, nil, Trampolines.upstreamEvent, context)
        guard Sockets.connect(bufferevent, address: address, port: upstream.port) else {
            free()
            return nil
        }
        // The head and the body may go out as two writes.
        let fd = bufferevent_getfd(bufferevent)
        Sockets.sendWithoutDelay(fd)
        if isTLS {
            bufferevent_enable(bufferevent, Int16(EV_READ | EV_WRITE))
        } else {
            // The bufferevent still connects and writes what the socket does not take at once.
            bufferevent_enable(bufferevent, Int16(EV_WRITE))
            socketRead = event_new(base, fd, Int16(EV_READ | EV_PERSIST), Trampolines.upstreamSocketReadable, context)
            guard let socketRead, event_add(socketRead, nil) == 0 else {
                free()
                return nil
            }
        }
    }

    /// A plain connection's socket is readable: one recv(), handed to the client (an answer, the end, an error).
    func socketReadable() {
        guard let bufferevent else { return }
        // Taken once: each read of an unowned reference checks that the object lives (and retains it for the read).
        let client = client
        let count = recv(bufferevent_getfd(bufferevent), client.scratch.baseAddress, client.scratch.count, Int32(MSG_DONTWAIT))
        if count > 0 {
            received = UnsafeRawBufferPointer(rebasing: client.scratch[0..<count])
            client.readable(self)
            received = UnsafeRawBufferPointer(start: nil, count: 0)
        } else if count == 0 {
            client.event(self, Int16(BEV_EVENT_EOF | BEV_EVENT_READING), errorCode: 0)
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            client.event(self, Int16(BEV_EVENT_ERROR | BEV_EVENT_READING), errorCode: errno)
        }
    }

    /// Sends a request: straight to the socket when the connection is up, plain and has nothing queued (the
    /// usual case for a pooled connection), else through the bufferevent once it can. Writing directly spares
    /// libevent registering the socket for writability and unregistering it again: two epoll_ctl calls for every
    /// proxied request.
    func write(head: UnsafeRawBufferPointer, body: [UInt8]) -> Bool {
        guard let bufferevent, !isClosed else { return false }
        var direct = canSendDirectly
        // A part goes to the socket while the socket takes it whole; what it leaves, and all after, is queued.
        func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return true }
            var sent = 0
            if direct {
                sent = sendDirectly(bytes)
                direct = sent == bytes.count
            }
            return sent == bytes.count || bufferevent_write(bufferevent, start + sent, bytes.count - sent) == 0
        }
        return write(head) && body.withUnsafeBytes { write($0) }
    }

    private var canSendDirectly: Bool {
        guard !isTLS, isConnected, let bufferevent, let output = bufferevent_get_output(bufferevent) else { return false }
        return evbuffer_get_length(output) == 0
    }

    /// Bytes the socket took at once; an error is left for the bufferevent to meet when it writes the rest.
    private func sendDirectly(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let bufferevent else { return 0 }
        let fd = bufferevent_getfd(bufferevent)
        guard fd >= 0 else { return 0 }
        return max(0, send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)))
    }

    /// Hands what arrived to `consume`, which returns how much of it it used; what it leaves (a line not complete
    /// yet) is given again, with what comes next, on the next read.
    func read(_ consume: (UnsafeRawBufferPointer) throws(HTTP1ParseError) -> Int) throws(HTTP1ParseError) {
        if isTLS {
            try readBuffered(consume)
            return
        }
        if carried.isEmpty {
            let used = try consume(received)
            if used < received.count { carried = Array(received[used...]) }
        } else {
            carried.append(contentsOf: received)
            let outcome: Result<Int, HTTP1ParseError> = carried.withUnsafeBytes { bytes in
                do throws(HTTP1ParseError) {
                    return .success(try consume(bytes))
                } catch {
                    return .failure(error)
                }
            }
            carried.removeFirst(try outcome.get())
        }
    }

    /// The bufferevent's input, seen a chunk at a time without copying; when `consume` stops short in the middle
    /// of one (a line that goes on in the next chunk), what is there is made contiguous for it.
    private func readBuffered(_ consume: (UnsafeRawBufferPointer) throws(HTTP1ParseError) -> Int) throws(HTTP1ParseError) {
        guard let bufferevent, let input = bufferevent_get_input(bufferevent) else { return }
        var wanted = evbuffer_get_contiguous_space(input)
        while exchange != nil {
            let available = evbuffer_get_length(input)
            guard available > 0 else { return }
            let length = min(max(wanted, 1), available)
            guard let start = evbuffer_pullup(input, length) else { return }
            let used = try consume(UnsafeRawBufferPointer(start: start, count: length))
            evbuffer_drain(input, used)
            if used == length {
                wanted = evbuffer_get_contiguous_space(input)
            } else if length < available {
                wanted = available
            } else {
                return  // the rest has not arrived yet, or the answer is complete
            }
        }
    }

    /// Reads the upstream, or stops (back-pressure: the client has too much unread). A plain connection's socket
    /// keeps what is not read; a TLS one stops its bufferevent.
    func setReading(_ isReading: Bool) {
        guard let bufferevent, !isClosed, isReading == isPaused else { return }
        isPaused = !isReading
        if isTLS {
            if isReading {
                bufferevent_enable(bufferevent, Int16(EV_READ))
                if let input = bufferevent_get_input(bufferevent), evbuffer_get_length(input) > 0 {
                    bufferevent_trigger(bufferevent, Int16(EV_READ), Int32(BEV_TRIG_IGNORE_WATERMARKS.rawValue | BEV_TRIG_DEFER_CALLBACKS.rawValue))
                }
            } else {
                bufferevent_disable(bufferevent, Int16(EV_READ))
            }
        } else if let socketRead {
            if isReading { event_add(socketRead, nil) } else { event_del(socketRead) }
        }
    }

    /// Bytes waiting to be read: on an idle connection, nothing should be.
    var hasUnreadInput: Bool {
        guard isTLS else { return !carried.isEmpty }
        guard let bufferevent, let input = bufferevent_get_input(bufferevent) else { return false }
        return evbuffer_get_length(input) > 0
    }

    /// Request bytes not yet written: an upstream that answered before reading the whole request (a 413, say)
    /// leaves the connection in the middle of one.
    var hasUnsentOutput: Bool {
        guard let bufferevent, let output = bufferevent_get_output(bufferevent) else { return false }
        return evbuffer_get_length(output) > 0
    }

    /// ALPN's offer to TLS upstreams: `h2`, then `http/1.1` (length-prefixed names).
    static let alpnOffer: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)

    func connected() {
        isConnected = true
        guard isTLS, http2 == nil, let bufferevent, let ssl = bufferevent_openssl_get_ssl(bufferevent) else { return }
        if TLSServerContext.negotiatedProtocol(ssl) == "h2" {
            http2 = UpstreamHTTP2Session(connection: self)
            // A session that cannot be made leaves the connection unusable rather than speaking HTTP/1.1 to it.
            if http2 == nil { isClosed = true }
        }
    }

    /// Hands everything received to the HTTP/2 session, then writes what it answers; false when the session
    /// failed (what came was not HTTP/2 or broke its rules).
    func readHTTP2() -> Bool {
        guard let http2 else { return false }
        var isFine = true
        if isTLS {
            guard let bufferevent, let input = bufferevent_get_input(bufferevent) else { return false }
            while isFine, case let length = evbuffer_get_contiguous_space(input), length > 0,
                let start = evbuffer_pullup(input, length)
            {
                isFine = http2.received(UnsafeRawBufferPointer(start: start, count: length))
                evbuffer_drain(input, length)
            }
        } else {
            isFine = http2.received(received)
        }
        return http2.flush() && isFine
    }

    /// Calls the exchange's `deadlinePassed` after `milliseconds`, unless disarmed or armed again first.
    func armDeadline(milliseconds: Int) {
        if deadline == nil {
            deadline = event_new(client.loop.base, -1, 0, Trampolines.upstreamDeadline, Unmanaged.passUnretained(self).toOpaque())
        }
        guard let deadline else { return }
        let at = Self.now + milliseconds
        due = at
        if let timerAt, timerAt <= at { return }
        timerAt = at
        client.loop.add(deadline, afterMilliseconds: milliseconds)
    }

    func disarmDeadline() {
        due = nil
    }

    /// The timer fired: the deadline has passed, or it moved on since the timer was added (the timer is added again
    /// for the rest), or it was disarmed.
    func deadlineFired() {
        timerAt = nil
        guard let due, let deadline else { return }
        let remaining = due - Self.now
        if remaining > 0 {
            timerAt = due
            // A plain timeval: a common timeout made for each remainder would fill libevent's few.
            var delay = timeval(milliseconds: remaining)
            event_add(deadline, &delay)
            return
        }
        self.due = nil
        exchange?.deadlinePassed()
    }

    /// Milliseconds of the coarse monotonic clock (a few milliseconds' resolution, no system call).
    private static var now: Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }

    func closed() {
        isClosed = true
        // A socket at its end stays readable: stop listening now rather than when it is freed.
        if let socketRead { event_del(socketRead) }
    }

    /// The OpenSSL error on this connection, if any (see `TLSContext.error(on:)`).
    var tlsError: String? {
        guard isTLS, let bufferevent else { return nil }
        return TLSContext.error(on: bufferevent)
    }

    func free() {
        if let deadline { event_free(deadline) }
        deadline = nil
        due = nil
        timerAt = nil
        // Before the bufferevent, which closes the socket.
        if let socketRead { event_free(socketRead) }
        socketRead = nil
        http2?.free()
        http2 = nil
        if let bufferevent {
            bufferevent_setcb(bufferevent, nil, nil, nil, nil)
            bufferevent_free(bufferevent)
        }
        bufferevent = nil
        isClosed = true
        exchange = nil
    }
}
