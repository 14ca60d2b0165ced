import Foundation
import SuiteHTTPLimits
import SuiteServer
import SuiteSyncProtocol
import Testing

/// What an unauthenticated or cheap client can try (issue "A sync server you can put on the
/// internet", §1), on every backend.
extension StorageContract {
    /// 200 wrong sign-ins at once from one address: exactly as many are checked as in a
    /// sequence (10), the rest are refused before bcrypt; the owner elsewhere still signs in.
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
            #expect(outcomes == ["checked": 10, "refused": 190])
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

    /// A stranger guessing from one address for most of an hour (10 a minute, then its hourly limit)
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
                for _ in 0..<11 {
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
            #expect(checked == 50, "an address gets 10 guesses a minute and 50 an hour")
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
            for index in 0..<60 {
                await #expect(throws: SyncServiceError.unauthorized("wrong account or secret")) {
                    try await service.login(LoginRequest(account: signup.account, authenticationSecret: Data("guess".utf8), device: "x"),
                                            from: ClientAddress(text: "198.51.100.\(index + 1)"))
                }
            }
            // Past 60 failures in the hour: one new address is let through, the next waits.
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

    /// Sign-up by invitation: a code works once, before it expires, even when ten sign-ups try
    /// it at once; without one, or with sign-up closed, nothing is made. Sign-ups are limited
    /// per address.
    func signupByInvitationAndLimitedPerAddress() async throws {
        try await backend.withStorage { storage in
            let clock = TestClock()
            let service = SyncService(storage: storage, policy: ServerPolicy(signup: .invite), bcryptCost: 4, now: { clock.now })
            let code = InviteCode.generate()
            try await storage.createInvite(codeHash: InviteCode.hash(code), createdAt: clock.now, expiresAt: clock.now.addingTimeInterval(3600))
            var plain = Fixtures.signup()
            await #expect(throws: SyncServiceError.forbidden("this server signs up by invitation: ask its operator for a code ('suite-server invite') and pass it with --invite")) {
                try await service.signup(plain)
            }
            plain.invite = "AAAA-BBBB-CCCC-DDDD-EEEE"
            await #expect(throws: SyncServiceError.forbidden("the invitation code is unknown, used or expired")) { try await service.signup(plain) }
            #expect(try await storage.account(named: plain.account) == nil)

            let names = (0..<10).map { _ in Fixtures.accountName("invited") }
            let made = await withTaskGroup(of: Bool.self, returning: Int.self) { group in
                for (index, name) in names.enumerated() {
                    var request = Fixtures.signup(account: name)
                    // As typed by a person: lower case, spaces, O for 0.
                    request.invite = index == 0 ? code.lowercased().replacingOccurrences(of: "-", with: " ") : code
                    group.addTask { (try? await service.signup(request, from: ClientAddress(text: "192.0.2.\(index + 1)"))) != nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(made == 1, "one code, one account")
            var accounts = 0
            for name in names where try await storage.account(named: name) != nil { accounts += 1 }
            #expect(accounts == 1)

            let late = InviteCode.generate()
            try await storage.createInvite(codeHash: InviteCode.hash(late), createdAt: clock.now, expiresAt: clock.now.addingTimeInterval(60))
            clock.advance(61)
            var expired = Fixtures.signup()
            expired.invite = late
            await #expect(throws: SyncServiceError.forbidden("the invitation code is unknown, used or expired")) { try await service.signup(expired) }

            let closed = SyncService(storage: storage, policy: ServerPolicy(signup: .closed), bcryptCost: 4)
            await #expect(throws: SyncServiceError.forbidden("sign-up is closed on this server")) { try await closed.signup(Fixtures.signup()) }

            let open = SyncService(storage: storage, policy: ServerPolicy(signup: .open), bcryptCost: 4, now: { clock.now })
            let address = ClientAddress(text: "203.0.113.9")
            for _ in 0..<5 { _ = try await open.signup(Fixtures.signup(), from: address) }
            await #expect(throws: SyncServiceError.tooManyAttempts("too many sign-ups from this address; try again later")) {
                try await open.signup(Fixtures.signup(), from: address)
            }
            _ = try await open.signup(Fixtures.signup(), from: ClientAddress(text: "203.0.113.10"))
            clock.advance(13 * 60)
            _ = try await open.signup(Fixtures.signup(), from: address)
        }
    }

    /// The quota: a push or a share past it is refused with the usage and the quota, stores
    /// nothing, and holds under concurrent pushes; compaction and unsharing give room back.
    func quotaRefusesWritesPastIt() async throws {
        try await backend.withStorage { storage in
            let (service, session) = try await Self.accountWithQuota(storage)
            // 1,016 bytes each with the row: 19 fit, concurrent pushes or not.
            let accepted = await Self.acceptedOf30PushedAtOnce(service, session) { index in
                ("notes", Self.operation("op-\(index)"))
            }
            #expect(accepted == 19)
            let usage = try await service.usage(session)
            #expect(usage == AccountUsageReply(bytes: 19 * 1_016, quotaBytes: Self.quota))
            let all = try await service.pull(log: "notes", after: 0, limit: nil, session: session)
            #expect(all.head == 19)
            // A push already stored counts nothing again.
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: [all.operations[0]]), session: session)
            #expect(try await service.usage(session).bytes == 19 * 1_016)

            let share = SharedListRequest(title: "Big", quotes: (0..<4).map { SharedQuote(text: String(repeating: "q", count: 900) + "\($0)", source: nil, citation: nil) })
            await #expect(throws: SyncServiceError.self) { try await service.shareList(share, session: session) }

            // Compaction that keeps one operation gives the payloads of the others back.
            let anchor = try #require(all.operations.last).id
            _ = try await service.compact(log: "notes", request: SyncCompactRequest(through: all.head, anchor: anchor, keep: [], done: true), session: session)
            // Removed operations keep only their id and 16 bytes, until they are forgotten: on
            // PostgreSQL the compaction test, sharing the database, forgets every account's
            // removed operations at any moment, which leaves the one kept operation.
            let onlyKept: Int64 = 1_016
            let after = try await service.usage(session).bytes
            #expect(after == Int64(1_016 + all.operations.dropLast().reduce(0) { $0 + $1.id.utf8.count + 16 }) || after == onlyKept, "\(after)")
            let list = try await service.shareList(share, session: session)
            let withList = try await service.usage(session).bytes
            #expect(withList > after)
            try await service.unshareList(id: list.id, session: session)
            let final = try await service.usage(session).bytes
            #expect(final == after || final == onlyKept, "\(final), \(after)")
        }
    }

    /// The quota holds for pushes to an account's different logs at once (each log's lock orders
    /// only its own pushes), and a refused push announces nothing.
    func quotaHoldsAcrossLogsPushedTogether() async throws {
        try await backend.withStorage(maximumConnections: 8) { storage in
            let (service, session) = try await Self.accountWithQuota(storage)
            // 1,016 bytes each with the row: 19 fit, whichever logs they go to.
            let accepted = await Self.acceptedOf30PushedAtOnce(service, session) { index in
                ("notes-\(index % 5)", Self.operation("op-\(index)"))
            }
            #expect(accepted == 19)
            #expect(try await service.usage(session).bytes == 19 * 1_016)
            var heads: Int64 = 0
            for index in 0..<5 {
                heads += try await service.pull(log: "notes-\(index)", after: 0, limit: nil, session: session).head
            }
            #expect(heads == 19)

            // 696 bytes left: a refused push announces nothing, so the next event is the push
            // after it that fits.
            let events = storage.events.subscribe(accountID: session.accountID)
            await #expect(throws: SyncServiceError.self) {
                try await service.push(log: "refused", request: SyncPushRequest(operations: [Self.operation("big")]), session: session)
            }
            _ = try await service.push(log: "fits", request: SyncPushRequest(operations: [Self.operation("small", size: 100)]), session: session)
            #expect(await Self.next(events) == "fits")
            #expect(try await service.usage(session).bytes == 19 * 1_016 + 116)
        }
    }

    /// The quota of ``accountWithQuota(_:)``'s service: 19 of ``operation(_:size:)``'s fit.
    static let quota: Int64 = 20_000

    /// A service whose accounts may store ``quota`` bytes, and an account signed up there.
    static func accountWithQuota(_ storage: any ServerStorage) async throws -> (SyncService, DeviceSession) {
        let service = SyncService(storage: storage, policy: ServerPolicy(signup: .open, quotaBytes: quota), bcryptCost: 4)
        return (service, try await service.authenticate(token: try await service.signup(Fixtures.signup()).token))
    }

    /// An operation of `size` bytes in id, slot ("s") and payload: with its row, 16 more count
    /// against the quota.
    static func operation(_ id: String, size: Int = 1_000) -> SyncEnvelope {
        SyncEnvelope(id: id, slot: "s", payload: Data(repeating: 7, count: size - id.utf8.count - 1))
    }

    /// Pushes 30 operations at once, one a push (`push(index)`: the log and the operation), and
    /// counts those accepted; a refusal must be the quota's, in one line with the usage.
    static func acceptedOf30PushedAtOnce(
        _ service: SyncService, _ session: DeviceSession, _ push: @escaping @Sendable (Int) -> (log: String, operation: SyncEnvelope)
    ) async -> Int {
        await withTaskGroup(of: Bool.self, returning: Int.self) { group in
            for index in 0..<30 {
                group.addTask {
                    let (log, operation) = push(index)
                    do {
                        _ = try await service.push(log: log, request: SyncPushRequest(operations: [operation]), session: session)
                        return true
                    } catch SyncServiceError.quotaExceeded(let message) {
                        #expect(message.contains("used of"), "\(message)")
                        return false
                    } catch {
                        Issue.record("\(error)")
                        return false
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }
}
