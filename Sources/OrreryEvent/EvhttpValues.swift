import CLibevent
import OrreryCore

/// Copies values out of libevent's structures into Swift ones, at the boundary: headers and buffers die with their
/// request.
enum EvhttpValues {
    /// The header lines of a request or response, and their size as sent (`Name: value\r\n`).
    static func headers(_ list: UnsafeMutablePointer<evkeyvalq>?) -> (headers: HTTPHeaders, byteCount: Int) {
        var headers = HTTPHeaders()
        var byteCount = 0
        guard let list else { return (headers, 0) }
        var entry = CLibevent_headers_first(list)
        while let header = entry {
            if let key = header.pointee.key, let value = header.pointee.value {
                byteCount += strlen(key) + strlen(value) + 4
                headers.add(String(cString: key), String(cString: value))
            }
            entry = CLibevent_headers_next(header)
        }
        return (headers, byteCount)
    }

    /// All the bytes of a buffer, copied once.
    static func bytes(_ buffer: OpaquePointer?) -> [UInt8] {
        guard let buffer else { return [] }
        let length = evbuffer_get_length(buffer)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { storage, count in
            count = max(0, evbuffer_copyout(buffer, storage.baseAddress, length))
        }
    }

    /// All the bytes of a buffer as a payload that can be sent on by reference, copied once.
    static func payload(_ buffer: OpaquePointer?) -> Payload {
        guard let buffer else { return Payload.empty }
        let length = evbuffer_get_length(buffer)
        guard length > 0 else { return Payload.empty }
        return Payload(count: length) { storage in max(0, evbuffer_copyout(buffer, storage.baseAddress, length)) }
    }
}
