import CLibevent
import Glibc
import OrreryCore

/// Bytes waiting to be written to one connection, as references to payloads (a stub's prepared head and body are
/// never copied): written with one `writev` when the socket takes them, and handed to the connection's
/// bufferevent, still by reference, when it does not.
struct OutputQueue {
    private var chunks: [(payload: Payload, offset: Int)] = []
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    mutating func append(_ payload: Payload) {
        guard payload.count > 0 else { return }
        chunks.append((payload, 0))
        byteCount += payload.count
    }

    mutating func append(_ bytes: [UInt8]) {
        append(Payload(bytes))
    }

    /// Writes what the socket takes now. Returns false when the socket failed (the peer has gone); errno says why.
    mutating func write(to fd: Int32) -> Bool {
        while !chunks.isEmpty {
            let count = min(chunks.count, 64)
            let written = withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vectors -> Int in
                for index in 0..<count {
                    let (payload, offset) = chunks[index]
                    payload.withUnsafeBytes { bytes in
                        vectors[index] = iovec(
                            iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress.map { $0 + offset }),
                            iov_len: bytes.count - offset)
                    }
                }
                return writev(fd, vectors.baseAddress, Int32(count))
            }
            if written < 0 {
                return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
            }
            drop(written)
            // The socket took less than offered: it is full.
            if written == 0 || !chunks.isEmpty && count < 64 { return true }
        }
        return true
    }

    /// Hands everything to `buffer` as one copied piece when it is at most `limit` bytes: a TLS bufferevent makes one
    /// TLS record (one encryption, one SSL_write) of each piece it holds, so an answer's head, the end of its head
    /// and its body would otherwise go out as three records. Larger output is handed over by reference.
    mutating func move(to buffer: OpaquePointer, coalescingUpTo limit: Int) {
        guard byteCount <= limit, chunks.count > 1 else {
            move(to: buffer)
            return
        }
        withContiguousBytes { joined in _ = evbuffer_add(buffer, joined.baseAddress, joined.count) }
        removeAll()
    }

    /// Calls `body` with everything queued as one piece: the payload itself when there is one, else the payloads
    /// copied together into a temporary buffer.
    func withContiguousBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if chunks.count == 1 {
            let (payload, start) = chunks[0]
            return payload.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        }
        return withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 16) { joined in
            var offset = 0
            for (payload, start) in chunks {
                payload.withUnsafeBytes { bytes in
                    let part = UnsafeRawBufferPointer(rebasing: bytes[start...])
                    UnsafeMutableRawBufferPointer(rebasing: joined[offset..<offset + part.count]).copyMemory(from: part)
                    offset += part.count
                }
            }
            return body(UnsafeRawBufferPointer(rebasing: joined[0..<offset]))
        }
    }

    /// Hands everything to `buffer` by reference: each payload stays retained until libevent has written it.
    mutating func move(to buffer: OpaquePointer) {
        for (payload, offset) in chunks {
            let owner = Unmanaged.passRetained(payload.owner).toOpaque()
            let added = payload.withUnsafeBytes { bytes in
                evbuffer_add_reference(
                    buffer, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, Trampolines.releasePayload, owner)
            }
            if added != 0 {
                Unmanaged<AnyObject>.fromOpaque(owner).release()
                // A reference could not be added: copy the bytes instead.
                payload.withUnsafeBytes { bytes in _ = evbuffer_add(buffer, bytes.baseAddress.map { $0 + offset }, bytes.count - offset) }
            }
        }
        removeAll()
    }

    mutating func removeAll() {
        chunks.removeAll(keepingCapacity: true)
        byteCount = 0
    }

    private mutating func drop(_ written: Int) {
        var remaining = written
        byteCount -= written
        var done = 0
        while remaining > 0, done < chunks.count {
            let left = chunks[done].payload.count - chunks[done].offset
            if remaining >= left {
                remaining -= left
                done += 1
            } else {
                chunks[done].offset += remaining
                remaining = 0
            }
        }
        chunks.removeFirst(done)
    }
}
