import Foundation
import GRDB
import Testing
@testable import SuiteStorage

/// The frequent commands leave their store connection for the process exit to close, and with it
/// the write-ahead log: the log must still stay short however many of them run.
@Suite struct KeptLogTests {
    /// Async, each process waited for on a thread of its own: a hundred processes in a row would
    /// otherwise hold one of the cooperative pool's threads for seconds (stalling other tests).
    @Test func theLogStaysShortOverManyProcesses() async throws {
        let suite = try Suite()
        // Enough quotes that most picks are a round under way (the pick made without GRDB,
        // `QuoteStore.quickRandom`), a few the start of a round (GRDB's): both keep the log short.
        for number in 1...40 { try suite.run("quotes", "add", "Quote number \(number)", "--source", "someone") }
        let log = suite.storeFolder.appendingPathComponent("quotes.sqlite-wal").path
        func logBytes() -> Int { ((try? FileManager.default.attributesOfItem(atPath: log)[.size]) as? Int) ?? 0 }
        // Each `quotes random` commits where its shuffle bag stands: a page or two of log.
        let bound = Int(StoreOpening.shortLogPages + 8) * (4096 + 24) + 32
        var longest = 0
        var served: [String] = []
        // Half as many again as the log's limit: without the truncation the log passes the bound.
        for _ in 0..<(Int(StoreOpening.shortLogPages) * 3 / 2) {
            let result = try await suite.runProcessAsync(["quotes", "random"])
            #expect(result.status == 0, "\(result.stderr)")
            served.append(result.stdout)
            longest = max(longest, logBytes())
        }
        #expect(longest > 0, "the log was kept between processes")
        #expect(longest <= bound, "the log reached \(longest) bytes")
        // The bag went on across the checkpoints: no quote twice in a row.
        #expect(zip(served, served.dropFirst()).allSatisfy { $0 != $1 })
        let queue = try DatabaseQueue(path: suite.storeFolder.appendingPathComponent("quotes.sqlite").path)
        let check = try await queue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(check == "ok")
        try queue.close()
    }
}
