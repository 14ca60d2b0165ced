import Crypto
import Foundation

/// The signed-in browsers of a web app off loopback: a random token in a cookie
/// (`HttpOnly; Secure; SameSite=Strict`), of which the store folder keeps only the SHA-256, its
/// expiry and the password it was made under, in `web-sessions` (0600), so a restart signs no one
/// out and a new password signs everyone out. At most ``limit`` sessions; a new one pushes out the
/// oldest.
package final class WebSessions: @unchecked Sendable {
    package static let fileName = "web-sessions"
    /// How long a sign-in lasts.
    package static let standardLifetime: TimeInterval = 30 * 24 * 3600
    /// A person's browsers and devices, with room to spare.
    package static let limit = 32

    struct Session: Codable {
        /// SHA-256 of the cookie's token, in hex.
        let hash: String
        let expires: Double
        /// ``WebPassword/tag`` of the password it was made under.
        let password: String
    }

    let file: URL
    let lifetime: TimeInterval
    private let lock = NSLock()
    private var sessions: [Session]

    /// Reads the sessions of `folder` (none when the file is missing).
    ///
    /// - Throws: ``WebPasswordError`` when the file is there and not one this version wrote.
    package init(folder: URL, lifetime: TimeInterval = WebSessions.standardLifetime) throws {
        file = folder.appendingPathComponent(Self.fileName)
        self.lifetime = lifetime
        if FileManager.default.fileExists(atPath: file.path) {
            guard let data = try? Data(contentsOf: file), let read = try? JSONDecoder().decode([Session].self, from: data) else {
                throw WebPasswordError("\(file.path) is damaged: remove it (every browser signs in again)")
            }
            sessions = read
        } else {
            sessions = []
        }
    }

    /// A new session under `password`: its token, for the cookie.
    package func start(password: WebPassword, now: Date) throws -> String {
        let token = WebSecrets.random()
        try lock.withLock {
            var kept = sessions.filter { $0.expires > now.timeIntervalSince1970 && $0.password == password.tag }
            kept.append(Session(hash: Self.hash(token), expires: now.timeIntervalSince1970 + lifetime, password: password.tag))
            if kept.count > Self.limit { kept.removeFirst(kept.count - Self.limit) }
            try save(kept)
            sessions = kept
        }
        return token
    }

    /// Whether `token` is a session that has not expired, made under `password`.
    package func valid(_ token: String, password: WebPassword, now: Date) -> Bool {
        let hash = Self.hash(token)
        return lock.withLock {
            sessions.contains { WebSecrets.same($0.hash, hash) && $0.expires > now.timeIntervalSince1970 && $0.password == password.tag }
        }
    }

    /// Ends the session of `token` (signing out).
    package func end(_ token: String) throws {
        let hash = Self.hash(token)
        try lock.withLock {
            let kept = sessions.filter { $0.hash != hash }
            guard kept.count != sessions.count else { return }
            try save(kept)
            sessions = kept
        }
    }

    /// How many sessions are kept.
    package var count: Int { lock.withLock { sessions.count } }

    private func save(_ sessions: [Session]) throws {
        try WebFiles.replace(file, with: try JSONEncoder().encode(sessions))
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Sign-in attempts, limited per address and per store: each is counted when it starts, before the
/// password is checked, so guesses sent at once are limited as one after the other would be. A
/// successful sign-in forgets its address's attempts. What is kept is bounded by the store's
/// limit: an attempt refused is not recorded.
package final class SignInLimiter: @unchecked Sendable {
    package struct Limits: Sendable {
        package var perAddress: Int
        package var perStore: Int
        package var window: TimeInterval

        package init(perAddress: Int, perStore: Int, window: TimeInterval) {
            self.perAddress = perAddress
            self.perStore = perStore
            self.window = window
        }

        /// 5 attempts per address and 20 in all per 15 minutes.
        package static let standard = Limits(perAddress: 5, perStore: 20, window: 15 * 60)
    }

    let limits: Limits
    private let lock = NSLock()
    private var attempts: [(address: String, at: Date)] = []

    package init(limits: Limits = .standard) {
        self.limits = limits
    }

    /// Counts an attempt from `address`, or refuses it.
    ///
    /// - Returns: nil when the attempt may go on; otherwise how many seconds until one may.
    package func begin(address: String, now: Date) -> TimeInterval? {
        lock.withLock {
            attempts.removeAll { now.timeIntervalSince($0.at) >= limits.window }
            let mine = attempts.filter { $0.address == address }
            if mine.count >= limits.perAddress {
                return max(1, limits.window - now.timeIntervalSince(mine[mine.count - limits.perAddress].at))
            }
            if attempts.count >= limits.perStore {
                return max(1, limits.window - now.timeIntervalSince(attempts[attempts.count - limits.perStore].at))
            }
            attempts.append((address, now))
            return nil
        }
    }

    /// Forgets `address`'s attempts after it signed in.
    package func succeeded(address: String) {
        lock.withLock { attempts.removeAll { $0.address == address } }
    }

    /// How many attempts are counted now.
    package var counted: Int { lock.withLock { attempts.count } }
}
