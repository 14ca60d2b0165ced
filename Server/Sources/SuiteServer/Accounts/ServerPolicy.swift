import Crypto
import Foundation

/// Who may sign up on a server.
package enum SignupPolicy: String, Sendable, CaseIterable {
    /// With a one-time code from `suite-server invite` (the default of `serve`).
    case invite
    /// Anyone (limited per client address).
    case open
    /// Nobody: accounts exist already.
    case closed
}

/// What a server allows its clients: sign-up and storage.
package struct ServerPolicy: Sendable {
    /// Who may sign up.
    package var signup: SignupPolicy
    /// The most bytes an account may store (operations and shared lists), or nil for no limit.
    package var quotaBytes: Int64?
    /// Sign-ups one client address may make at once, and then an hour.
    package var signupBurst: Double

    /// The default quota: 1 GiB an account.
    package static let defaultQuotaMegabytes = 1024

    package init(signup: SignupPolicy = .open, quotaBytes: Int64? = Int64(ServerPolicy.defaultQuotaMegabytes) << 20, signupBurst: Double = 5) {
        self.signup = signup
        self.quotaBytes = quotaBytes
        self.signupBurst = signupBurst
    }
}

/// One-time sign-up codes: 20 letters and digits (Crockford's base 32, about 100 bits), shown
/// in groups of four; the server keeps only their SHA-256.
package enum InviteCode {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// A new code, e.g. `7K3Q-M2PX-9D4H-TR6W-0C5N`.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<20).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] }
        return stride(from: 0, to: 20, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The hash stored for a code as typed: case, spaces and dashes do not matter, and the
    /// letters people confuse (O, I, L) read as the digits they look like.
    package static func hash(_ code: String) -> String {
        let normal = code.uppercased().compactMap { character -> Character? in
            switch character {
            case "-", " ": nil
            case "O": "0"
            case "I", "L": "1"
            default: character
            }
        }
        return SHA256.hash(data: Data(String(normal).utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
