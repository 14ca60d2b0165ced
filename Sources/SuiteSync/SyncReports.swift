import Foundation
import SuiteSyncProtocol

/// What ``SyncClient/signUp(server:account:password:device:)`` made.
public struct SignUpResult: Sendable, Equatable {
    /// This device's id in the account.
    public var deviceID: String
    /// The recovery key (64 hexadecimal digits in groups of eight): shown to the person once,
    /// never stored by Suite; it sets a new password when the old one is forgotten.
    public var recoveryKey: String
}

/// What one ``SyncClient/sync(only:compact:)`` did.
public struct SyncReport: Sendable, Equatable {
    /// One store's part.
    public struct Store: Sendable, Equatable {
        /// The store's log: `bmm`, `places`, `quotes` or `bundle`.
        public var log: String
        /// Changes sent to the server.
        public var sent: Int
        /// Operations received from the server.
        public var received: Int
        /// Operations received that changed the store.
        public var applied: Int
        /// Whether the server had lost data and everything was sent again.
        public var restarted: Bool
        /// Operations received that could not be used and were set aside now.
        public var setAside: Int
        /// Operations set aside before that were used now.
        public var recovered: Int
        /// Operations the server removed from the log in a compaction this sync made.
        public var compacted: Int
        /// Whether the restart (``restarted``) was because history this device had not read
        /// was compacted away, not because the server lost data.
        public var pastCompaction: Bool
    }

    /// Every store synced, in the order the client was given them.
    public var stores: [Store]
    /// How far this device's clock was ahead of the server's, in milliseconds (negative when
    /// behind), when the server said its time.
    public var clockOffset: Int64?

    /// Operations set aside in this sync, all stores together.
    public var setAside: Int { stores.reduce(0) { $0 + $1.setAside } }

    /// The line saying which stores set operations aside, or nil when none did.
    public var setAsideMessage: String? {
        let stores = stores.filter { $0.setAside > 0 }
        guard !stores.isEmpty else { return nil }
        let total = setAside
        let logs = stores.map { "\($0.log) \($0.setAside)" }.joined(separator: ", ")
        return "\(total) operation\(total == 1 ? "" : "s") from the server could not be used and \(total == 1 ? "was" : "were") set aside (\(logs)); "
            + "everything else synced: suite sync set-aside says why"
    }
}

/// What ``SyncClient/status()`` says.
public struct SyncStatus: Sendable, Equatable {
    /// One store's state.
    public struct Store: Sendable, Equatable {
        public var log: String
        /// Changes waiting to be sent.
        public var pending: Int
        /// Texts that lost to an edit made at the same time elsewhere.
        public var conflicts: Int
        /// Operations from the server that could not be used.
        public var setAside: Int
    }

    /// Whether the folder syncs with an account.
    public var isSyncing: Bool
    public var server: URL?
    public var account: String?
    /// This device's id in the account.
    public var deviceID: String?
    public var stores: [Store]
    public var lastSuccess: Date?
    public var lastError: String?
    /// How far this device's clock was ahead of the server's at the last sync that measured
    /// it, in milliseconds (negative when behind).
    public var clockOffset: Int64?
    public var clockMeasuredAt: Date?
    /// What the account stored on the server at the last sync, in bytes, and the most it may
    /// (nil when the server sets no quota, or before the first sync).
    public var serverUsage: Int64?
    public var serverQuota: Int64?
}

/// One thing ``SyncClient/watch(every:)`` reports.
public struct SyncEvent: Sendable, Equatable {
    /// What happened. More kinds may come: handle those you know, ignore the others.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        /// The watch started: ``stores``, ``server`` and ``account`` say what.
        public static let watching = Kind("watching")
        /// A sync ended: ``report`` says what moved; ``full`` whether every store synced.
        public static let synced = Kind("synced")
        /// A sync failed and will be tried again after ``retryIn``: ``error`` says why.
        public static let failed = Kind("failed")
    }

    public var kind: Kind
    public var stores: [String] = []
    public var server: URL?
    public var account: String?
    public var report: SyncReport?
    public var full = false
    public var error: SyncError?
    public var retryIn: Duration?
}
