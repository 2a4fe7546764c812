import CLibevent
import Glibc
import OrreryCore

/// A connection to an upstream that carries bytes both ways, for a protocol the HTTP client does not speak after
/// its first exchange (a forwarded WebSocket): plain TCP, or TLS (`wss://`) with the HTTP client's own context, so
/// the upstream's certificate is verified as for any https upstream (the system's CAs and `--upstream-ca`, the host
/// name or IP address checked). Resolved through the loop's `UpstreamClient` (its resolver and connect timeout);
/// used on that loop only.
public final class UpstreamSocket {
    private let client: UpstreamClient
    private let host: String
    private let port: Int
    private let isTLS: Bool
    private var bufferevent: OpaquePointer?
    /// Held until the socket closes.
    private var handler: (any UpstreamSocketHandler)?
    private var connectDeadline: OneShotTimer?
    private var isConnected = false
    private var isClosingAfterWrite = false
    public private(set) var isClosed = false

    /// Starts connecting to `host`:`port`, over TLS when `tls` is set; `handler` hears the outcome. The connect
    /// timeout covers the TLS handshake too.
    public init(
        to host: String, port: Int, tls: Bool = false, using client: UpstreamClient, handler: any UpstreamSocketHandler
    ) {
        self.client = client
        self.host = host
        self.port = port
        isTLS = tls
        self.handler = handler
        client.resolve(host, port: port) { [self] result in
            guard !isClosed else { return }
            switch result {
            case .failure(let failure): fail(UpstreamFailure(.hostNotFound, "\(host): \(failure.message)"))
            case .success(let address): connect(to: address)
            }
        }
        let timeout = client.configuration.connectTimeoutMilliseconds
        connectDeadline = OneShotTimer(loop: client.loop, afterMilliseconds: timeout) { [weak self] in
            guard let self, !self.isConnected else { return }
            self.fail(UpstreamFailure(.timeout, "could not connect to \(host):\(port) within \(timeout) ms"))
        }
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private func connect(to address: String) {
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        let made: OpaquePointer?
        if isTLS {
            // The bufferevent owns the session from here on, and frees it even when it cannot be made.
            made = client.tls.makeSession(host: host).flatMap {
                bufferevent_openssl_socket_new(client.loop.base, -1, $0, BUFFEREVENT_SSL_CONNECTING, options)
            }
            if let made { bufferevent_openssl_set_allow_dirty_shutdown(made, 1) }
        } else {
            made = bufferevent_socket_new(client.loop.base, -1, options)
        }
        guard let made else {
            fail(UpstreamFailure(.hostConnectionError, "cannot set up a connection to \(host):\(port)"))
            return
        }
        bufferevent = made
        bufferevent_setcb(
            made, Trampolines.rawUpstreamReadable, Trampolines.rawUpstreamWritable, Trampolines.rawUpstreamEvent,
            context)
        if !Sockets.connect(made, address: address, port: port) {
            fail(UpstreamFailure(.hostConnectionError, "cannot connect to \(host):\(port)"))
        }
    }

    /// Bytes queued and not yet written to the upstream.
    public var queuedBytes: Int {
        guard let bufferevent, let output = bufferevent_get_output(bufferevent) else { return 0 }
        return evbuffer_get_length(output)
    }

    public func send(_ bytes: [UInt8]) {
        guard !isClosed, !isClosingAfterWrite, let bufferevent else { return }
        bufferevent_write(bufferevent, bytes, bytes.count)
    }

    /// Stops reading and closes once what is queued has been written.
    public func closeAfterWriting() {
        guard !isClosed, !isClosingAfterWrite, let bufferevent else { return }
        isClosingAfterWrite = true
        bufferevent_disable(bufferevent, Int16(EV_READ))
        if queuedBytes == 0 { close() }
    }

    public func close() {
        finish(nil)
    }

    private func fail(_ failure: UpstreamFailure) {
        finish(failure)
    }

    private func finish(_ failure: UpstreamFailure?) {
        guard !isClosed else { return }
        isClosed = true
        connectDeadline = nil
        if let bufferevent {
            bufferevent_disable(bufferevent, Int16(EV_READ | EV_WRITE))
            bufferevent_setcb(bufferevent, nil, nil, nil, nil)
        }
        let handler = self.handler
        self.handler = nil
        handler?.upstreamSocketClosed(self, failure: failure)
        // Freed once libevent has left the callback it may be in.
        client.loop.schedule(afterMilliseconds: 0) { [self] in
            if let bufferevent {
                // libevent sends no close_notify of its own.
                if isTLS, isConnected, let ssl = bufferevent_openssl_get_ssl(bufferevent) { SSL_shutdown(ssl) }
                bufferevent_free(bufferevent)
            }
            bufferevent = nil
        }
    }

    func readable() {
        guard !isClosed, let bufferevent, let input = bufferevent_get_input(bufferevent) else { return }
        let bytes = EvbufferBytes.takeAll(input)
        guard !bytes.isEmpty else { return }
        handler?.upstreamSocket(self, received: bytes)
    }

    func writable() {
        if isClosingAfterWrite, queuedBytes == 0 { close() }
    }

    func event(_ what: Int16) {
        let events = Int32(what)
        if !isConnected {
            if events & BEV_EVENT_CONNECTED != 0, let bufferevent {
                isConnected = true
                connectDeadline = nil
                bufferevent_enable(bufferevent, Int16(EV_READ | EV_WRITE))
                handler?.upstreamSocketConnected(self)
            } else if isTLS, let bufferevent, let error = TLSContext.error(on: bufferevent) {
                fail(UpstreamFailure(.tlsError, "TLS with \(host):\(port) failed: \(error)"))
            } else {
                fail(UpstreamFailure(.hostConnectionError, "\(host):\(port) refused the connection or is unreachable"))
            }
            return
        }
        if events & (BEV_EVENT_EOF | BEV_EVENT_ERROR) != 0 { close() }
    }
}
