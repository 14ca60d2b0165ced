import Foundation
import SuiteSyncProtocol

extension ServerStorage {
    /// Deletes an account and everything of it, for its owner (`POST /v1/account/delete`) and
    /// for the server's operator (`suite-server accounts delete`): its published votes are
    /// withdrawn first, so the items' counts drop, then its devices, logs, operations and shared
    /// lists go in a transaction that finds no vote, and its event streams in this process end
    /// (in other processes, at their next keep-alive, as its tokens no longer work).
    ///
    /// A device that publishes again in between only makes this try again, up to five times.
    ///
    /// - Parameters:
    ///   - id: The account.
    ///   - now: The clock for the withdrawal.
    /// - Returns: Whether the account is gone (true too when it was already); false when it
    ///   kept publishing through every try.
    /// - Throws: ``ServerStorageError`` on a storage failure.
    func withdrawVotesAndDeleteAccount(id: String, now: @Sendable () -> Date) async throws -> Bool {
        for _ in 0..<5 {
            try await setCommunitySettings(CommunitySettings(favourites: false, ratings: false, ratingNotes: false), accountID: id, now: now(),
                                           redact: SyncService.withoutNotes)
            var gone = try await deleteAccount(id: id)
            if !gone { gone = try await account(id: id) == nil }
            if gone {
                events.end(accountID: id)
                return true
            }
        }
        return false
    }
}
