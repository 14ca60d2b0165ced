import Foundation
import SuiteServer
import SuiteSyncProtocol
import Testing

/// What an unauthenticated or cheap client can try (issue "A sync server you can put on the
/// internet", §1), on every backend.
extension StorageContract {
    /// 200 wrong sign-ins at once from one address: exactly as many are checked as in a
    /// sequence (5), the rest are refused before bcrypt; the owner elsewhere still signs in.
    func concurrentGuessesAreBoundedLikeSequentialOnes() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            _ = try await service.signup(signup)
            let stranger = ClientAddress(text: "203.0.113.5")
            let outcomes = await withTaskGroup(of: String.self, returning: [String: Int].self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        do {
                            _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: Data("guess-\(UUID())".utf8), device: "x"), from: stranger)
                            return "accepted"
                        } catch let error as SyncServiceError {
                            switch error {
                            case .unauthorized: return "checked"
                            case .tooManyAttempts: return "refused"
                            default: return "\(error)"
                            }
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [:]) { $0[$1, default: 0] += 1 }
            }
            #expect(outcomes == ["checked": 5, "refused": 195])
            // The same address is refused for another account too; the owner elsewhere is not.
            let other = Fixtures.signup()
            _ = try await service.signup(other)
            await #expect(throws: SyncServiceError.self) {
                try await service.login(LoginRequest(account: other.account, authenticationSecret: other.authenticationSecret, device: "x"), from: stranger)
            }
            _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"),
                                        from: ClientAddress(text: "198.51.100.7"))
        }
    }

    /// A stranger guessing from one address for most of an hour (5 a minute, then its hourly limit)
    /// never stops the owner's right password from another address.
    func aStrangerCannotLockTheOwnerOut() async throws {
        try await backend.withStorage { storage in
            let clock = TestClock()
            let service = SyncService(storage: storage, bcryptCost: 4, now: { clock.now })
            let signup = Fixtures.signup()
            _ = try await service.signup(signup)
            let stranger = ClientAddress(text: "2001:db8:1:2:3:4:5:6")
            var checked = 0
            for _ in 0..<50 {
                for _ in 0..<6 {
                    do {
                        _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: Data("guess".utf8), device: "x"), from: stranger)
                    } catch SyncServiceError.unauthorized {
                        checked += 1
                    } catch SyncServiceError.tooManyAttempts {}
                }
                // Another address in the same /64 is the same stranger.
                await #expect(throws: SyncServiceError.self) {
                    try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "x"),
                                            from: ClientAddress(text: "2001:db8:1:2:ffff::1"))
                }
                let owner = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "phone"),
                                                    from: ClientAddress(text: "192.0.2.\(checked % 200 + 1)"))
                #expect(!owner.token.isEmpty)
                clock.advance(61)
            }
            #expect(checked == 20, "an address gets 5 guesses a minute and 20 an hour")
        }
    }

    /// Guesses from many addresses slow down only addresses new to the account: one attempt
    /// per backoff interval among them; an address that signed in before is not slowed.
    func manyAddressesSlowOnlyNewAddresses() async throws {
        try await backend.withStorage { storage in
            let clock = TestClock()
            let service = SyncService(storage: storage, bcryptCost: 4, now: { clock.now })
            let signup = Fixtures.signup()
            _ = try await service.signup(signup)
            let home = ClientAddress(text: "192.0.2.1")
            _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "home"), from: home)
            for index in 0..<30 {
                await #expect(throws: SyncServiceError.unauthorized("wrong account or secret")) {
                    try await service.login(LoginRequest(account: signup.account, authenticationSecret: Data("guess".utf8), device: "x"),
                                            from: ClientAddress(text: "198.51.100.\(index + 1)"))
                }
            }
            // Past 30 failures in the hour: one new address is let through, the next waits.
            await #expect(throws: SyncServiceError.unauthorized("wrong account or secret")) {
                try await service.login(LoginRequest(account: signup.account, authenticationSecret: Data("guess".utf8), device: "x"), from: ClientAddress(text: "198.51.100.200"))
            }
            do {
                _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "x"), from: ClientAddress(text: "198.51.100.201"))
                Issue.record("a new address was not slowed down")
            } catch SyncServiceError.tooManyAttempts(let message) {
                #expect(message.contains("several places"))
            }
            // The owner at home is not slowed; a new address is let through after the backoff.
            _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "home 2"), from: home)
            clock.advance(10)
            _ = try await service.login(LoginRequest(account: signup.account, authenticationSecret: signup.authenticationSecret, device: "travel"), from: ClientAddress(text: "198.51.100.201"))
        }
    }

    /// Pull answers stop at a byte budget whatever is stored, and operations and pushes have a
    /// size limit, so the memory one request takes is bounded.
    func pullsAndPushesAreBoundedInBytes() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            let big = 1_500_000
            func operations(_ prefix: String, _ count: Int, size: Int = big) -> [SyncEnvelope] {
                (0..<count).map { SyncEnvelope(id: "\(prefix)-\($0)", slot: "s\($0)", payload: Data(repeating: UInt8($0), count: size)) }
            }
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: operations("a", 5)), session: session)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: operations("b", 1)), session: session)
            var after: Int64 = 0, pages: [Int] = [], received: [String] = []
            while true {
                let page = try await service.pull(log: "notes", after: after, limit: nil, session: session)
                #expect(page.operations.reduce(0) { $0 + SyncProtocol.size(of: $1) } <= SyncProtocol.pullByteBudget)
                pages.append(page.operations.count)
                received += page.operations.map(\.id)
                after = page.next
                if !page.hasMore { break }
            }
            #expect(pages == [2, 2, 2])
            #expect(received == ["a-0", "a-1", "a-2", "a-3", "a-4", "b-0"])

            // An operation past the limit, or a push past its bytes, is refused and stores nothing.
            await #expect(throws: SyncServiceError.badRequest("an operation is at most \(SyncProtocol.maximumOperationBytes) bytes")) {
                try await service.push(log: "notes", request: SyncPushRequest(operations: operations("c", 1, size: SyncProtocol.maximumOperationBytes)), session: session)
            }
            await #expect(throws: SyncServiceError.badRequest("a push carries at most \(SyncProtocol.maximumPushBytes) bytes of operations")) {
                try await service.push(log: "notes", request: SyncPushRequest(operations: operations("d", 6)), session: session)
            }
            #expect(try await service.pull(log: "notes", after: 0, limit: nil, session: session).head == 6)
        }
    }
}
