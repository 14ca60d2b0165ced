import SuiteSyncProtocol

/// SHA-256 (FIPS 180-4), for keys that name content: two devices that make the same thing give
/// it the same key. Small inputs only (a key's ingredients), so plain Swift is fast enough.
package enum ContentDigest {
    /// The SHA-256 digest of `bytes`.
    package static func sha256<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        PlainSHA256.hash(bytes)
    }

    /// The first `length` bytes of the SHA-256 digest of the text's UTF-8, in lower-case hex.
    package static func key(_ text: String, length: Int = 16) -> String {
        sha256(Array(text.utf8)).prefix(length).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
    }
}
