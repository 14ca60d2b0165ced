import Foundation
import SuiteHTTPLimits
import SuiteServer
import SuiteSyncProtocol
import Testing

/// The behaviour every storage must have, through the service the routes call. Each backend's
/// suite (``SQLiteStorageTests``, ``PostgresStorageTests``) runs every check here.
struct StorageContract: Sendable {
    let backend: TestBackend

    func signupThenLoginWithTheRightSecretOnly() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let first = try await service.signup(signup)
            #expect(first.wrappedKey == signup.wrappedKey)
            #expect(first.recoveryWrappedKey == signup.recoveryWrappedKey)

            let second = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            #expect(second.deviceID != first.deviceID)
            #expect(second.token != first.token)
            #expect(second.wrappedKey == signup.wrappedKey)

            await #expect(throws: SyncServiceError.unauthorized("wrong account or secret")) {
                try await service.login(LoginRequest(account: signup.account, authenticationSecret: Data("wrong".utf8), device: "phone"))
            }
            await #expect(throws: SyncServiceError.unauthorized("wrong account or secret")) {
                try await service.login(LoginRequest(account: Fixtures.accountName("nobody"), authenticationSecret: signup.authenticationSecret, device: "phone"))
            }
            await #expect(throws: SyncServiceError.conflict("the account \(signup.account) exists")) {
                try await service.signup(Fixtures.signup(account: signup.account))
            }
            let stored = try #require(try await storage.account(named: signup.account))
            #expect(stored.passwordHash.hasPrefix("$2b$04$"))
        }
    }

    func signupRefusesBadNamesAndEmptySecrets() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let bad: [SignupRequest] = [
                Fixtures.signup(account: ""),
                Fixtures.signup(account: String(repeating: "a", count: 65)),
                Fixtures.signup(account: "tab\there"),
                Fixtures.signup(account: "new\nline"),
                Fixtures.signup(device: ""),
                Fixtures.signup(device: "bell\u{7}"),
                Fixtures.signup(device: String(repeating: "d", count: 65)),
                Fixtures.signup(secret: Data()),
            ]
            for request in bad {
                await #expect(throws: SyncServiceError.self) { try await service.signup(request) }
                if !request.account.isEmpty {
                    #expect(try await storage.account(named: request.account) == nil)
                }
            }
            // 64 characters, non-ASCII included, are fine.
            _ = try await service.signup(Fixtures.signup(account: String(repeating: "é", count: 54) + UUID().uuidString.prefix(10), device: "Zoë’s phone"))
        }
    }

    func rateLimitsFailedSignIns() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            _ = try await service.signup(signup)
            for _ in 0..<SignInRateLimiter.Rules().addressFailures {
                await #expect(throws: SyncServiceError.unauthorized("wrong account or secret")) {
                    try await service.login(LoginRequest(account: signup.account, authenticationSecret: Data("wrong".utf8), device: "phone"))
                }
            }
            // The sixth try is refused before the secret is even checked.
            await #expect(throws: SyncServiceError.self) {
                try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            }
            do {
                _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
                Issue.record("a sign-in was accepted past the limit")
            } catch let error as SyncServiceError {
                guard case .tooManyAttempts = error else { Issue.record("expected 429, got \(error)"); return }
            }
            // Another address is not affected (the limit counts by address, over every account).
            let other = Fixtures.signup()
            _ = try await service.signup(other)
            _ = try await service.login(LoginRequest(account: other.account, authenticationSecret: other.authenticationSecret, device: "phone"),
                                        from: ClientAddress(text: "198.51.100.9"))
        }
    }

    func preloginGivesStableFakeSalts() async throws {
        try await backend.withPlace { place in
            let unknown = Fixtures.accountName("ghost")
            let signup = Fixtures.signup()
            let first = try await TestBackend.running(try await place.open()) { storage in
                let service = Fixtures.service(storage)
                _ = try await service.signup(signup)
                let real = try await service.prelogin(PreloginRequest(account: signup.account))
                #expect(real == PreloginReply(salt: signup.salt, rounds: signup.rounds))

                let fake = try await service.prelogin(PreloginRequest(account: unknown))
                #expect(fake.salt.count == SyncService.fakeSaltLength)
                #expect(fake.rounds == SyncService.fakeRounds)
                #expect(try await service.prelogin(PreloginRequest(account: unknown)) == fake)
                #expect(try await service.prelogin(PreloginRequest(account: unknown + "x")).salt != fake.salt)
                return fake
            }
            // The secret is kept in the storage: reopening gives the same fake salt.
            let again = try await TestBackend.running(try await place.open()) { storage in
                try await Fixtures.service(storage).prelogin(PreloginRequest(account: unknown))
            }
            #expect(again == first)
        }
    }

    func storesTokensOnlyAsHashes() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let session = try await service.signup(signup)
            let rows = try await storage.dumpRows(of: "devices").filter { $0.contains(session.deviceID) }
            #expect(rows.count == 1)
            for row in rows {
                #expect(!row.contains(session.token))
                #expect(row.contains(SessionToken.hash(session.token)))
            }
            let everything = try await ["accounts", "devices", "server_settings"].asyncFlatMap { try await storage.dumpRows(of: $0) }
            #expect(!everything.contains { $0.contains(session.token) })
            #expect(!everything.contains { $0.contains(signup.authenticationSecret.base64EncodedString()) })
            #expect(SessionToken.hash(session.token).count == 64)
            // 32 random bytes, unpadded base64url.
            #expect(session.token.count == 43)
            #expect(session.token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(try await service.authenticate(token: session.token) == DeviceSession(accountID: try #require(try await storage.account(named: signup.account)).id, deviceID: session.deviceID))
        }
    }

    /// A push for an account that is gone (deleted while the request was in flight) is refused
    /// as such, on every storage.
    func aPushForAnUnknownAccountIsRefused() async throws {
        try await backend.withStorage { storage in
            await #expect(throws: ServerStorageError.unknownAccount) {
                try await storage.push(accountID: "no-such-account", log: "notes", operations: Fixtures.operations("u", count: 2), quota: nil)
            }
            await #expect(throws: ServerStorageError.unknownAccount) {
                try await storage.push(accountID: "no-such-account", log: "notes", operations: [], quota: nil)
            }
        }
    }

    func pushIsIdempotentByOperationID() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let operations = Fixtures.operations("a", count: 5)
            let first = try await service.push(log: "notes", request: SyncPushRequest(operations: operations), session: session)
            #expect(first.head == 5)
            let again = try await service.push(log: "notes", request: SyncPushRequest(operations: operations), session: session)
            #expect(again.epoch == first.epoch && again.head == first.head, "the same answer (but for the server's clock)")
            // Old and new mixed, and an id repeated within the batch: only the new, once.
            let mixed = Array(operations.prefix(2)) + Fixtures.operations("b", count: 2) + Fixtures.operations("b", count: 1)
            let third = try await service.push(log: "notes", request: SyncPushRequest(operations: mixed), session: session)
            #expect(third.head == 7)
            let page = try await service.pull(log: "notes", after: 0, limit: nil, session: session)
            #expect(page.operations.map(\.id) == operations.map(\.id) + ["b-0", "b-1"])
            #expect(page.operations.first == operations.first)
            // An empty push answers the head.
            #expect(try await service.push(log: "notes", request: SyncPushRequest(operations: []), session: session).head == 7)
            #expect(try await service.push(log: "empty", request: SyncPushRequest(operations: []), session: session).head == 0)
        }
    }

    func concurrentPushersGetGaplessPositions() async throws {
        try await backend.withStorage(maximumConnections: 8) { storage in
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let pushers = 8, pushes = 6, batch = 5
            try await withThrowingTaskGroup(of: Void.self) { group in
                for pusher in 0..<pushers {
                    group.addTask {
                        for push in 0..<pushes {
                            // Each pusher also resends a batch every pusher sends.
                            var operations = Fixtures.operations("p\(pusher)", count: batch, from: push * batch)
                            operations += Fixtures.operations("shared", count: 3, from: push * 3)
                            _ = try await service.push(log: "shared-log", request: SyncPushRequest(operations: operations), session: session)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let expected = pushers * pushes * batch + pushes * 3
            var all: [SyncEnvelope] = []
            var after: Int64 = 0
            var head: Int64 = -1
            repeat {
                let page = try await service.pull(log: "shared-log", after: after, limit: 17, session: session)
                #expect(page.next == after + Int64(page.operations.count), "positions must have no gaps")
                all += page.operations
                after = page.next
                head = page.head
            } while after < head
            #expect(head == Int64(expected))
            #expect(all.count == expected)
            #expect(Set(all.map(\.id)).count == expected)
        }
    }

    func pullPagesWithNextAnchorAndEpoch() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let operations = Fixtures.operations("op", count: 25)
            let pushed = try await service.push(log: "quotes", request: SyncPushRequest(operations: operations), session: session)

            let empty = try await service.pull(log: "never-pushed", after: 0, limit: 10, session: session)
            #expect(empty == SyncPullReply(epoch: pushed.epoch, head: 0, operations: [], next: 0, anchor: nil, serverTime: empty.serverTime))
            #expect(empty.serverTime != nil && pushed.serverTime != nil, "every answer says the server's time")

            let first = try await service.pull(log: "quotes", after: 0, limit: 10, session: session)
            #expect(first.operations == Array(operations[0..<10]))
            #expect(first.next == 10 && first.head == 25 && first.anchor == nil && first.hasMore)
            #expect(first.epoch == pushed.epoch)

            let second = try await service.pull(log: "quotes", after: 10, limit: 10, session: session)
            #expect(second.operations == Array(operations[10..<20]))
            #expect(second.anchor == "op-9")
            #expect(second.next == 20)

            let last = try await service.pull(log: "quotes", after: 20, limit: 10, session: session)
            #expect(last.operations.count == 5 && last.next == 25 && !last.hasMore && last.anchor == "op-19")

            let atHead = try await service.pull(log: "quotes", after: 25, limit: 10, session: session)
            #expect(atHead.operations.isEmpty && atHead.next == 25 && atHead.anchor == "op-24")

            let pastHead = try await service.pull(log: "quotes", after: 40, limit: 10, session: session)
            #expect(pastHead.operations.isEmpty && pastHead.next == 40 && pastHead.anchor == nil && pastHead.head == 25)

            // No limit, or one past the maximum, gives at most the maximum batch.
            #expect(try await service.pull(log: "quotes", after: 0, limit: nil, session: session).operations.count == 25)
            #expect(try await service.pull(log: "quotes", after: 0, limit: SyncProtocol.maximumBatch * 5, session: session).operations.count == 25)
            await #expect(throws: SyncServiceError.self) { try await service.pull(log: "quotes", after: 0, limit: 0, session: session) }
            await #expect(throws: SyncServiceError.self) { try await service.pull(log: "quotes", after: -1, limit: 5, session: session) }

            // Another account has its own epoch and logs.
            let other = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let otherPage = try await service.pull(log: "quotes", after: 0, limit: 10, session: other)
            #expect(otherPage.head == 0 && otherPage.operations.isEmpty)
            #expect(otherPage.epoch != pushed.epoch)
        }
    }

    func pullCapsAtTheMaximumBatch() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let operations = Fixtures.operations("big", count: SyncProtocol.maximumBatch)
            _ = try await service.push(log: "big", request: SyncPushRequest(operations: operations), session: session)
            _ = try await service.push(log: "big", request: SyncPushRequest(operations: Fixtures.operations("more", count: 3)), session: session)
            let page = try await service.pull(log: "big", after: 0, limit: SyncProtocol.maximumBatch + 1, session: session)
            #expect(page.operations.count == SyncProtocol.maximumBatch)
            #expect(page.next == Int64(SyncProtocol.maximumBatch) && page.head == Int64(SyncProtocol.maximumBatch + 3))
        }
    }

    func devicesListRevokeAndLogout() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let laptop = try await service.signup(signup)
            let phone = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            let tablet = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "tablet"))
            let laptopSession = try await service.authenticate(token: laptop.token)

            let devices = try await service.devices(laptopSession)
            #expect(Set(devices.map(\.id)) == [laptop.deviceID, phone.deviceID, tablet.deviceID])
            #expect(devices.filter(\.isCurrent).map(\.id) == [laptop.deviceID])
            #expect(Set(devices.map(\.name)) == ["laptop", "phone", "tablet"])
            #expect(devices.first { $0.id == laptop.deviceID }?.lastSeenAt != nil)

            try await service.revokeDevice(id: phone.deviceID, session: laptopSession)
            await #expect(throws: SyncServiceError.self) { try await service.authenticate(token: phone.token) }
            await #expect(throws: SyncServiceError.notFound("no device \(phone.deviceID) in this account")) {
                try await service.revokeDevice(id: phone.deviceID, session: laptopSession)
            }
            // Another account's device is not found either.
            let stranger = try await service.signup(Fixtures.signup())
            await #expect(throws: SyncServiceError.self) { try await service.revokeDevice(id: stranger.deviceID, session: laptopSession) }
            _ = try await service.authenticate(token: stranger.token)

            let tabletSession = try await service.authenticate(token: tablet.token)
            try await service.logout(tabletSession)
            await #expect(throws: SyncServiceError.self) { try await service.authenticate(token: tablet.token) }
            #expect(try await service.devices(laptopSession).map(\.id) == [laptop.deviceID])
            await #expect(throws: SyncServiceError.self) { try await service.authenticate(token: "") }
            await #expect(throws: SyncServiceError.self) { try await service.authenticate(token: SessionToken.generate()) }
        }
    }

    func passwordChangeNeedsTheCurrentPasswordAndKeepsDevices() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let laptop = try await service.signup(signup)
            let phone = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            let session = try await service.authenticate(token: laptop.token)
            let newSecret = Data("new-secret-\(UUID())".utf8), newSalt = Data(repeating: 7, count: 16), newWrapped = Data("wrapped by the new password".utf8)
            let change = PasswordChangeRequest(authenticationSecret: signup.authenticationSecret, newAuthenticationSecret: newSecret,
                                               salt: newSalt, rounds: 700_000, wrappedKey: newWrapped)
            let before = try #require(try await storage.account(named: signup.account))

            // A wrong current password or malformed material changes nothing.
            var wrong = change
            wrong.authenticationSecret = Data("not the password".utf8)
            await #expect(throws: SyncServiceError.forbidden("the current password is wrong")) { try await service.changePassword(wrong, session: session) }
            for bad in [
                PasswordChangeRequest(authenticationSecret: signup.authenticationSecret, newAuthenticationSecret: Data(), salt: newSalt, rounds: 700_000, wrappedKey: newWrapped),
                PasswordChangeRequest(authenticationSecret: signup.authenticationSecret, newAuthenticationSecret: newSecret, salt: Data(count: 1 << 20), rounds: 700_000, wrappedKey: newWrapped),
                PasswordChangeRequest(authenticationSecret: signup.authenticationSecret, newAuthenticationSecret: newSecret, salt: newSalt, rounds: 0, wrappedKey: newWrapped),
                PasswordChangeRequest(authenticationSecret: signup.authenticationSecret, newAuthenticationSecret: newSecret, salt: newSalt, rounds: 700_000, wrappedKey: Data(count: 300)),
            ] {
                await #expect(throws: SyncServiceError.self) { try await service.changePassword(bad, session: session) }
            }
            #expect(try await storage.account(named: signup.account) == before)

            try await service.changePassword(change, session: session)
            #expect(try await service.prelogin(PreloginRequest(account: signup.account)) == PreloginReply(salt: newSalt, rounds: 700_000))
            let login = try await service.login(LoginRequest(account: signup.account, authenticationSecret: newSecret, device: "tablet"))
            #expect(login.wrappedKey == newWrapped)
            #expect(login.recoveryWrappedKey == signup.recoveryWrappedKey)
            await #expect(throws: SyncServiceError.unauthorized("wrong account or secret")) {
                try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "tablet"))
            }
            // Every device signed in before keeps syncing.
            _ = try await service.authenticate(token: laptop.token)
            let phoneSession = try await service.authenticate(token: phone.token)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("after-change", count: 1)), session: phoneSession)
            // The old password no longer proves anything.
            await #expect(throws: SyncServiceError.forbidden("the current password is wrong")) { try await service.changePassword(change, session: phoneSession) }
        }
    }

    func passwordProofsAreRateLimitedLikeSignIn() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let session = try await service.authenticate(token: try await service.signup(signup).token)
            let change = PasswordChangeRequest(authenticationSecret: signup.authenticationSecret, newAuthenticationSecret: Data("new-secret-long-enough".utf8),
                                               salt: Data(repeating: 1, count: 16), rounds: 600_000, wrappedKey: Data("w".utf8))
            var wrong = change
            wrong.authenticationSecret = Data("guess".utf8)
            for _ in 0..<SignInRateLimiter.Rules().addressFailures {
                await #expect(throws: SyncServiceError.forbidden("the current password is wrong")) { try await service.changePassword(wrong, session: session) }
            }
            // Past the limit even the right password waits, and so do recovery and sign-in.
            do {
                try await service.changePassword(change, session: session)
                Issue.record("a password change was accepted past the limit")
            } catch let error as SyncServiceError {
                guard case .tooManyAttempts = error else { Issue.record("expected 429, got \(error)"); return }
            }
            await #expect(throws: SyncServiceError.self) {
                try await service.recoveryKey(RecoveryKeyRequest(account: signup.account, recoverySecret: try #require(signup.recoverySecret)))
            }
            #expect(try await service.prelogin(PreloginRequest(account: signup.account)).salt == signup.salt)
        }
    }

    func recoveryWithTheRecoverySecretOnly() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let recoverySecret = try #require(signup.recoverySecret)
            let laptop = try await service.signup(signup)
            let stored = try #require(try await storage.account(named: signup.account))
            #expect(stored.recoveryHash?.hasPrefix("$2b$04$") == true)
            let everything = try await storage.dumpRows(of: "accounts").joined()
            #expect(!everything.contains(recoverySecret.base64EncodedString()))

            // A wrong recovery secret, an unknown account: the same refusal, nothing changed.
            for request in [RecoveryKeyRequest(account: signup.account, recoverySecret: Data("wrong recovery".utf8)),
                            RecoveryKeyRequest(account: Fixtures.accountName("ghost"), recoverySecret: recoverySecret)] {
                await #expect(throws: SyncServiceError.unauthorized("wrong account or recovery key")) { try await service.recoveryKey(request) }
            }
            #expect(try await service.recoveryKey(RecoveryKeyRequest(account: signup.account, recoverySecret: recoverySecret)).recoveryWrappedKey == signup.recoveryWrappedKey)

            let newSecret = Data("rs-\(UUID())".utf8), newSalt = Data(repeating: 9, count: 16)
            let recover = RecoverRequest(account: signup.account, recoverySecret: recoverySecret, authenticationSecret: newSecret, salt: newSalt,
                                         rounds: 600_000, wrappedKey: Data("wrapped anew".utf8), device: "new phone")
            var wrong = recover
            wrong.recoverySecret = Data("a guess at the recovery".utf8)
            await #expect(throws: SyncServiceError.unauthorized("wrong account or recovery key")) { try await service.recover(wrong) }
            var malformed = recover
            malformed.salt = Data()
            await #expect(throws: SyncServiceError.self) { try await service.recover(malformed) }
            #expect(try await storage.account(named: signup.account) == stored)
            #expect(try await storage.devices(accountID: stored.id).count == 1)

            let session = try await service.recover(recover)
            #expect(session.wrappedKey == recover.wrappedKey)
            let newSession = try await service.authenticate(token: session.token)
            #expect(try await service.devices(newSession).map(\.name).sorted() == ["laptop", "new phone"])
            // The old password stops working; the new one signs in; the laptop stays signed in.
            await #expect(throws: SyncServiceError.unauthorized("wrong account or secret")) {
                try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "x"))
            }
            _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: newSecret, device: "x"))
            _ = try await service.authenticate(token: laptop.token)
            #expect(try await service.prelogin(PreloginRequest(account: signup.account)).salt == newSalt)

            // An account made without a recovery secret cannot be recovered.
            let old = Fixtures.signup(recoverySecret: nil)
            _ = try await service.signup(old)
            await #expect(throws: SyncServiceError.unauthorized("wrong account or recovery key")) {
                try await service.recoveryKey(RecoveryKeyRequest(account: old.account, recoverySecret: Data("anything at all".utf8)))
            }
        }
    }

    func deletingAnAccountRemovesEverythingOfIt() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let laptop = try await service.signup(signup)
            let phone = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            let session = try await service.authenticate(token: laptop.token)
            let accountID = session.accountID
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("doomed", count: 5)), session: session)
            let marker = "doomed-\(UUID().uuidString)"
            let quote = CommunityQuote(text: "Only the deleted account favours \(marker)", source: nil)
            _ = try await service.setCommunitySettings(CommunitySettings(favourites: true), session: session)
            try await service.publishFavourites(CommunityFavouritesUpload(quotes: [quote]), session: session)
            _ = try await service.shareList(SharedListRequest(title: "List \(marker)", quotes: [SharedQuote(text: "x", source: nil, citation: nil)]), session: session)
            // Another account's data stays.
            let other = Fixtures.signup()
            let otherSession = try await service.authenticate(token: try await service.signup(other).token)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("kept", count: 2)), session: otherSession)
            let events = storage.events.subscribe(accountID: accountID)
            // With votes still there (published again after they were withdrawn) the storage
            // deletes nothing: their counts would stay too high.
            #expect(try await storage.deleteAccount(id: accountID) == false)
            #expect(try await storage.account(id: accountID) != nil)

            await #expect(throws: SyncServiceError.forbidden("the password is wrong")) {
                try await service.deleteAccount(AccountDeletionRequest(authenticationSecret: Data("wrong".utf8)), session: session)
            }
            #expect(try await storage.account(named: signup.account) != nil)

            try await service.deleteAccount(AccountDeletionRequest(authenticationSecret: signup.authenticationSecret), session: session)
            #expect(try await storage.account(named: signup.account) == nil)
            for token in [laptop.token, phone.token] {
                await #expect(throws: SyncServiceError.self) { try await service.authenticate(token: token) }
            }
            for table in ["accounts", "devices", "logs", "operations", "community_votes", "community_settings", "shared_lists"] {
                let rows = try await storage.dumpRows(of: table)
                #expect(!rows.contains { $0.contains(accountID) }, "\(table) keeps a row of the deleted account")
            }
            #expect(!(try await storage.dumpRows(of: "shared_lists")).contains { $0.contains(marker) })
            #expect(try await service.lookupQuotes(CommunityLookupRequest(keys: [quote.key]), session: otherSession).isEmpty)
            // Its event streams end.
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            // The name is free again; the other account is untouched.
            _ = try await service.signup(Fixtures.signup(account: signup.account))
            #expect(try await service.pull(log: "notes", after: 0, limit: nil, session: otherSession).operations.count == 2)
        }
    }

    func pushRefusesOversizedBatchesAndBadLogNames() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let tooMany = Fixtures.operations("x", count: SyncProtocol.maximumBatch + 1)
            await #expect(throws: SyncServiceError.self) {
                try await service.push(log: "notes", request: SyncPushRequest(operations: tooMany), session: session)
            }
            for name in ["", "Notes", "a/b", "a b", "ü", "a_b", String(repeating: "a", count: 65), "..", "log\n"] {
                await #expect(throws: SyncServiceError.self, "\(name)") {
                    try await service.push(log: name, request: SyncPushRequest(operations: Fixtures.operations("y", count: 1)), session: session)
                }
                await #expect(throws: SyncServiceError.self, "\(name)") {
                    try await service.pull(log: name, after: 0, limit: 1, session: session)
                }
            }
            await #expect(throws: SyncServiceError.self) {
                try await service.push(log: "notes", request: SyncPushRequest(operations: [SyncEnvelope(id: "", slot: "s", payload: Data())]), session: session)
            }
            #expect(try await service.pull(log: "notes", after: 0, limit: 10, session: session).head == 0)
            _ = try await service.push(log: String(repeating: "a", count: 64), request: SyncPushRequest(operations: Fixtures.operations("z", count: 1)), session: session)
        }
    }

    func eventsAnnounceOnlyPushesThatStoredSomething() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let session = try await service.authenticate(token: try await service.signup(signup).token)
            let other = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let events = storage.events.subscribe(accountID: session.accountID)

            let operations = Fixtures.operations("e", count: 2)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: operations), session: session)
            #expect(await Self.next(events) == "notes")
            // Nothing new, and another account's push: no event. The next one is "todos".
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: operations), session: session)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: operations), session: other)
            _ = try await service.push(log: "todos", request: SyncPushRequest(operations: operations), session: session)
            #expect(await Self.next(events) == "todos")
        }
    }

    /// The stream's next event, or nil after 10 s.
    static func next(_ events: AsyncStream<String>, within timeout: Duration = .seconds(10)) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                var iterator = events.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension Array {
    func asyncFlatMap<T>(_ transform: (Element) async throws -> [T]) async rethrows -> [T] {
        var result: [T] = []
        for element in self {
            result += try await transform(element)
        }
        return result
    }
}
