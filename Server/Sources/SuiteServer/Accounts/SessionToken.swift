import Crypto
import Foundation

/// Bearer tokens: 32 random bytes as unpadded base64url; the storage keeps only their SHA-256.
package enum SessionToken {
    /// A new random token.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The form the storage keeps: SHA-256 of the token's UTF-8, lower-case hex.
    ///
    /// - Parameter token: A token as the client sends it.
    /// - Returns: 64 hex digits.
    package static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}
