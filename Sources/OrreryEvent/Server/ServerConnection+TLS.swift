import CLibevent
import Glibc
import OrreryCore

/// What a TLS listener gives its connections: the context that makes their sessions, and the certificate a client
/// that sends no SNI gets.
public struct TLSEndpoint: Sendable {
    public let context: TLSServerContext
    public let certificate: LeafCertificate

    public init(context: TLSServerContext, certificate: LeafCertificate) {
        self.context = context
        self.certificate = certificate
    }
}

/// TLS on a server connection: the TLS port's and an intercepted tunnel's (after Orrery answered the `CONNECT`
/// itself), both an OpenSSL bufferevent over the socket. A tunnel whose 200 could not all be written at once keeps a
/// filter over the plain bufferevent instead, which writes the rest first. Reading and writing go through the
/// OpenSSL bufferevent; the HTTP/1 machine is the same as on a plain connection.
extension ServerConnection {
    /// Puts TLS on the connection: over the socket (`plain` nil), OpenSSL reading `received` (the client's first
    /// bytes, already read from the socket) before the socket; or as a filter over `plain`, whose input holds them.
    /// False when it cannot (the caller closes).
    func startTLS(
        over plain: OpaquePointer?, received: [UInt8] = [], session: () throws(EventError) -> OpaquePointer
    ) -> Bool {
        let ssl: OpaquePointer
        do {
            ssl = try session()
        } catch {
            return false
        }
        if plain == nil, !received.isEmpty, !PrefixedSocketBIO.attach(to: ssl, fd: fd, prefix: received) {
            SSL_free(ssl)
            return false
        }
        // Over the socket, OpenSSL reads as much as has come (one `recv` a request) instead of a record's 5-byte
        // header and then its body (two). The connection's own reads after the handshake (`tlsSocketReadable`) go
        // on until OpenSSL holds nothing more; an upgraded connection wakes libevent's for what it holds. A filter
        // reads from the plain bufferevent's input, with no system call to save.
        if plain == nil { SSL_set_read_ahead(ssl, 1) }
        let base = worker.loop.base
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue)
        // On failure libevent has freed the SSL; the socket (or the plain bufferevent) is still ours.
        let layer =
            if let plain {
                bufferevent_openssl_filter_new(base, plain, ssl, BUFFEREVENT_SSL_ACCEPTING, options)
            } else {
                bufferevent_openssl_socket_new(base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING, options)
            }
        guard let layer else { return false }
        tls = layer
        // A client that hangs up without close_notify ends its input, rather than failing (with the context's
        // SSL_OP_IGNORE_UNEXPECTED_EOF).
        bufferevent_openssl_set_allow_dirty_shutdown(layer, 1)
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(layer, Trampolines.serverTLSReadable, Trampolines.serverOutputDrained, Trampolines.serverTLSEvent, context)
        bufferevent_enable(layer, Int16(EV_READ | EV_WRITE))
        isReadingEnabled = true
        // A silent client, or one that stops half way through its hello, is dropped after the header timeout.
        isHandshaking = true
        armedTimeout = nil
        arm(milliseconds: worker.configuration.headerTimeoutMilliseconds)
        // A hello that came with the CONNECT is in the plain input already; the filter reads it from there.
        if let plain, let input = bufferevent_get_input(plain), evbuffer_get_length(input) > 0 {
            bufferevent_trigger(plain, Int16(EV_READ), Int32(BEV_TRIG_IGNORE_WATERMARKS.rawValue))
        }
        return true
    }

    /// Bytes decrypted: handed to the machine as plain bytes are, a scratch buffer at a time.
    func tlsReadable() {
        guard !isClosed, let tls, let input = bufferevent_get_input(tls) else { return }
        if isClosingTLS {
            // An HTTP/2 connection that ends reads on and drops what comes, so that its GOAWAY is read rather than
            // lost to the reset a close under unread input makes.
            evbuffer_drain(input, evbuffer_get_length(input))
            return
        }
        let scratch = worker.scratch
        while !isClosed, http2?.wantsRead ?? machine.isReading, evbuffer_get_length(input) > 0 {
            let count = evbuffer_remove(input, scratch.baseAddress, scratch.count)
            guard count > 0 else { break }
            noteActivity()
            received(UnsafeRawBufferPointer(rebasing: scratch[0..<Int(count)]))
        }
        flush()
    }

    /// Once its handshake is done, a TLS connection over the socket reads for itself, as a plain one does: an event
    /// of its own on the socket, and `SSL_read` straight into the loop's scratch buffer. Through the OpenSSL
    /// bufferevent every read was decrypted into its input buffer (reserved, committed, then copied out again), under
    /// its lock and a deferred callback, with the error queue cleared before each `SSL_read` (some 800
    /// instructions). The bufferevent still writes what the socket does not take at once, and reports the end of
    /// the connection's writing. A filter, and a connection that is handed over (`takeOver`), keep libevent's reads.
    func readTLSForItself() {
        guard !isClosed, bufferevent == nil, let tls, readEvent == nil else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard
            let event = event_new(
                worker.loop.base, fd, Int16(EV_READ | EV_PERSIST), Trampolines.serverTLSSocketReadable, context)
        else {
            close()
            return
        }
        bufferevent_disable(tls, Int16(EV_READ))
        readEvent = event
        if isReadingEnabled { event_add(event, nil) }
        // What libevent decrypted with the handshake, and what OpenSSL holds, are read now: the socket may not wake.
        tlsSocketReadable()
    }

    /// The socket is readable (or reading resumed): decrypts and hands over what has come, until OpenSSL needs more
    /// from the socket.
    func tlsSocketReadable() {
        guard !isClosed, let tls, let ssl = bufferevent_openssl_get_ssl(tls) else { return }
        // Bytes libevent decrypted before this connection read for itself come first.
        if let input = bufferevent_get_input(tls), evbuffer_get_length(input) > 0 {
            tlsReadable()
            guard !isClosed, evbuffer_get_length(input) == 0 else { return }
        }
        let scratch = worker.scratch
        while !isClosed, isClosingTLS || (http2?.wantsRead ?? machine.isReading) {
            var count = SSL_read(ssl, scratch.baseAddress, Int32(scratch.count))
            var error = count > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, count)
            if error == SSL_ERROR_SSL || error == SSL_ERROR_SYSCALL {
                // The queue was not cleared first: an error another connection left on this thread reads as this
                // one's. Cleared, a second read tells (it repeats a real failure, and reads on after a false one).
                ERR_clear_error()
                count = SSL_read(ssl, scratch.baseAddress, Int32(scratch.count))
                error = count > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, count)
            }
            if count > 0 {
                noteActivity()
                // An HTTP/2 connection that ends reads on and drops what comes (see `tlsReadable`).
                if !isClosingTLS { received(UnsafeRawBufferPointer(rebasing: scratch[0..<Int(count)])) }
                // Read on only while OpenSSL holds more (a record, whole or in part, read ahead): a read past that
                // found the socket empty, a system call and about 1,100 instructions a request. What comes later
                // wakes the event again (level-triggered), as a plain connection reads once per wake-up.
                if SSL_has_pending(ssl) == 1 { continue }
                break
            }
            switch error {
            case SSL_ERROR_WANT_READ:
                break
            case SSL_ERROR_WANT_WRITE:
                // A post-handshake message to answer (a key update) met a full socket: read again shortly.
                worker.loop.schedule(afterMilliseconds: 10) { [self] in tlsSocketReadable() }
            case SSL_ERROR_ZERO_RETURN:
                tlsInputEnded()
                return
            default:
                close()
                return
            }
            break
        }
        flush()
    }

    /// The client closed its side (close_notify, or the end of the socket, which `SSL_OP_IGNORE_UNEXPECTED_EOF`
    /// reports the same way): as `tlsEvent` takes the end when libevent reads.
    private func tlsInputEnded() {
        if let readEvent { event_del(readEvent) }
        isTLSInputEnded = true
        if isClosingTLS || http2 != nil {
            close()
            return
        }
        process(machine.receivedEnd())
        flush()
    }

    /// The handshake finished, the client closed, or the connection failed.
    func tlsEvent(_ what: Int16) {
        guard !isClosed else { return }
        let events = Int32(what)
        if events & BEV_EVENT_CONNECTED != 0 {
            isHandshaking = false
            // The first bytes read with the CONNECT went to the handshake: from now on OpenSSL reads the socket.
            if bufferevent == nil, let tls, let ssl = bufferevent_openssl_get_ssl(tls) {
                PrefixedSocketBIO.detachIfRead(from: ssl)
            }
            worker.counters.handshakeCompleted()
            updateTimer()
            readTLSForItself()
            return
        }
        if events & BEV_EVENT_EOF != 0, events & BEV_EVENT_ERROR == 0, !isHandshaking, !isClosingTLS {
            // What came before the end is read first; a client may half-close after its request.
            tlsReadable()
            guard !isClosed else { return }
            if http2 != nil {
                close()
                return
            }
            process(machine.receivedEnd())
            flush()
            return
        }
        if isHandshaking { worker.counters.handshakeFailed() }
        close()
    }

    /// Reading follows the machine: when it pauses, the TLS bufferevent stops reading; when it resumes, what is
    /// already decrypted is read first.
    func updateTLSReading(_ wanted: Bool) {
        guard let tls, wanted != isReadingEnabled else { return }
        isReadingEnabled = wanted
        // A TLS connection has a read event of its own only once it reads for itself (the plain one's is freed as a
        // tunnel is intercepted, and a closed connection's with its bufferevents).
        if let readEvent {
            guard !isTLSInputEnded else { return }
            if wanted {
                event_add(readEvent, nil)
                // What OpenSSL (or the bufferevent, from before) holds does not wake the socket.
                worker.loop.schedule(afterMilliseconds: 0) { [self] in if isReadingEnabled { tlsSocketReadable() } }
            } else {
                event_del(readEvent)
            }
            return
        }
        if wanted {
            bufferevent_enable(tls, Int16(EV_READ))
            if let input = bufferevent_get_input(tls), evbuffer_get_length(input) > 0 {
                worker.loop.schedule(afterMilliseconds: 0) { [self] in tlsReadable() }
            }
        } else {
            bufferevent_disable(tls, Int16(EV_READ))
        }
    }

    /// Writes what is queued as one TLS record with `SSL_write` straight to the socket, the way a plain connection
    /// `writev`s, when nothing waits in the TLS bufferevent: handed to the bufferevent, an answer would wait for the
    /// next turn of the loop, with the socket registered for writability and unregistered again (two `epoll_ctl`
    /// and one more `epoll_wait` for every answer). True when the output is gone: written, or handed to the
    /// bufferevent when `SSL_write` did not finish. There its `SSL_write` of the same bytes goes on with the record
    /// OpenSSL began when the socket was full (libevent sets `SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER`), or fails again
    /// and closes the connection when the session has failed. So this write needs no `ERR_clear_error` of its own
    /// (some 800 instructions): what `SSL_get_error` would read is libevent's to read, after it cleared the queue.
    /// False when it does not apply: during the handshake or the close, under a filter (the plain bufferevent
    /// writes there), or for more than a record.
    func writeTLSRecord(through tls: OpaquePointer, behind buffer: OpaquePointer) -> Bool {
        guard bufferevent == nil, !isHandshaking, !isClosingTLS, !isTLSShutDown, output.byteCount <= Self.recordBytes,
            evbuffer_get_length(buffer) == 0, let ssl = bufferevent_openssl_get_ssl(tls)
        else { return false }
        let handed = output.withContiguousBytes { bytes -> Bool in
            let written = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
            return written == Int32(bytes.count) || evbuffer_add(buffer, bytes.baseAddress, bytes.count) == 0
        }
        guard handed else {
            close()
            return true
        }
        output.removeAll()
        if evbuffer_get_length(buffer) > 0 { outputWaiting() }
        return true
    }

    /// The largest plaintext of one TLS record.
    static let recordBytes = 16 * 1024

    /// Sends close_notify (libevent never does) once the answer has been encrypted, and closes once everything, the
    /// filter's underlying output included, has reached the socket: freeing earlier would drop the end of the
    /// answer. close_notify goes out only after the TLS bufferevent has handed all of its output to OpenSSL: sent
    /// before, it would end the TLS stream ahead of the answer still queued, and the client would read nothing.
    func closeTLSOnceWritten() {
        guard let tls else {
            close()
            return
        }
        if !isClosingTLS {
            isClosingTLS = true
            deadline = worker.now + worker.configuration.lingerMilliseconds
            if http2 != nil { updateReading() }
        }
        if !isTLSShutDown, let output = bufferevent_get_output(tls), evbuffer_get_length(output) == 0 {
            isTLSShutDown = true
            if let ssl = bufferevent_openssl_get_ssl(tls) { SSL_shutdown(ssl) }
        }
        if isTLSShutDown && queuedInBufferevent == 0 && http2 != nil && worker.now < deadline {
            // HTTP/2's lingering close: the write side shut, the client's last bytes read and dropped until it
            // closes (the EOF closes this end) or the linger time is over.
            if !isTLSLingering {
                isTLSLingering = true
                shutdown(fd, Int32(SHUT_WR))
            }
        } else if (isTLSShutDown && queuedInBufferevent == 0) || worker.now >= deadline {
            close()
            return
        }
        armedTimeout = nil
        rearm(after: 10)
    }

    // MARK: - Interception

    /// Answers a `CONNECT` with 200 itself and puts TLS on the connection, presenting certificates for the names
    /// the client asks for (`defaultName` when it sends none): its requests then go through the same machine and
    /// pipeline as plain ones, as https requests for `authority`.
    ///
    /// Once the 200 is on the wire, TLS goes on the socket itself and the plain bufferevent goes: OpenSSL then
    /// reads and writes the socket with no second buffer between (a filter over the plain bufferevent costs one,
    /// and its callbacks, per read and per write). The bytes that came after the `CONNECT` (the start of the
    /// client's hello, when it did not wait for the 200) are read by OpenSSL first. A 200 the socket did not take
    /// at once waits in the plain bufferevent: then the filter goes over it, to write it first.
    func intercept(number: Int, authority: String, defaultName: String, context: TLSServerContext) {
        guard !isClosed, number == requestNumber, !isAnswered, tls == nil, let plain = bufferevent else { return }
        isAnswered = true
        output.append(HTTP1Encoder.connectionEstablished)
        flush()
        guard !isClosed else { return }
        let received = machine.takeOver()
        if let readEvent { event_free(readEvent) }
        readEvent = nil
        isReadingEnabled = false
        machine = HTTP1ConnectionStateMachine(configuration: worker.machineConfiguration)
        // Inside the tunnel the client may speak HTTP/2 (ALPN `h2`): its first bytes tell again.
        preface = HTTP2Preface()
        intercepted = InterceptedOrigin(authority: authority)
        let session = { () throws(EventError) in try context.makeServerSession(defaultName: defaultName) }
        if output.isEmpty, let buffer = bufferevent_get_output(plain), evbuffer_get_length(buffer) == 0 {
            // Without its fd the plain bufferevent leaves the socket open when it is freed.
            bufferevent_setfd(plain, -1)
            bufferevent_free(plain)
            bufferevent = nil
            guard startTLS(over: nil, received: received, session: session) else {
                Glibc.close(fd)
                close()
                return
            }
            return
        }
        if !output.isEmpty, let buffer = bufferevent_get_output(plain) { output.move(to: buffer) }
        if !received.isEmpty, let input = bufferevent_get_input(plain) { evbuffer_add(input, received, received.count) }
        guard startTLS(over: plain, session: session) else {
            close()
            return
        }
    }
}
