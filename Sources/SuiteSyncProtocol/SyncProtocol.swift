import Foundation

// The wire format between `suite sync` and `suite-server`: JSON bodies over HTTP, `Data` as
// base64, dates as RFC 3339. Shared by the client (the root package) and the server (the
// `Server/` package, which depends on this product only). Field names are never reused.

/// An operation as the server keeps it: its id (pushes are idempotent by it), its slot (what
/// a later operation on the same slot supersedes; a keyed hash when the account encrypts) and
/// an opaque payload (sealed when the account encrypts).
public struct SyncEnvelope: Sendable, Hashable, Codable {
    public var id: String
    public var slot: String
    public var payload: Data

    public init(id: String, slot: String, payload: Data) {
        self.id = id
        self.slot = slot
        self.payload = payload
    }
}

/// `POST /v1/logs/{log}/push`.
public struct SyncPushRequest: Sendable, Hashable, Codable {
    public var operations: [SyncEnvelope]

    public init(operations: [SyncEnvelope]) {
        self.operations = operations
    }
}

/// The answer to a push: the account's epoch and the log's head after the push.
public struct SyncPushReply: Sendable, Hashable, Codable {
    public var epoch: String
    public var head: Int64
    /// The server's clock when it answered, in milliseconds since 1970: devices measure how far
    /// their own clock is off. Absent from older servers (unknown).
    public var serverTime: Int64?

    public init(epoch: String, head: Int64, serverTime: Int64? = nil) {
        self.epoch = epoch
        self.head = head
        self.serverTime = serverTime
    }
}

/// The answer to `GET /v1/logs/{log}?after=N&limit=M`: the log's operations after position N
/// (positions count from 1, in the order the server accepted them).
public struct SyncPullReply: Sendable, Hashable, Codable {
    public var epoch: String
    public var head: Int64
    public var operations: [SyncEnvelope]
    /// The position of the last operation returned (N when none).
    public var next: Int64
    /// The id of the operation at position N (nil for N = 0 or N past the head).
    public var anchor: String?
    /// The server's clock when it answered, in milliseconds since 1970 (see
    /// ``SyncPushReply/serverTime``). Absent from older servers (unknown).
    public var serverTime: Int64?
    /// The position through which the log was compacted (see ``SyncCompactRequest``): up to
    /// there, only operations that were still winning are left, so positions have gaps. Absent
    /// when the log was never compacted, and from older servers.
    public var compacted: Int64?
    /// Whether the server asks for a compaction: many operations came after the last one. A
    /// device that has pulled to the head with nothing left to push answers with
    /// `POST /v1/logs/{log}/compact`. Absent means no.
    public var compactionWanted: Bool?

    public init(epoch: String, head: Int64, operations: [SyncEnvelope], next: Int64, anchor: String?, serverTime: Int64? = nil,
                compacted: Int64? = nil, compactionWanted: Bool? = nil) {
        self.epoch = epoch
        self.head = head
        self.operations = operations
        self.next = next
        self.anchor = anchor
        self.serverTime = serverTime
        self.compacted = compacted
        self.compactionWanted = compactionWanted
    }

    /// Whether the server has more after ``next``.
    public var hasMore: Bool { next < head }
}

/// `POST /v1/logs/{log}/compact`, one page of a compaction: a device that has pulled the log
/// through position `through` (whose operation is `anchor`) and has nothing left to push names
/// the operations up to there that still win a field for it, or that it set aside (the server
/// cannot tell: payloads are sealed). Pages carry at most ``SyncProtocol/maximumKeepPage`` ids;
/// the last one says `done`, and the server then removes every operation at positions up to
/// `through` that no page of a compaction through there (or later) named, keeping the one at
/// `through`. What a device that read them has is unchanged: each removed operation lost to one
/// that is kept.
public struct SyncCompactRequest: Sendable, Hashable, Codable {
    public var through: Int64
    public var anchor: String
    public var keep: [String]
    public var done: Bool

    public init(through: Int64, anchor: String, keep: [String], done: Bool) {
        self.through = through
        self.anchor = anchor
        self.keep = keep
        self.done = done
    }
}

/// The answer to a compaction page: after the last one, how many operations up to `through`
/// are left and how many were removed (0 and 0 before).
public struct SyncCompactReply: Sendable, Hashable, Codable {
    public var kept: Int64
    public var removed: Int64

    public init(kept: Int64, removed: Int64) {
        self.kept = kept
        self.removed = removed
    }
}

/// `POST /v1/signup`: a new account and its first device. The server stores the salt and the
/// wrapped keys as given and a bcrypt hash of the authentication secret; it never sees the
/// password or anything that decrypts the data.
public struct SignupRequest: Sendable, Hashable, Codable {
    public var account: String
    public var authenticationSecret: Data
    public var salt: Data
    public var rounds: Int
    public var wrappedKey: Data
    public var recoveryWrappedKey: Data
    public var device: String
    /// What proves the recovery key (derived from it; the server keeps only its bcrypt hash):
    /// `POST /v1/recover` checks it. Absent from older clients: such an account cannot be
    /// recovered.
    public var recoverySecret: Data?
    /// The one-time code a server whose sign-up is by invitation asks for
    /// (`suite-server invite` prints one).
    public var invite: String?

    public init(account: String, authenticationSecret: Data, salt: Data, rounds: Int, wrappedKey: Data, recoveryWrappedKey: Data, device: String,
                recoverySecret: Data? = nil, invite: String? = nil) {
        self.account = account
        self.authenticationSecret = authenticationSecret
        self.salt = salt
        self.rounds = rounds
        self.wrappedKey = wrappedKey
        self.recoveryWrappedKey = recoveryWrappedKey
        self.device = device
        self.recoverySecret = recoverySecret
        self.invite = invite
    }
}

/// `GET /v1/account` (with a device's token): what the account stores on the server and how
/// much it may.
public struct AccountUsageReply: Sendable, Hashable, Codable {
    /// Bytes stored: operations (id, slot, payload, and 16 a row) and shared lists.
    public var bytes: Int64
    /// The most it may store, or nil when the server sets no quota.
    public var quotaBytes: Int64?

    public init(bytes: Int64, quotaBytes: Int64?) {
        self.bytes = bytes
        self.quotaBytes = quotaBytes
    }
}

/// `POST /v1/account/password` (with the device's token): a new password. The data key stays;
/// the device sends it wrapped by the new master key, with the new salt and the secret that
/// signs in from now on. The current secret proves the current password.
public struct PasswordChangeRequest: Sendable, Hashable, Codable {
    public var authenticationSecret: Data
    public var newAuthenticationSecret: Data
    public var salt: Data
    public var rounds: Int
    public var wrappedKey: Data

    public init(authenticationSecret: Data, newAuthenticationSecret: Data, salt: Data, rounds: Int, wrappedKey: Data) {
        self.authenticationSecret = authenticationSecret
        self.newAuthenticationSecret = newAuthenticationSecret
        self.salt = salt
        self.rounds = rounds
        self.wrappedKey = wrappedKey
    }
}

/// `POST /v1/recover/key`: the data key wrapped by the recovery key, for whoever proves the
/// recovery key (``RecoveryKeyReply``).
public struct RecoveryKeyRequest: Sendable, Hashable, Codable {
    public var account: String
    public var recoverySecret: Data

    public init(account: String, recoverySecret: Data) {
        self.account = account
        self.recoverySecret = recoverySecret
    }
}

public struct RecoveryKeyReply: Sendable, Hashable, Codable {
    public var recoveryWrappedKey: Data

    public init(recoveryWrappedKey: Data) {
        self.recoveryWrappedKey = recoveryWrappedKey
    }
}

/// `POST /v1/recover`: a new password set with the recovery key, and a new device signed in
/// (answered with a ``SessionReply``). The old password stops working; devices already signed
/// in stay.
public struct RecoverRequest: Sendable, Hashable, Codable {
    public var account: String
    public var recoverySecret: Data
    public var authenticationSecret: Data
    public var salt: Data
    public var rounds: Int
    public var wrappedKey: Data
    public var device: String

    public init(account: String, recoverySecret: Data, authenticationSecret: Data, salt: Data, rounds: Int, wrappedKey: Data, device: String) {
        self.account = account
        self.recoverySecret = recoverySecret
        self.authenticationSecret = authenticationSecret
        self.salt = salt
        self.rounds = rounds
        self.wrappedKey = wrappedKey
        self.device = device
    }
}

/// `POST /v1/account/delete` (with the device's token): the account and everything of it goes
/// from the server, proved by the current password's secret.
public struct AccountDeletionRequest: Sendable, Hashable, Codable {
    public var authenticationSecret: Data

    public init(authenticationSecret: Data) {
        self.authenticationSecret = authenticationSecret
    }
}

/// `POST /v1/prelogin` with `{"account": NAME}`: what a device needs to derive the keys.
public struct PreloginRequest: Sendable, Hashable, Codable {
    public var account: String

    public init(account: String) {
        self.account = account
    }
}

public struct PreloginReply: Sendable, Hashable, Codable {
    public var salt: Data
    public var rounds: Int

    public init(salt: Data, rounds: Int) {
        self.salt = salt
        self.rounds = rounds
    }
}

/// `POST /v1/login`: another device of an account.
public struct LoginRequest: Sendable, Hashable, Codable {
    public var account: String
    public var authenticationSecret: Data
    public var device: String

    public init(account: String, authenticationSecret: Data, device: String) {
        self.account = account
        self.authenticationSecret = authenticationSecret
        self.device = device
    }
}

/// The answer to signup and login: the device's bearer token (shown only here; the server
/// keeps its SHA-256), its id, and the data key wrapped by the master key.
public struct SessionReply: Sendable, Hashable, Codable {
    public var token: String
    public var deviceID: String
    public var wrappedKey: Data
    public var recoveryWrappedKey: Data

    public init(token: String, deviceID: String, wrappedKey: Data, recoveryWrappedKey: Data) {
        self.token = token
        self.deviceID = deviceID
        self.wrappedKey = wrappedKey
        self.recoveryWrappedKey = recoveryWrappedKey
    }
}

/// One device of an account (`GET /v1/devices`).
public struct DeviceInfo: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var createdAt: Date
    public var lastSeenAt: Date?
    /// Whether this is the device asking.
    public var isCurrent: Bool

    public init(id: String, name: String, createdAt: Date, lastSeenAt: Date?, isCurrent: Bool) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.isCurrent = isCurrent
    }
}

/// The body of every error answer.
public struct ServerErrorReply: Sendable, Hashable, Codable {
    public var error: String

    public init(error: String) {
        self.error = error
    }
}

/// The names the protocol fixes.
public enum SyncProtocol {
    /// The most operations one push may carry, and one pull returns.
    public static let maximumBatch = 1000
    /// The largest operation (its id, slot and sealed payload), in bytes: a Business Model
    /// section of a million bytes, escaped and sealed, fits.
    public static let maximumOperationBytes = 2 * 1024 * 1024
    /// The most bytes of operations one push may carry.
    public static let maximumPushBytes = 8 * 1024 * 1024
    /// The bytes of operations after which a pull's page ends (it always holds at least one
    /// operation), so that no answer is larger whatever is stored.
    public static let pullByteBudget = 4 * 1024 * 1024

    /// The bytes an operation counts for against these limits.
    public static func size(of operation: SyncEnvelope) -> Int {
        operation.id.utf8.count + operation.slot.utf8.count + operation.payload.count
    }
    /// The most operation ids one compaction page may name.
    public static let maximumKeepPage = 10_000
    /// The longest account name, device name and log name.
    public static let maximumNameLength = 64
    /// Log names are the stores': lower-case letters, digits and '-'.
    public static func isValidLogName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= maximumNameLength && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// Encodes protocol bodies: dates as RFC 3339, data as base64.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
