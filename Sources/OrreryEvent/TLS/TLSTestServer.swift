import CLibevent
import Glibc

/// A minimal HTTPS server on 127.0.0.1 for the tests of `TLSServerContext`: the real accept path (an `SSL` from
/// `makeServerSession`, a socket bufferevent accepting TLS) on its own loop thread. It answers each request with
/// what the handshake agreed (`sni=NAME` or `sni=-`, `alpn=PROTOCOL` or `alpn=-`) and closes the connection.
/// Nothing but tests uses it.
final class TLSTestServer: @unchecked Sendable {
    // @unchecked: `listener` and `connections` are touched only on the loop's thread (set up before it starts, torn
    // down by a job on it); `thread` only by the owner's `stop`.
    enum Fallback {
        /// `makeServerSession(defaultName:)`, as an intercepted `CONNECT` does.
        case name(String)
        /// `makeServerSession(defaultCertificate:)`, as the TLS port does.
        case certificate(LeafCertificate)
    }

    let port: Int
    private let context: TLSServerContext
    private let fallback: Fallback
    private let loop: EventLoop
    private var thread: LoopThread?
    private var listener: OpaquePointer?
    private var connections: [ObjectIdentifier: Connection] = [:]

    init(context: TLSServerContext, fallback: Fallback) throws(EventError) {
        self.context = context
        self.fallback = fallback
        loop = try EventLoop()
        let (sockets, port) = try ListeningSocket.open(host: "127.0.0.1", port: 0, count: 1)
        self.port = port
        let handle = evconnlistener_new(
            loop.base, Trampolines.tlsTestServerAccepted, Unmanaged.passUnretained(self).toOpaque(),
            UInt32(LEV_OPT_CLOSE_ON_FREE), -1, sockets[0])
        guard let handle else {
            sockets.forEach { close($0) }
            throw EventError("evconnlistener_new failed")
        }
        listener = handle
        do {
            thread = try LoopThread(running: loop)
        } catch {
            evconnlistener_free(handle)
            throw error
        }
    }

    deinit {
        stop()
    }

    /// Closes the listener and every connection, and waits for the loop's thread to end.
    func stop() {
        guard let thread else { return }
        loop.execute { [self] in
            if let listener { evconnlistener_free(listener) }
            listener = nil
            for connection in Array(connections.values) { connection.close() }
        }
        loop.stop()
        thread.join()
        self.thread = nil
    }

    func accepted(_ fd: Int32) {
        let ssl: OpaquePointer
        do {
            switch fallback {
            case .name(let name): ssl = try context.makeServerSession(defaultName: name)
            case .certificate(let leaf): ssl = try context.makeServerSession(defaultCertificate: leaf)
            }
        } catch {
            close(fd)
            return
        }
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue)
        // On failure libevent has freed the SSL already; the socket is still ours.
        guard let bufferevent = bufferevent_openssl_socket_new(loop.base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING, options)
        else {
            close(fd)
            return
        }
        let connection = Connection(server: self, bufferevent: bufferevent)
        connections[ObjectIdentifier(connection)] = connection
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        bufferevent_set_timeouts(bufferevent, &timeout, &timeout)
        bufferevent_setcb(
            bufferevent, Trampolines.tlsTestServerReadable, Trampolines.tlsTestServerWritten,
            Trampolines.tlsTestServerEvent, Unmanaged.passUnretained(connection).toOpaque())
        bufferevent_enable(bufferevent, Int16(EV_READ | EV_WRITE))
    }

    /// One accepted TLS connection, on the loop's thread.
    final class Connection {
        private unowned let server: TLSTestServer
        private var bufferevent: OpaquePointer?
        private var request: [UInt8] = []
        private var isAnswered = false

        init(server: TLSTestServer, bufferevent: OpaquePointer) {
            self.server = server
            self.bufferevent = bufferevent
        }

        func readable() {
            guard let bufferevent, let input = bufferevent_get_input(bufferevent) else { return }
            var chunk = [UInt8](repeating: 0, count: 4096)
            while evbuffer_get_length(input) > 0 {
                let count = chunk.withUnsafeMutableBytes { evbuffer_remove(input, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                request += chunk[..<Int(count)]
            }
            let endOfHead: [UInt8] = Array("\r\n\r\n".utf8)
            guard !isAnswered, request.count >= 4,
                (0...(request.count - 4)).contains(where: { request[$0..<($0 + 4)].elementsEqual(endOfHead) }),
                let ssl = bufferevent_openssl_get_ssl(bufferevent)
            else { return }
            isAnswered = true
            let body = "sni=\(TLSServerContext.requestedName(ssl) ?? "-")\nalpn=\(TLSServerContext.negotiatedProtocol(ssl) ?? "-")\n"
            let response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n" + body
            let bytes = Array(response.utf8)
            bufferevent_write(bufferevent, bytes, bytes.count)
        }

        /// The answer has left the output buffer: say close_notify and close.
        func written() {
            if isAnswered { close() }
        }

        func event(_ what: Int16) {
            guard Int32(what) & BEV_EVENT_CONNECTED == 0 else { return }
            close()
        }

        func close() {
            guard let bufferevent else { return }
            self.bufferevent = nil
            // libevent never sends close_notify itself; without it an OpenSSL 3 client reports an unexpected EOF.
            if let ssl = bufferevent_openssl_get_ssl(bufferevent) { SSL_shutdown(ssl) }
            bufferevent_setcb(bufferevent, nil, nil, nil, nil)
            bufferevent_free(bufferevent)
            server.connections[ObjectIdentifier(self)] = nil
        }
    }
}
