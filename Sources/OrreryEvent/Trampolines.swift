import CLibevent
import Glibc

/// Every C callback Orrery hands to libevent and pthreads, in one place.
///
/// They are file-scope constants in a library target on purpose: a closure written in top-level code or in a
/// main-actor function is inferred main-actor isolated, and the process dies (SIGILL) when libevent calls it on a
/// worker thread. The `void *` context is always an object passed with `Unmanaged`.
enum Trampolines {
    static let loopWakeup: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, _, context in
        guard let context else { return }
        Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().runPendingJobs()
    }

    /// One-shot timers: the box was retained when scheduled and is released here.
    static let runOnce: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, _, context in
        guard let context else { return }
        Unmanaged<JobBox>.fromOpaque(context).takeRetainedValue().job()
    }

    static let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
        guard let context else { return nil }
        let loop = Unmanaged<EventLoop>.fromOpaque(context).takeRetainedValue()
        SignalMask.change(SIG_BLOCK, SignalMask.handledByControlLoop)
        loop.run()
        return nil
    }

    static let signalFired: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = {
        signal, _, context in
        guard let context else { return }
        Unmanaged<SignalWatcher>.fromOpaque(context).takeUnretainedValue().fire(signal)
    }

    static let timerFired: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, _, context in
        guard let context else { return }
        Unmanaged<RepeatingTimer>.fromOpaque(context).takeUnretainedValue().fire()
    }

    static let oneShotTimerFired: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, _, context in
        guard let context else { return }
        // The timer's owner may let go of it from inside the action: keep it alive until `fire` returns.
        let timer = Unmanaged<OneShotTimer>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(timer) { timer.fire() }
    }

    // MARK: - Server

    static let serverAccepted:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<sockaddr>?, Int32, UnsafeMutableRawPointer?) -> Void = {
            _, fd, _, _, context in
            guard let context else {
                close(fd)
                return
            }
            let listener = Unmanaged<Listener>.fromOpaque(context).takeUnretainedValue()
            listener.worker.accepted(fd, tag: listener.tag, tls: listener.tls)
        }

    static let serverAcceptFailed: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        let errorCode = errno
        guard let context else { return }
        Unmanaged<Listener>.fromOpaque(context).takeUnretainedValue().worker.acceptFailed(errorCode: errorCode)
    }

    static let serverReadable: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
        guard let context else { return }
        let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.readable() }
    }

    static let serverTimer: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
        guard let context else { return }
        let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.timerFired() }
    }

    /// The connection's bufferevent wrote all it held (its write low-water mark is 0).
    static let serverOutputDrained: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.outputDrained() }
    }

    static let serverConnectionEvent: @convention(c) (OpaquePointer?, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, what, context in
        guard let context else { return }
        let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.bufferevent(event: what) }
    }

    static let serverTLSReadable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.tlsReadable() }
    }

    static let serverTLSSocketReadable: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, _, context in
        guard let context else { return }
        let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.tlsSocketReadable() }
    }

    static let serverTLSEvent: @convention(c) (OpaquePointer?, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, what, context in
        guard let context else { return }
        let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.tlsEvent(what) }
    }

    static let addressResolved: @convention(c) (Int32, UnsafeMutablePointer<addrinfo>?, UnsafeMutableRawPointer?) -> Void = {
        status, result, context in
        guard let context else { return }
        Unmanaged<ResolveBox>.fromOpaque(context).takeRetainedValue().finish(status: status, result)
    }

    static let upstreamReadable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        let connection = Unmanaged<UpstreamConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.client.readable(connection) }
    }

    static let upstreamEvent: @convention(c) (OpaquePointer?, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, what, context in
        let errorCode = errno
        guard let context else { return }
        let connection = Unmanaged<UpstreamConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.client.event(connection, what, errorCode: errorCode) }
    }

    static let upstreamSocketReadable: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, _, context in
        guard let context else { return }
        let connection = Unmanaged<UpstreamConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.socketReadable() }
    }

    static let upstreamDeadline: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
        guard let context else { return }
        let connection = Unmanaged<UpstreamConnection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.deadlineFired() }
    }

    static let tunnelReadable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { side, context in
        guard let side, let context else { return }
        Unmanaged<Tunnel>.fromOpaque(context).takeUnretainedValue().readable(side)
    }

    static let tunnelWritable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { side, context in
        guard let side, let context else { return }
        Unmanaged<Tunnel>.fromOpaque(context).takeUnretainedValue().writable(side)
    }

    static let tunnelEvent: @convention(c) (OpaquePointer?, Int16, UnsafeMutableRawPointer?) -> Void = {
        side, what, context in
        guard let side, let context else { return }
        Unmanaged<Tunnel>.fromOpaque(context).takeUnretainedValue().event(side, what)
    }

    static let upgradedReadable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        Unmanaged<UpgradedConnection>.fromOpaque(context).takeUnretainedValue().readable()
    }

    static let upgradedWritable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        Unmanaged<UpgradedConnection>.fromOpaque(context).takeUnretainedValue().writable()
    }

    static let upgradedEvent: @convention(c) (OpaquePointer?, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, what, context in
        guard let context else { return }
        Unmanaged<UpgradedConnection>.fromOpaque(context).takeUnretainedValue().event(what)
    }

    static let rawUpstreamReadable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        Unmanaged<UpstreamSocket>.fromOpaque(context).takeUnretainedValue().readable()
    }

    static let rawUpstreamWritable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        Unmanaged<UpstreamSocket>.fromOpaque(context).takeUnretainedValue().writable()
    }

    static let rawUpstreamEvent: @convention(c) (OpaquePointer?, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, what, context in
        guard let context else { return }
        Unmanaged<UpstreamSocket>.fromOpaque(context).takeUnretainedValue().event(what)
    }

    static let endOfInputReadable: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
        guard let context else { return }
        let watcher = Unmanaged<EndOfInputWatcher>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(watcher) { watcher.readable() }
    }

    /// Releases a payload that libevent was sending by reference, once libevent is done with it.
    static let releasePayload: @convention(c) (UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) -> Void = {
        _, _, context in
        guard let context else { return }
        Unmanaged<AnyObject>.fromOpaque(context).release()
    }
}

// MARK: - TLS server

extension Trampolines {
    /// OpenSSL's servername callback, run in every handshake, with or without SNI: it puts the certificate on the
    /// `SSL`. Its context is the session's `SessionFallback`, not the callback argument.
    static let tlsServername: CLibevent_servername_cb = { ssl, alert, _ in
        guard let ssl, let box = SSL_get_ex_data(ssl, TLSServerContext.fallbackIndex) else {
            alert?.pointee = SSL_AD_INTERNAL_ERROR
            return SSL_TLSEXT_ERR_ALERT_FATAL
        }
        let fallback = Unmanaged<SessionFallback>.fromOpaque(box).takeUnretainedValue()
        guard TLSServerContext.chooseCertificate(ssl, fallback) else {
            alert?.pointee = SSL_AD_INTERNAL_ERROR
            return SSL_TLSEXT_ERR_ALERT_FATAL
        }
        return SSL_TLSEXT_ERR_OK
    }

    /// ALPN: `h2` when the client offers it, else `http/1.1` when it offers that, else no protocol at all.
    static let tlsSelectALPN: SSL_CTX_alpn_select_cb_func = { _, selected, selectedLength, offered, offeredLength, _ in
        guard let selected, let selectedLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
        let list = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
        guard
            let offset = TLSServerContext.protocolOffset(TLSServerContext.h2, in: list)
                ?? TLSServerContext.http11Offset(in: list)
        else { return SSL_TLSEXT_ERR_NOACK }
        // OpenSSL documents pointing into the client's list, which lives through the handshake.
        selected.pointee = offered + offset + 1
        selectedLength.pointee = offered[offset]
        return SSL_TLSEXT_ERR_OK
    }

    /// ALPN for a server that speaks HTTP/1 only: `http/1.1` when the client offers it, else no protocol at all.
    static let tlsSelectHTTP11: SSL_CTX_alpn_select_cb_func = {
        _, selected, selectedLength, offered, offeredLength, _ in
        guard let selected, let selectedLength, let offered,
            let offset = TLSServerContext.http11Offset(in: UnsafeBufferPointer(start: offered, count: Int(offeredLength)))
        else { return SSL_TLSEXT_ERR_NOACK }
        selected.pointee = offered + offset + 1
        selectedLength.pointee = offered[offset]
        return SSL_TLSEXT_ERR_OK
    }

    /// Releases a session's `SessionFallback` when OpenSSL frees the `SSL` (called for every `SSL`, with nil for
    /// those that have none).
    static let tlsReleaseSessionFallback:
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<CRYPTO_EX_DATA>?, Int32, Int,
            UnsafeMutableRawPointer?
        ) -> Void = { _, box, _, _, _, _ in
            guard let box else { return }
            Unmanaged<SessionFallback>.fromOpaque(box).release()
        }

    static let tlsTestServerAccepted:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<sockaddr>?, Int32, UnsafeMutableRawPointer?) -> Void = {
            _, fd, _, _, context in
            guard let context else {
                close(fd)
                return
            }
            Unmanaged<TLSTestServer>.fromOpaque(context).takeUnretainedValue().accepted(fd)
        }

    static let tlsTestServerReadable: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        let connection = Unmanaged<TLSTestServer.Connection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.readable() }
    }

    static let tlsTestServerWritten: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        let connection = Unmanaged<TLSTestServer.Connection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.written() }
    }

    static let tlsTestServerEvent: @convention(c) (OpaquePointer?, Int16, UnsafeMutableRawPointer?) -> Void = {
        _, what, context in
        guard let context else { return }
        let connection = Unmanaged<TLSTestServer.Connection>.fromOpaque(context).takeUnretainedValue()
        withExtendedLifetime(connection) { connection.event(what) }
    }
}

// MARK: - The prefixed socket BIO

extension Trampolines {
    static let prefixedBIOCreate: @convention(c) (OpaquePointer?) -> Int32 = { bio in
        BIO_set_init(bio, 1)
        return 1
    }

    /// Releases the BIO's state with the BIO.
    static let prefixedBIODestroy: @convention(c) (OpaquePointer?) -> Int32 = { bio in
        guard let bio else { return 0 }
        if let data = BIO_get_data(bio) { Unmanaged<PrefixedSocketBIO>.fromOpaque(data).release() }
        BIO_set_data(bio, nil)
        BIO_set_init(bio, 0)
        return 1
    }

    static let prefixedBIORead: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32 = {
        bio, buffer, count in
        guard let bio, let buffer, count > 0, let data = BIO_get_data(bio) else { return 0 }
        return Unmanaged<PrefixedSocketBIO>.fromOpaque(data).takeUnretainedValue().read(
            bio, into: buffer, count: Int(count))
    }

    /// The BIO only reads: OpenSSL writes through the socket BIO beside it.
    static let prefixedBIOWrite: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { _, _, _ in
        -1
    }

    static let prefixedBIOControl: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = {
        bio, command, argument, pointer in
        guard let bio, let data = BIO_get_data(bio) else { return 0 }
        return Unmanaged<PrefixedSocketBIO>.fromOpaque(data).takeUnretainedValue().control(command, argument, pointer)
    }
}
