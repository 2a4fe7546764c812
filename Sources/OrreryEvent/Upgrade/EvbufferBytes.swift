import CLibevent

/// What an upgraded connection and its upstream socket both do with a read: every byte waiting in the input, taken.
enum EvbufferBytes {
    /// The bytes waiting in `input`, removed from it; empty when none are.
    static func takeAll(_ input: OpaquePointer) -> [UInt8] {
        let count = evbuffer_get_length(input)
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        _ = bytes.withUnsafeMutableBytes { evbuffer_remove(input, $0.baseAddress, count) }
        return bytes
    }
}
