import CZlib
import OrreryCore

/// gzip and deflate through zlib: stub bodies are compressed once at load time, recorded bodies decoded once.
public enum Zlib {
    /// `bytes` in `coding` (gzip, or deflate in zlib's wrapper as HTTP means it), or nil if zlib fails.
    public static func compress(_ bytes: [UInt8], _ coding: ContentCoding, level: Int32 = 6) -> [UInt8]? {
        guard let windowBits = windowBits(coding) else { return nil }
        var stream = z_stream()
        guard CZlib_deflateInit2(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            return nil
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        let status: Int32 = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeLast(output.count - Int(stream.total_out))
        return output
    }

    /// The decoded form of a gzip or deflate body, or nil when it is not whole and valid (or would pass
    /// `maximumSize`). A deflate body without zlib's wrapper (as some servers send it) is accepted too.
    public static func decompress(_ bytes: [UInt8], _ coding: ContentCoding, maximumSize: Int = 1 << 30) -> [UInt8]? {
        switch coding {
        case .identity: return bytes
        case .gzip: return inflate(bytes, windowBits: 15 + 16, maximumSize: maximumSize)
        case .deflate:
            return inflate(bytes, windowBits: 15, maximumSize: maximumSize)
                ?? inflate(bytes, windowBits: -15, maximumSize: maximumSize)
        }
    }

    /// 15 window bits ask for zlib's wrapper; +16 for gzip's header and trailer instead.
    private static func windowBits(_ coding: ContentCoding) -> Int32? {
        switch coding {
        case .gzip: 15 + 16
        case .deflate: 15
        case .identity: nil
        }
    }

    private static func inflate(_ bytes: [UInt8], windowBits: Int32, maximumSize: Int) -> [UInt8]? {
        var stream = z_stream()
        guard CZlib_inflateInit2(&stream, windowBits) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return bytes.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                guard output.count <= maximumSize else { return nil }
                switch status {
                // Only a stream that ends exactly where the body ends is whole.
                case Z_STREAM_END: return stream.avail_in == 0 ? output : nil
                case Z_OK: if produced == 0 && stream.avail_in == 0 { return nil }
                default: return nil
                }
            }
        }
    }
}
