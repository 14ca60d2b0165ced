import Foundation

/// What the server's operator does to accounts (`suite-server accounts`), by name: list their
/// usage and last activity, disable, enable and delete them. It never reads an account's data
/// or secrets.
package struct AccountAdministration: Sendable {
    /// Where the data lives.
    package let storage: any ServerStorage
    private let now: @Sendable () -> Date

    /// Creates the administration of a storage.
    ///
    /// - Parameters:
    ///   - storage: The storage.
    ///   - now: The clock.
    package init(storage: any ServerStorage, now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.now = now
    }

    /// Every account's usage and last activity, by name.
    ///
    /// - Returns: The accounts, ordered by name.
    /// - Throws: ``ServerStorageError`` on a storage failure.
    package func list() async throws -> [AccountSummary] {
        try await storage.accountSummaries(named: nil)
    }

    /// One account's usage and last activity.
    ///
    /// - Parameter name: The account's exact name.
    /// - Returns: The account.
    /// - Throws: ``AccountAdministrationError/unknownAccount(_:)`` if there is none.
    package func summary(named name: String) async throws -> AccountSummary {
        guard let summary = try await storage.accountSummaries(named: name).first else {
            throw AccountAdministrationError.unknownAccount(name)
        }
        return summary
    }

    /// Disables an account: every request of its devices gets 403, its password and recovery
    /// key sign nothing in, its event streams end (in other processes at their next
    /// keep-alive); nothing of it is deleted.
    ///
    /// - Parameter name: The account's exact name.
    /// - Returns: The account as it was before (``AccountSummary/disabledAt`` set when it was
    ///   disabled already; it keeps that date).
    /// - Throws: ``AccountAdministrationError/unknownAccount(_:)`` if there is none.
    @discardableResult
    package func disable(named name: String) async throws -> AccountSummary {
        let before = try await summary(named: name)
        guard try await storage.setAccountDisabled(id: before.id, at: now()) else { throw AccountAdministrationError.unknownAccount(name) }
        storage.events.end(accountID: before.id)
        return before
    }

    /// Enables a disabled account again: its devices' tokens and its password work as before.
    ///
    /// - Parameter name: The account's exact name.
    /// - Returns: The account as it was before (``AccountSummary/disabledAt`` nil when it was
    ///   not disabled).
    /// - Throws: ``AccountAdministrationError/unknownAccount(_:)`` if there is none.
    @discardableResult
    package func enable(named name: String) async throws -> AccountSummary {
        let before = try await summary(named: name)
        guard try await storage.setAccountDisabled(id: before.id, at: nil) else { throw AccountAdministrationError.unknownAccount(name) }
        return before
    }

    /// Deletes an account and everything of it, as its owner's deletion does (see
    /// ``ServerStorage/withdrawVotesAndDeleteAccount(id:now:)``).
    ///
    /// - Parameter name: The account's exact name.
    /// - Returns: What the account held just before.
    /// - Throws: ``AccountAdministrationError/unknownAccount(_:)`` if there is none,
    ///   ``AccountAdministrationError/keptPublishing(_:)`` when its devices published again
    ///   through every try.
    @discardableResult
    package func delete(named name: String) async throws -> AccountSummary {
        let before = try await summary(named: name)
        guard try await storage.withdrawVotesAndDeleteAccount(id: before.id, now: now) else {
            throw AccountAdministrationError.keptPublishing(name)
        }
        return before
    }
}

/// Why an operator's command on an account was refused.
package enum AccountAdministrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No account has this name.
    case unknownAccount(String)
    /// The account's devices published community votes again while it was being deleted.
    case keptPublishing(String)

    package var description: String {
        switch self {
        case .unknownAccount(let name): "no account is named \(name.debugDescription)"
        case .keptPublishing(let name): "the account \(name.debugDescription) kept publishing while it was being deleted; disable it first, then delete it"
        }
    }
}
