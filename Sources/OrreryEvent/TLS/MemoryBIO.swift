import CLibevent

/// OpenSSL memory BIOs, for reading and writing PEM without files.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes`.
    static func reading<Result>(_ bytes: [UInt8], _ body: (OpaquePointer) -> Result?) -> Result? {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, let bio = BIO_new_mem_buf(base, Int32(buffer.count)) else {
                return nil
            }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// The bytes `body` wrote into a fresh memory BIO, or nil when it reported failure.
    static func writing(_ body: (OpaquePointer) -> Bool) -> [UInt8]? {
        guard let method = BIO_s_mem(), let bio = BIO_new(method) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) else { return nil }
        let count = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(count)) }
        guard read == count || count == 0 else { return nil }
        return bytes
    }
}
