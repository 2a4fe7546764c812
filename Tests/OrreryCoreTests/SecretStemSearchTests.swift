import Testing

@testable import OrreryCore

/// `SecretNames.mayName`, the first question asked of every journaled body, finds a stem exactly where a plain
/// search of the lower-cased bytes does: at the start, the end, across case, between bytes that end other stems.
@Suite("Secret names: the stem search over a body")
struct SecretStemSearchTests {
    private static let stems = ["pass", "secret", "token", "key", "session", "auth", "signature", "otp", "assertion"]

    private static func naive(_ bytes: [UInt8], stems: [String]) -> Bool {
        let lower = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return stems.contains { stem in
            let stem = Array(stem.utf8)
            guard lower.count >= stem.count else { return false }
            return (0...(lower.count - stem.count)).contains { Array(lower[$0..<($0 + stem.count)]) == stem }
        }
    }

    @Test("generated bodies: the same answer as a plain search, for the common stems and for configured names")
    func sameAsPlainSearch() {
        // Whole stems in any case, their beginnings and ends, configured names, and bytes around them (outside
        // ASCII, braces, quotes, NUL and DEL).
        let pieces: [[UInt8]] =
            [
                "pass", "PaSs", "pas", "ass", "secret", "SECRE", "ecret", "tok", "oken", "Token", "key", "KE", "ey",
                "session", "sessio", "auth", "AUT", "signatur", "otp", "OT", "assertio", "pin", "PI", "cvv", "CV", "iD",
                "i",
            ]
            .map { Array($0.utf8) } + Array("{}\":, a\u{00}\u{7F}".utf8).map { [$0] } + [[0xC3, 0xA9], [0xFF]]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let common = SecretNames()
        let configured = SecretNames(usesCommonNames: false, parameters: ["Pin"], jsonFields: ["cvv"])
        // A name of two bytes beside one of three.
        let short = SecretNames(usesCommonNames: false, jsonFields: ["id", "cvv"])
        var found = (common: 0, configured: 0)
        for _ in 0..<4000 {
            let bytes = (0..<next(14)).flatMap { _ in pieces[next(pieces.count)] }
            let expected = Self.naive(bytes, stems: Self.stems)
            #expect(common.mayName(bytes, common: true) == expected, "\(bytes)")
            #expect(common.mayName(bytes[...], common: true) == expected, "a slice of \(bytes)")
            let expectedConfigured = Self.naive(bytes, stems: ["pin", "cvv"])
            #expect(configured.mayName(bytes, common: false) == expectedConfigured, "\(bytes)")
            #expect(short.mayName(bytes, common: false) == Self.naive(bytes, stems: ["id", "cvv"]), "\(bytes)")
            if expected { found.common += 1 }
            if expectedConfigured { found.configured += 1 }
        }
        // Both answers came up often enough for the comparison to mean something.
        #expect(found.common > 400 && found.common < 3800, "\(found.common)")
        #expect(found.configured > 400 && found.configured < 3800, "\(found.configured)")
        #expect(common.mayName(Array("{\"ok\":true}".utf8), common: true) == false)
        #expect(common.mayName(Array("{\"X-API-KEY\":1}".utf8), common: true))
        #expect(SecretNames(usesCommonNames: false).mayName(Array("token".utf8), common: true) == false)
    }
}
