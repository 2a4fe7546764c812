import CNghttp2
import OrreryCore

extension HTTP2Fields {
    /// The fields as the name-value array nghttp2's submit calls take, pointing into `bytes`: valid inside `body`
    /// only, where nghttp2 copies what it keeps.
    func withNameValues<Result>(_ body: (UnsafePointer<nghttp2_nv>?, Int) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { bytes in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(1, fields.count)) { nv in
                let base = UnsafeMutablePointer(mutating: bytes.baseAddress)
                for (index, field) in fields.enumerated() {
                    nv[index] = nghttp2_nv(
                        name: base.map { $0 + field.nameStart }, value: base.map { $0 + field.valueStart },
                        namelen: field.nameCount, valuelen: field.valueCount,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                return body(UnsafePointer(nv.baseAddress), fields.count)
            }
        }
    }
}
