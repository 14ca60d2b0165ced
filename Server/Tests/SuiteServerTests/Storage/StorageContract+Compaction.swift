import Foundation
import SuiteServer
import SuiteSyncProtocol
import Testing

extension StorageContract {
    /// A compaction removes the operations up to its position that no page named, keeps the one
    /// there, leaves positions and the head as they were, and answers pulls into removed history
    /// with the compaction's position; pushing a removed operation again stores nothing; once
    /// forgotten, a removed operation's position has no anchor.
    func compactionRemovesWhatNoDeviceNamed() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let signup = Fixtures.signup()
            let session = try await service.authenticate(token: try await service.signup(signup).token)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("a", count: 10)), session: session)
            let before = try await service.pull(log: "notes", after: 0, limit: nil, session: session)
            #expect(before.compacted == nil && before.compactionWanted == nil)

            let first = try await service.compact(log: "notes", request: SyncCompactRequest(through: 8, anchor: "a-7", keep: ["a-1", "a-3"], done: false), session: session)
            #expect(first == SyncCompactReply(kept: 0, removed: 0))
            #expect(try await service.pull(log: "notes", after: 0, limit: nil, session: session).operations.count == 10, "nothing goes before the last page")
            // a-9 is past the compaction's position: naming it changes nothing.
            let last = try await service.compact(log: "notes", request: SyncCompactRequest(through: 8, anchor: "a-7", keep: ["a-5", "a-9"], done: true), session: session)
            #expect(last == SyncCompactReply(kept: 4, removed: 4))

            let all = try await service.pull(log: "notes", after: 0, limit: nil, session: session)
            #expect(all.operations.map(\.id) == ["a-1", "a-3", "a-5", "a-7", "a-8", "a-9"])
            #expect(all.operations.first == Fixtures.operations("a", count: 2).last, "kept operations are as pushed")
            #expect(all.head == 10 && all.next == 10 && all.compacted == 8)
            let page = try await service.pull(log: "notes", after: 0, limit: 2, session: session)
            #expect(page.operations.map(\.id) == ["a-1", "a-3"] && page.next == 4 && page.hasMore)
            // A cursor at a removed operation still finds its anchor, and goes on from there.
            let behind = try await service.pull(log: "notes", after: 1, limit: nil, session: session)
            #expect(behind.anchor == "a-0" && behind.operations.first?.id == "a-1" && behind.compacted == 8)
            let tail = try await service.pull(log: "notes", after: 9, limit: nil, session: session)
            #expect(tail.operations.map(\.id) == ["a-9"] && tail.anchor == "a-8")

            // Pushed again: stored once, as before.
            let again = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("a", count: 1)), session: session)
            #expect(again.head == 10)

            let sizes = try await storage.logSizes().filter { $0.account == signup.account }
            #expect(sizes.map(\.operations) == [6] && sizes.map(\.removed) == [4] && sizes.map(\.compacted) == [8])
            #expect(try await storage.forgetRemovedOperations(removedBefore: Date().addingTimeInterval(-3600)).filter { $0.account == signup.account }.isEmpty,
                    "nothing is forgotten within the grace period")
            let forgotten = try await storage.forgetRemovedOperations(removedBefore: Date().addingTimeInterval(60)).filter { $0.account == signup.account }
            #expect(forgotten == [ForgottenOperations(account: signup.account, log: "notes", count: 4)])
            let lost = try await service.pull(log: "notes", after: 1, limit: nil, session: session)
            #expect(lost.anchor == nil && lost.compacted == 8, "the device reads again from the start")
            #expect(try await service.pull(log: "notes", after: 0, limit: nil, session: session).operations.count == 6)
            let after = try await storage.logSizes().filter { $0.account == signup.account }
            #expect(after.map(\.removed) == [0] && after.map(\.head) == [10])
        }
    }

    /// A compaction from a device that did not read this log as it is, or that breaks the
    /// rules, is refused and removes nothing.
    func compactionIsRefusedWhenTheLogMovedOrTheRequestIsBad() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("a", count: 5)), session: session)
            let moved: [SyncCompactRequest] = [
                SyncCompactRequest(through: 4, anchor: "a-0", keep: [], done: true),
                SyncCompactRequest(through: 6, anchor: "a-5", keep: [], done: true),
            ]
            for request in moved {
                await #expect(throws: SyncServiceError.self) { try await service.compact(log: "notes", request: request, session: session) }
            }
            await #expect(throws: SyncServiceError.self) {
                try await service.compact(log: "other", request: SyncCompactRequest(through: 1, anchor: "a-0", keep: [], done: true), session: session)
            }
            let bad: [(String, SyncCompactRequest)] = [
                ("notes", SyncCompactRequest(through: 0, anchor: "a-0", keep: [], done: true)),
                ("notes", SyncCompactRequest(through: 1, anchor: "", keep: [], done: true)),
                ("notes", SyncCompactRequest(through: 1, anchor: "a-0", keep: [""], done: true)),
                ("notes", SyncCompactRequest(through: 1, anchor: "a-0", keep: Array(repeating: "a-1", count: SyncProtocol.maximumKeepPage + 1), done: true)),
                ("No Such Log", SyncCompactRequest(through: 1, anchor: "a-0", keep: [], done: true)),
            ]
            for (log, request) in bad {
                await #expect(throws: SyncServiceError.self) { try await service.compact(log: log, request: request, session: session) }
            }
            #expect(try await service.pull(log: "notes", after: 0, limit: nil, session: session).operations.count == 5)
        }
    }

    /// The server asks for a compaction once many operations came after the last one.
    func compactionIsAskedForAfterManyOperations() async throws {
        try await backend.withStorage { storage in
            let service = Fixtures.service(storage)
            let session = try await service.authenticate(token: try await service.signup(Fixtures.signup()).token)
            for batch in 0..<2 {
                _ = try await service.push(log: "notes", request: SyncPushRequest(operations: Fixtures.operations("a", count: 500, from: batch * 500)), session: session)
            }
            #expect(try await service.pull(log: "notes", after: 1000, limit: nil, session: session).compactionWanted == true)
            let keep = (0..<1000).filter { $0 % 2 == 0 }.map { "a-\($0)" }
            let reply = try await service.compact(log: "notes", request: SyncCompactRequest(through: 1000, anchor: "a-999", keep: keep, done: true), session: session)
            #expect(reply == SyncCompactReply(kept: 501, removed: 499))
            #expect(try await service.pull(log: "notes", after: 1000, limit: nil, session: session).compactionWanted == nil)
        }
    }
}
