import Foundation
import Logging
import ServiceLifecycle
import SuiteServer
import SuiteSyncProtocol
import Testing

/// The operator's commands for accounts (`suite-server accounts`, issue #35 §2), on every
/// backend: usage without secrets, disabling, enabling, deleting.
extension StorageContract {
    /// The list shows what each account stores, matching what was pushed, and its last
    /// activity; neither its table nor its JSON holds a token, a hash, the salt, a key, a device
    /// name or a payload.
    func accountListShowsUsageAndNoSecret() async throws {
        try await backend.withStorage { storage in
            let clock = TestClock()
            let service = SyncService(storage: storage, policy: ServerPolicy(signupBurst: 1_000), bcryptCost: 4, now: { clock.now })
            let marker = UUID().uuidString.prefix(8).lowercased()
            var signup = Fixtures.signup(device: "laptop-\(marker)")
            signup.salt = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
            signup.wrappedKey = Data("wrapped-\(marker)".utf8)
            signup.recoveryWrappedKey = Data("recovery-wrapped-\(marker)".utf8)
            let created = clock.now
            let laptop = try await service.signup(signup)
            clock.advance(600)
            let phone = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone-\(marker)"))
            clock.advance(3_000)
            let session = try await service.authenticate(token: laptop.token)
            let notes = Fixtures.operations("secret-payload-\(marker)", count: 7)
            let todos = Fixtures.operations("todo-\(marker)", count: 3)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: notes), session: session)
            _ = try await service.push(log: "todos", request: SyncPushRequest(operations: todos), session: session)
            let expectedBytes = (notes + todos).reduce(Int64(0)) { $0 + Int64(SyncProtocol.size(of: $1) + 16) }
            // An account with nothing, listed too.
            let idle = Fixtures.signup()
            _ = try await service.signup(idle)

            let administration = AccountAdministration(storage: storage)
            let all = try await administration.list()
            #expect(all.map(\.name) == all.map(\.name).sorted())
            let account = try #require(all.first { $0.name == signup.account })
            #expect(account.devices == 2)
            #expect(account.logs == 2)
            #expect(account.operations == 10)
            #expect(account.bytes == expectedBytes)
            #expect(account.bytes == (try await service.usage(session)).bytes)
            #expect(account.disabledAt == nil)
            #expect(abs(account.createdAt.timeIntervalSince(created)) < 0.01)
            #expect(abs(account.lastActivityAt.timeIntervalSince(created.addingTimeInterval(3_600))) < 0.01, "the laptop's last request")
            #expect(try await administration.summary(named: signup.account) == account)
            let empty = try #require(all.first { $0.name == idle.account })
            #expect(empty.devices == 1 && empty.logs == 0 && empty.operations == 0 && empty.bytes == 0)
            #expect(empty.lastActivityAt == empty.createdAt)

            let mine = all.filter { [signup.account, idle.account].contains($0.name) }
            let outputs = [try AccountListEntry.json(mine.map(AccountListEntry.init)), AccountListEntry.table(mine)]
            let stored = try #require(try await storage.account(named: signup.account))
            let tokenHashes = try await storage.dumpRows(of: "devices").filter { $0.contains(session.accountID) }
            #expect(tokenHashes.count == 2)
            var secrets = [laptop.token, phone.token, SessionToken.hash(laptop.token), SessionToken.hash(phone.token), stored.passwordHash,
                           signup.salt.base64EncodedString(), signup.salt.map { String(format: "%02x", $0) }.joined(),
                           signup.authenticationSecret.base64EncodedString(), String(decoding: signup.authenticationSecret, as: UTF8.self),
                           signup.wrappedKey.base64EncodedString(), String(decoding: signup.wrappedKey, as: UTF8.self),
                           signup.recoveryWrappedKey.base64EncodedString(), String(decoding: signup.recoveryWrappedKey, as: UTF8.self),
                           stored.epoch, session.accountID, laptop.deviceID, phone.deviceID, "laptop-\(marker)", "phone-\(marker)",
                           "secret-payload-\(marker)", "todo-\(marker)", "notes", "todos"]
            secrets.append(try #require(stored.recoveryHash))
            for output in outputs {
                #expect(output.contains(signup.account))
                for secret in secrets {
                    #expect(!output.contains(secret), "the list shows \(secret)")
                }
            }
            // The JSON: one array of objects with the stable keys.
            let decoded = try JSONSerialization.jsonObject(with: Data(outputs[0].utf8)) as? [[String: Any]]
            let object = try #require(decoded?.first { $0["name"] as? String == signup.account })
            #expect(Set(object.keys) == ["name", "createdAt", "lastActivityAt", "devices", "logs", "operations", "bytes", "disabled", "disabledAt"])
            #expect((object["bytes"] as? NSNumber)?.int64Value == expectedBytes)
            #expect(object["disabled"] as? Bool == false)
            #expect(object["disabledAt"] is NSNull)
            #expect(try AccountListEntry.json([]).filter { !$0.isWhitespace } == "[]")
        }
    }

    /// A disabled account: every request of its devices gets 403 with one message, its right
    /// password and recovery key are refused the same way while a wrong one gets the 401 it
    /// always got, its event streams end (in this process at once; in another process at the
    /// next keep-alive), and nothing of it is deleted. Enabling restores all of it.
    func disablingAnAccountRefusesItsDevicesAndPassword() async throws {
        try await backend.withPlace { place in
            // The server runs its storage; a second storage on the same data is another server
            // process.
            let storage = try await place.open()
            try await TestBackend.running(try await place.open()) { other in
                try await Self.withLiveServer(storage: storage) { port, service in
                    try await checkDisabling(port: port, service: service, storage: storage, other: other)
                }
            }
        }
    }

    private func checkDisabling(port: Int, service: SyncService, storage: any InspectableStorage, other: any InspectableStorage) async throws {
        let signup = Fixtures.signup()
        let laptop = try await service.signup(signup)
        let phone = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
        let session = try await service.authenticate(token: laptop.token)
        _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("kept", count: 4)), session: session)
        let bystander = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
        // A list shared before: its public page goes while the account is disabled.
        let shared = try await service.shareList(SharedListRequest(title: "Mine", quotes: [SharedQuote(text: "q", source: nil, citation: nil)]), session: session)
        let administration = AccountAdministration(storage: storage)
        let before = try await administration.summary(named: signup.account)

        // Before: a wrong password's answer, to compare with the one while disabled.
        let wrongLogin = try AbuseHTTPTests.json(LoginRequest(account: signup.account, authenticationSecret: Data("wrong".utf8), device: "x"))
        let rightLogin = try AbuseHTTPTests.json(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "x"))
        let wrongBefore = try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.4", method: "POST", path: "/v1/login", body: wrongLogin) }
        #expect(wrongBefore.status == 401)

        // Streams: one subscribed in this process, one open over HTTP whose account another
        // process disables (so only its keep-alive check can end it).
        let events = storage.events.subscribe(accountID: session.accountID, deviceID: session.deviceID)
        let stream = try await AbuseHTTPTests.openStream(port: port, token: phone.token)
        let otherBefore = try await AccountAdministration(storage: other).disable(named: signup.account)
        #expect(otherBefore.disabledAt == nil)
        _ = try await blocking { try stream.readToEnd(within: 5) }
        #expect(try await AccountAdministration(storage: storage).disable(named: signup.account).disabledAt != nil, "disabled already")
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == nil)

        let disabled = SyncServiceError.accountDisabled
        for token in [laptop.token, phone.token] {
            await #expect(throws: disabled) { try await service.authenticate(token: token) }
            for (method, path) in [("GET", "/v1/logs/notes"), ("GET", "/v1/devices"), ("GET", "/v1/account"), ("GET", "/v1/events"), ("POST", "/v1/logout")] {
                let reply = try await blocking {
                    try LoopbackClient.request(port: port, method: method, path: path, headers: ["Authorization": "Bearer \(token)", "Connection": "close"])
                }
                #expect(reply.status == 403, "\(method) \(path)")
                #expect(String(decoding: reply.body, as: UTF8.self) == #"{"error":"this account is disabled by the server's operator"}"#)
            }
        }
        let push = try await blocking {
            try LoopbackClient.request(port: port, method: "POST", path: "/v1/logs/notes/push", headers: ["Authorization": "Bearer \(laptop.token)"],
                                       body: try AbuseHTTPTests.json(SyncPushRequest(operations: Fixtures.operations("refused", count: 1))))
        }
        #expect(push.status == 403)
        // The right password and recovery key: refused, saying only that.
        let right = try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.4", method: "POST", path: "/v1/login", body: rightLogin) }
        #expect(right.status == 403)
        #expect(String(decoding: right.body, as: UTF8.self) == #"{"error":"this account is disabled by the server's operator"}"#)
        await #expect(throws: disabled) {
            try await service.recoveryKey(RecoveryKeyRequest(account: signup.account, recoverySecret: try #require(signup.recoverySecret)))
        }
        await #expect(throws: disabled) {
            try await service.recover(RecoverRequest(account: signup.account, recoverySecret: try #require(signup.recoverySecret),
                                                     authenticationSecret: Data("new".utf8), salt: signup.salt, rounds: signup.rounds,
                                                     wrappedKey: signup.wrappedKey, device: "x"))
        }
        // A wrong one: exactly the answer it got before, and the one an unknown account gets.
        let wrongWhile = try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.4", method: "POST", path: "/v1/login", body: wrongLogin) }
        #expect(wrongWhile.status == wrongBefore.status)
        #expect(wrongWhile.body == wrongBefore.body)
        let unknown = try await blocking {
            try LoopbackClient.request(port: port, from: "127.0.0.4", method: "POST", path: "/v1/login",
                                       body: try AbuseHTTPTests.json(LoginRequest(account: Fixtures.accountName("nobody"), authenticationSecret: Data("wrong".utf8), device: "x")))
        }
        #expect(unknown.status == 401 && unknown.body == wrongBefore.body)
        await #expect(throws: SyncServiceError.unauthorized("wrong account or recovery key")) {
            try await service.recoveryKey(RecoveryKeyRequest(account: signup.account, recoverySecret: Data("wrong".utf8)))
        }
        // Nothing was deleted, nothing was added; another account is untouched.
        var now = try await administration.summary(named: signup.account)
        #expect(now.disabledAt != nil)
        now.disabledAt = nil
        now.lastActivityAt = before.lastActivityAt
        #expect(now == before)
        _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("other", count: 1)), session: bystander)
        #expect(try await administration.summary(named: signup.account).disabledAt != nil)
        #expect(try await service.sharedList(id: shared.id) == nil, "a disabled account's shared list is not public")

        // Enabled: the tokens, the password, the data and the shared list work again.
        #expect(try await administration.enable(named: signup.account).disabledAt != nil)
        #expect(try await administration.enable(named: signup.account).disabledAt == nil, "enabled already")
        #expect(try await service.authenticate(token: phone.token).deviceID == phone.deviceID)
        let pull = try await blocking {
            try LoopbackClient.request(port: port, method: "GET", path: "/v1/logs/notes", headers: ["Authorization": "Bearer \(laptop.token)"])
        }
        #expect(pull.status == 200)
        #expect(try SyncProtocol.decoder.decode(SyncPullReply.self, from: pull.body).operations.count == 4)
        let again = try await blocking { try LoopbackClient.request(port: port, from: "127.0.0.4", method: "POST", path: "/v1/login", body: rightLogin) }
        #expect(again.status == 200)
        #expect(try await administration.summary(named: signup.account).disabledAt == nil)
        #expect(try await service.sharedList(id: shared.id)?.title == "Mine")
    }

    /// The operator's deletion removes every row of the account, withdrawing its published
    /// votes first (counts drop), ends its streams, and leaves other accounts alone; an unknown
    /// name changes nothing.
    func operatorDeletionRemovesEverythingOfIt() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let laptop = try await service.signup(signup)
            let phone = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"))
            let session = try await service.authenticate(token: laptop.token)
            let accountID = session.accountID
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("doomed", count: 5)), session: session)
            let marker = "operator-doomed-\(UUID().uuidString)"
            let quote = CommunityQuote(text: "Only the account the operator deletes favours \(marker)", source: nil)
            _ = try await service.setCommunitySettings(CommunitySettings(favourites: true), session: session)
            try await service.publishFavourites(CommunityFavouritesUpload(quotes: [quote]), session: session)
            _ = try await service.shareList(SharedListRequest(title: "List \(marker)", quotes: [SharedQuote(text: "x", source: nil, citation: nil)]), session: session)
            let other = Fixtures.signup()
            let otherSession = try await service.authenticate(token: try await service.signup(other).token)
            _ = try await service.setCommunitySettings(CommunitySettings(favourites: true), session: otherSession)
            try await service.publishFavourites(CommunityFavouritesUpload(quotes: [quote]), session: otherSession)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("kept", count: 2)), session: otherSession)
            #expect(try await service.lookupQuotes(CommunityLookupRequest(keys: [quote.key]), session: otherSession).first?.count == 2)
            let events = storage.events.subscribe(accountID: accountID)

            let administration = AccountAdministration(storage: storage)
            let unknown = Fixtures.accountName("nobody")
            for action in [administration.delete(named:), administration.disable(named:), administration.enable(named:), administration.summary(named:)] {
                await #expect(throws: AccountAdministrationError.unknownAccount(unknown)) { try await action(unknown) }
            }
            #expect(try await administration.summary(named: signup.account).disabledAt == nil)

            let deleted = try await administration.delete(named: signup.account)
            #expect(deleted.devices == 2 && deleted.logs == 1 && deleted.operations == 5)
            #expect(try await storage.account(named: signup.account) == nil)
            #expect(try await storage.accountSummaries(named: signup.account).isEmpty)
            for token in [laptop.token, phone.token] {
                await #expect(throws: SyncServiceError.unauthorized("invalid or revoked token")) { try await service.authenticate(token: token) }
            }
            for table in ["accounts", "devices", "logs", "operations", "community_votes", "community_settings", "shared_lists", "account_usage"] {
                let rows = try await storage.dumpRows(of: table)
                #expect(!rows.contains { $0.contains(accountID) }, "\(table) keeps a row of the deleted account")
            }
            #expect(!(try await storage.dumpRows(of: "shared_lists")).contains { $0.contains(marker) })
            #expect(try await service.lookupQuotes(CommunityLookupRequest(keys: [quote.key]), session: otherSession).first?.count == 1)
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            await #expect(throws: AccountAdministrationError.unknownAccount(signup.account)) { try await administration.delete(named: signup.account) }
            #expect(try await service.pull(log: "notes", after: 0, limit: nil, session: otherSession).operations.count == 2)
            #expect(try await administration.summary(named: other.account).operations == 2)
        }
    }

    /// Runs a live server (127.0.0.1, a free port, keep-alive every 300 ms) over a storage,
    /// which it runs, until the body returns.
    static func withLiveServer(storage: any ServerStorage, _ body: @escaping @Sendable (Int, SyncService) async throws -> Void) async throws {
        try await AbuseHTTPTests.withLiveServer(storage: storage, keepAlive: .milliseconds(300), body)
    }
}
