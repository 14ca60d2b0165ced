import Crypto
import Foundation
import _CryptoExtras

/// The sign-in password of a store folder's web app, kept only as a slow hash: scrypt (RFC 7914,
/// N = 2^15, r = 8, p = 1: 32 MiB and 0.1 to 0.2 s per check in a release build) over a random salt,
/// in the file `web-password` of the store folder (0600), one line:
/// `scrypt$15$8$1$<salt, base64>$<hash, base64>`.
package struct WebPassword: Sendable, Equatable {
    package static let fileName = "web-password"
    /// Shorter passwords are refused: the web app off loopback faces the internet.
    package static let minimumCharacters = 12
    /// Longer ones are refused too (a pasted file is not a password).
    package static let maximumBytes = 1024

    /// The file's line.
    package let line: String
    let logRounds: Int
    let blockSize: Int
    let parallelism: Int
    let salt: [UInt8]
    let hash: [UInt8]

    /// A short fingerprint of the line: a session made under another password (``WebSessions``)
    /// is no longer valid.
    package var tag: String {
        SHA256.hash(data: Data(line.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Checks `password` against the rules, then hashes it with a new salt.
    ///
    /// - Throws: ``WebPasswordError`` when it is too short, too long or holds a line break.
    package static func make(_ password: String, logRounds: Int = 15) throws -> WebPassword {
        try check(password)
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let hash = try derive(password, salt: salt, logRounds: logRounds, blockSize: 8, parallelism: 1)
        let line = "scrypt$\(logRounds)$8$1$\(Data(salt).base64EncodedString())$\(Data(hash).base64EncodedString())"
        return WebPassword(line: line, logRounds: logRounds, blockSize: 8, parallelism: 1, salt: salt, hash: hash)
    }

    /// The rules a new password must follow.
    package static func check(_ password: String) throws {
        if password.contains(where: \.isNewline) { throw WebPasswordError("the password holds a line break") }
        if password.count < minimumCharacters {
            throw WebPasswordError("the password is too short: at least \(minimumCharacters) characters")
        }
        if password.utf8.count > maximumBytes { throw WebPasswordError("the password is too long: at most \(maximumBytes) bytes") }
    }

    /// Reads a line written by ``make(_:logRounds:)``.
    ///
    /// - Throws: ``WebPasswordError`` when the line is not one.
    package init(line: String) throws {
        let parts = line.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == "scrypt",
              let logRounds = Int(parts[1]), (10...20).contains(logRounds),
              let blockSize = Int(parts[2]), (1...32).contains(blockSize),
              let parallelism = Int(parts[3]), (1...4).contains(parallelism),
              let salt = Data(base64Encoded: parts[4]), salt.count >= 16,
              let hash = Data(base64Encoded: parts[5]), hash.count == 32
        else { throw WebPasswordError("not a password line this version writes") }
        self.init(line: line, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism, salt: Array(salt), hash: Array(hash))
    }

    private init(line: String, logRounds: Int, blockSize: Int, parallelism: Int, salt: [UInt8], hash: [UInt8]) {
        self.line = line
        self.logRounds = logRounds
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
        self.hash = hash
    }

    /// Whether `password` is this one (compared in constant time). Slow on purpose.
    package func matches(_ password: String) -> Bool {
        guard password.utf8.count <= Self.maximumBytes,
              let derived = try? Self.derive(password, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(derived, hash) { difference |= a ^ b }
        return difference == 0 && derived.count == hash.count
    }

    private static func derive(_ password: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32,
            rounds: 1 << logRounds, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }

    // MARK: The file

    /// The password of the store folder `folder`, or nil when none was set.
    ///
    /// - Throws: ``WebPasswordError`` when the file cannot be read or is not one this version wrote.
    package static func read(folder: URL) throws -> WebPassword? {
        let file = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        guard let data = try? Data(contentsOf: file), data.count < 4096 else {
            throw WebPasswordError("\(file.path) cannot be read")
        }
        do {
            return try WebPassword(line: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw WebPasswordError("\(file.path) is damaged (\(error)): set the password again with 'suite ui password'")
        }
    }

    /// Writes the line to `folder` (made 0700 when missing) as a new 0600 file that replaces the
    /// old one at once, and signs every browser out (``WebSessions/fileName`` is removed).
    package func write(folder: URL) throws {
        do {
            try WebFiles.makeFolder(folder)
            try WebFiles.replace(folder.appendingPathComponent(Self.fileName), with: Data((line + "\n").utf8))
            let sessions = folder.appendingPathComponent(WebSessions.fileName)
            if FileManager.default.fileExists(atPath: sessions.path) { try FileManager.default.removeItem(at: sessions) }
        } catch {
            throw WebPasswordError("cannot write the password in \(folder.path): \(error.localizedDescription)")
        }
    }
}

/// Why a password was refused or could not be kept, in one line.
package struct WebPasswordError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

/// Small files of the web app in the store folder: private to their owner, replaced whole.
enum WebFiles {
    /// Makes `folder` (0700) when it is missing.
    static func makeFolder(_ folder: URL) throws {
        guard !FileManager.default.fileExists(atPath: folder.path) else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Writes `data` to a new 0600 file beside `file`, flushes it, and renames it over `file`: a
    /// reader sees the old file or the new one, never a part.
    static func replace(_ file: URL, with data: Data) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WebPasswordError(String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, file.path) == 0 else { throw WebPasswordError(String(cString: strerror(errno))) }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }
}
