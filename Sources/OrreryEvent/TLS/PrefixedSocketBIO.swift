import CLibevent
import Glibc

/// A read BIO over a connection's socket that first hands OpenSSL the bytes already read from it: an intercepted
/// tunnel's client may send its ClientHello together with the `CONNECT`, and the plain connection has read it by
/// the time the 200 is out. With it, TLS goes straight on the socket (`bufferevent_openssl_socket_new`) instead of
/// a filter over the plain bufferevent, which costs a second buffer and its callbacks per read and write.
///
/// It reads as OpenSSL's socket BIO does (`recv`, retry on `EAGAIN`, the end of input noted for `BIO_eof`, which
/// `SSL_OP_IGNORE_UNEXPECTED_EOF` asks). Writing goes through a plain socket BIO beside it: libevent learns the fd
/// from the `SSL`'s write BIO.
final class PrefixedSocketBIO {
    let fd: Int32
    private var prefix: [UInt8]
    private var offset = 0
    private(set) var sawEnd = false

    private init(fd: Int32, prefix: [UInt8]) {
        self.fd = fd
        self.prefix = prefix
    }

    /// Bytes of the prefix OpenSSL has not read yet.
    var pending: Int { prefix.count - offset }

    /// The BIO type, reserved once for the process.
    private static let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK

    /// The BIO method, made once for the process; every BIO made with it points to it.
    // nonisolated(unsafe): written once, here, and only read after (OpenSSL only reads a BIO_METHOD).
    nonisolated(unsafe) private static let method: OpaquePointer? = {
        guard type > BIO_TYPE_SOURCE_SINK, let method = BIO_meth_new(type, "orrery prefixed socket") else {
            return nil
        }
        guard BIO_meth_set_create(method, Trampolines.prefixedBIOCreate) == 1,
            BIO_meth_set_read(method, Trampolines.prefixedBIORead) == 1,
            BIO_meth_set_write(method, Trampolines.prefixedBIOWrite) == 1,
            BIO_meth_set_ctrl(method, Trampolines.prefixedBIOControl) == 1,
            BIO_meth_set_destroy(method, Trampolines.prefixedBIODestroy) == 1
        else {
            BIO_meth_free(method)
            return nil
        }
        return method
    }()

    /// Sets `ssl`'s BIOs: reading through a prefixed BIO over `fd` (which hands out `prefix` first), writing
    /// through a socket BIO over `fd`. Neither closes the socket. False when OpenSSL cannot make them.
    static func attach(to ssl: OpaquePointer, fd: Int32, prefix: [UInt8]) -> Bool {
        guard let method, let reader = BIO_new(method) else { return false }
        BIO_set_data(reader, Unmanaged.passRetained(PrefixedSocketBIO(fd: fd, prefix: prefix)).toOpaque())
        guard let writer = BIO_new_socket(fd, BIO_NOCLOSE) else {
            BIO_free(reader)
            return false
        }
        SSL_set_bio(ssl, reader, writer)
        return true
    }

    /// Once the prefix has all been read (the handshake took it), `ssl` reads through OpenSSL's own socket BIO.
    static func detachIfRead(from ssl: OpaquePointer) {
        guard let reader = SSL_get_rbio(ssl), let state = of(reader), state.pending == 0,
            let socket = BIO_new_socket(state.fd, BIO_NOCLOSE)
        else { return }
        SSL_set0_rbio(ssl, socket)
    }

    private static func of(_ bio: OpaquePointer) -> PrefixedSocketBIO? {
        guard BIO_method_type(bio) == type, let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<PrefixedSocketBIO>.fromOpaque(data).takeUnretainedValue()
    }

    // MARK: - The method's functions (through Trampolines)

    func read(_ bio: OpaquePointer, into buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int32 {
        BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)
        if offset < prefix.count {
            let taken = min(count, prefix.count - offset)
            prefix.withUnsafeBytes { bytes in
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: taken)
            }
            offset += taken
            if offset == prefix.count {
                prefix = []
                offset = 0
            }
            return Int32(taken)
        }
        let received = recv(fd, buffer, count, 0)
        if received > 0 { return Int32(received) }
        if received == 0 {
            sawEnd = true
            return 0
        }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
            BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
        }
        return -1
    }

    func control(_ command: Int32, _ argument: Int, _ pointer: UnsafeMutableRawPointer?) -> Int {
        switch command {
        case BIO_C_GET_FD:
            pointer?.assumingMemoryBound(to: Int32.self).pointee = fd
            return Int(fd)
        case BIO_CTRL_EOF: return sawEnd ? 1 : 0
        case BIO_CTRL_PENDING: return pending
        case BIO_CTRL_FLUSH, BIO_CTRL_GET_CLOSE, BIO_CTRL_SET_CLOSE: return 1
        default: return 0
        }
    }
}
