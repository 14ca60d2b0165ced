import Testing

/// One test of a contract that every backend must keep (``StorageContract``,
/// ``CommunityContract``): each contract lists its tests once, and each backend's suite runs that
/// list, so a test added to the list runs on every backend.
struct ContractCase<Contract: Sendable>: Sendable, CustomTestStringConvertible {
    let name: String
    let body: @Sendable (Contract) -> () async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (Contract) -> () async throws -> Void) {
        self.name = name
        self.body = body
    }

    var testDescription: String { name }

    func run(_ contract: Contract) async throws { try await body(contract)() }
}

extension StorageContract {
    /// Every test of the storage contract.
    static let cases: [ContractCase<StorageContract>] = [
        .init("signupThenLoginWithTheRightSecretOnly", signupThenLoginWithTheRightSecretOnly),
        .init("signupRefusesBadNamesAndEmptySecrets", signupRefusesBadNamesAndEmptySecrets),
        .init("rateLimitsFailedSignIns", rateLimitsFailedSignIns),
        .init("concurrentGuessesAreBoundedLikeSequentialOnes", concurrentGuessesAreBoundedLikeSequentialOnes),
        .init("aStrangerCannotLockTheOwnerOut", aStrangerCannotLockTheOwnerOut),
        .init("manyAddressesSlowOnlyNewAddresses", manyAddressesSlowOnlyNewAddresses),
        .init("pullsAndPushesAreBoundedInBytes", pullsAndPushesAreBoundedInBytes),
        .init("signupByInvitationAndLimitedPerAddress", signupByInvitationAndLimitedPerAddress),
        .init("quotaRefusesWritesPastIt", quotaRefusesWritesPastIt),
        .init("quotaHoldsAcrossLogsPushedTogether", quotaHoldsAcrossLogsPushedTogether),
        .init("preloginGivesStableFakeSalts", preloginGivesStableFakeSalts),
        .init("storesTokensOnlyAsHashes", storesTokensOnlyAsHashes),
        .init("aPushForAnUnknownAccountIsRefused", aPushForAnUnknownAccountIsRefused),
        .init("pushIsIdempotentByOperationID", pushIsIdempotentByOperationID),
        .init("concurrentPushersGetGaplessPositions", concurrentPushersGetGaplessPositions),
        .init("pullPagesWithNextAnchorAndEpoch", pullPagesWithNextAnchorAndEpoch),
        .init("pullCapsAtTheMaximumBatch", pullCapsAtTheMaximumBatch),
        .init("devicesListRevokeAndLogout", devicesListRevokeAndLogout),
        .init("passwordChangeNeedsTheCurrentPasswordAndKeepsDevices", passwordChangeNeedsTheCurrentPasswordAndKeepsDevices),
        .init("passwordProofsAreRateLimitedLikeSignIn", passwordProofsAreRateLimitedLikeSignIn),
        .init("recoveryWithTheRecoverySecretOnly", recoveryWithTheRecoverySecretOnly),
        .init("deletingAnAccountRemovesEverythingOfIt", deletingAnAccountRemovesEverythingOfIt),
        .init("pushRefusesOversizedBatchesAndBadLogNames", pushRefusesOversizedBatchesAndBadLogNames),
        .init("eventsAnnounceOnlyPushesThatStoredSomething", eventsAnnounceOnlyPushesThatStoredSomething),
        .init("compactionRemovesWhatNoDeviceNamed", compactionRemovesWhatNoDeviceNamed),
        .init("compactionIsRefusedWhenTheLogMovedOrTheRequestIsBad", compactionIsRefusedWhenTheLogMovedOrTheRequestIsBad),
        .init("compactionIsAskedForAfterManyOperations", compactionIsAskedForAfterManyOperations),
        .init("accountListShowsUsageAndNoSecret", accountListShowsUsageAndNoSecret),
        .init("disablingAnAccountRefusesItsDevicesAndPassword", disablingAnAccountRefusesItsDevicesAndPassword),
        .init("operatorDeletionRemovesEverythingOfIt", operatorDeletionRemovesEverythingOfIt),
    ]
}

extension CommunityContract {
    /// Every test of the community contract.
    static let cases: [ContractCase<CommunityContract>] = [
        .init("countsEqualAnIndependentTally", countsEqualAnIndependentTally),
        .init("unpublishingRemovesEveryTrace", unpublishingRemovesEveryTrace),
        .init("badUploadsAreRefusedAndChangeNothing", badUploadsAreRefusedAndChangeNothing),
        .init("ratingsGiveMediansAndNotesOnlyWhenChosen", ratingsGiveMediansAndNotesOnlyWhenChosen),
        .init("sharedListsAreReadByLinkAndDeletedByTheirAccount", sharedListsAreReadByLinkAndDeletedByTheirAccount),
        .init("communityWritesAreRateLimited", communityWritesAreRateLimited),
        .init("aReaderAfterAPurgeStartsAgainAndFinishes", aReaderAfterAPurgeStartsAgainAndFinishes),
    ]
}
