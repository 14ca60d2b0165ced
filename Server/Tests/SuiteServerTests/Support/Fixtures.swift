import Foundation
import SuiteServer
import SuiteSyncProtocol

/// Requests and operations for tests, with names no other test uses.
enum Fixtures {
    /// A fresh account name.
    static func accountName(_ prefix: String = "acct") -> String {
        "\(prefix)-\(UUID().uuidString.prefix(13).lowercased())"
    }

    /// A signup with a known secret.
    static func signup(account: String = accountName(), secret: Data = Data("secret-\(UUID())".utf8), device: String = "laptop",
                       recoverySecret: Data? = Data("recovery-\(UUID())".utf8)) -> SignupRequest {
        SignupRequest(
            account: account, authenticationSecret: secret, salt: Data((0..<16).map { UInt8($0) }), rounds: 600_000,
            wrappedKey: Data("wrapped".utf8), recoveryWrappedKey: Data("recovery".utf8), device: device, recoverySecret: recoverySecret)
    }

    /// Operations with ids `prefix-0`, `prefix-1`, ….
    static func operations(_ prefix: String, count: Int, from start: Int = 0) -> [SyncEnvelope] {
        (start..<(start + count)).map { index in
            SyncEnvelope(id: "\(prefix)-\(index)", slot: "slot-\(index % 7)", payload: Data("payload \(prefix) \(index)".utf8))
        }
    }

    /// A service over a storage with a cheap bcrypt cost.
    static func service(_ storage: any ServerStorage, limiter: SignInRateLimiter = SignInRateLimiter()) -> SyncService {
        SyncService(storage: storage, limiter: limiter, policy: ServerPolicy(signupBurst: 1_000), bcryptCost: 4)
    }
}
