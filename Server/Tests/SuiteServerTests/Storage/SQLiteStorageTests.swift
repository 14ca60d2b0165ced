import Foundation
import GRDB
import SuiteServer
import Testing

/// The shared storage suite on SQLite, in a temporary folder per test.
@Suite("Storage on SQLite")
struct SQLiteStorageTests {
    let contract = StorageContract(backend: .sqlite)

    @Test func signupThenLoginWithTheRightSecretOnly() async throws { try await contract.signupThenLoginWithTheRightSecretOnly() }
    @Test func signupRefusesBadNamesAndEmptySecrets() async throws { try await contract.signupRefusesBadNamesAndEmptySecrets() }
    @Test func rateLimitsFailedSignIns() async throws { try await contract.rateLimitsFailedSignIns() }
    @Test func concurrentGuessesAreBoundedLikeSequentialOnes() async throws { try await contract.concurrentGuessesAreBoundedLikeSequentialOnes() }
    @Test func aStrangerCannotLockTheOwnerOut() async throws { try await contract.aStrangerCannotLockTheOwnerOut() }
    @Test func manyAddressesSlowOnlyNewAddresses() async throws { try await contract.manyAddressesSlowOnlyNewAddresses() }
    @Test func pullsAndPushesAreBoundedInBytes() async throws { try await contract.pullsAndPushesAreBoundedInBytes() }
    @Test func signupByInvitationAndLimitedPerAddress() async throws { try await contract.signupByInvitationAndLimitedPerAddress() }
    @Test func quotaRefusesWritesPastIt() async throws { try await contract.quotaRefusesWritesPastIt() }
    @Test func preloginGivesStableFakeSalts() async throws { try await contract.preloginGivesStableFakeSalts() }
    @Test func storesTokensOnlyAsHashes() async throws { try await contract.storesTokensOnlyAsHashes() }
    @Test func pushIsIdempotentByOperationID() async throws { try await contract.pushIsIdempotentByOperationID() }
    @Test func concurrentPushersGetGaplessPositions() async throws { try await contract.concurrentPushersGetGaplessPositions() }
    @Test func pullPagesWithNextAnchorAndEpoch() async throws { try await contract.pullPagesWithNextAnchorAndEpoch() }
    @Test func pullCapsAtTheMaximumBatch() async throws { try await contract.pullCapsAtTheMaximumBatch() }
    @Test func devicesListRevokeAndLogout() async throws { try await contract.devicesListRevokeAndLogout() }
    @Test func passwordChangeNeedsTheCurrentPasswordAndKeepsDevices() async throws { try await contract.passwordChangeNeedsTheCurrentPasswordAndKeepsDevices() }
    @Test func passwordProofsAreRateLimitedLikeSignIn() async throws { try await contract.passwordProofsAreRateLimitedLikeSignIn() }
    @Test func recoveryWithTheRecoverySecretOnly() async throws { try await contract.recoveryWithTheRecoverySecretOnly() }
    @Test func deletingAnAccountRemovesEverythingOfIt() async throws { try await contract.deletingAnAccountRemovesEverythingOfIt() }
    @Test func pushRefusesOversizedBatchesAndBadLogNames() async throws { try await contract.pushRefusesOversizedBatchesAndBadLogNames() }
    @Test func eventsAnnounceOnlyPushesThatStoredSomething() async throws { try await contract.eventsAnnounceOnlyPushesThatStoredSomething() }
    @Test func compactionRemovesWhatNoDeviceNamed() async throws { try await contract.compactionRemovesWhatNoDeviceNamed() }
    @Test func compactionIsRefusedWhenTheLogMovedOrTheRequestIsBad() async throws { try await contract.compactionIsRefusedWhenTheLogMovedOrTheRequestIsBad() }
    @Test func compactionIsAskedForAfterManyOperations() async throws { try await contract.compactionIsAskedForAfterManyOperations() }
    @Test func accountListShowsUsageAndNoSecret() async throws { try await contract.accountListShowsUsageAndNoSecret() }
    @Test func disablingAnAccountRefusesItsDevicesAndPassword() async throws { try await contract.disablingAnAccountRefusesItsDevicesAndPassword() }
    @Test func operatorDeletionRemovesEverythingOfIt() async throws { try await contract.operatorDeletionRemovesEverythingOfIt() }

    /// A file a newer suite-server migrated is refused, and left as it was.
    @Test func aNewerSchemaIsRefusedUnchanged() async throws {
        try await TestBackend.sqlite.withPlace { place in
            _ = try SQLiteServerStorage(directory: place.directory)
            let file = place.directory.appendingPathComponent(SQLiteServerStorage.fileName)
            let queue = try DatabaseQueue(path: file.path)
            try await queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('99-from-the-future')") }
            try queue.close()
            let before = try Data(contentsOf: file)
            #expect {
                _ = try SQLiteServerStorage(directory: place.directory)
            } throws: { error in
                guard case ServerStorageError.migrationFailed(let reason) = error else { return false }
                return reason.contains("newer suite-server")
            }
            #expect(try Data(contentsOf: file) == before)
        }
    }

    @Test func filesArePrivateAndTheJournalIsWAL() async throws {
        try await TestBackend.sqlite.withPlace { place in
            let storage = try SQLiteServerStorage(directory: place.directory)
            let folder = try FileManager.default.attributesOfItem(atPath: place.directory.path)
            let file = try FileManager.default.attributesOfItem(atPath: storage.fileURL.path)
            #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            #expect((file[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try await storage.pragma("journal_mode") == "wal")
            #expect(try await storage.pragma("synchronous") == "2")
        }
    }

    @Test func aFileWhereTheFolderShouldBeIsRefused() async throws {
        try await TestBackend.sqlite.withPlace { place in
            try FileManager.default.createDirectory(at: place.directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: place.directory.path, contents: Data("x".utf8)))
            #expect(throws: ServerStorageError.self) { try SQLiteServerStorage(directory: place.directory) }
        }
    }
}
