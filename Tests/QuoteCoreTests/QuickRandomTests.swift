import Foundation
import SuiteStorage
import SuiteSyncProtocol
import SuiteTestSupport
import Testing
@testable import QuoteCore

/// `QuoteStore.quickRandom`, the pick of short-lived commands made without GRDB: it picks what
/// `random(_:user:)` would have picked, writes the bag as it would, and leaves every other case
/// (and every error) to the store.
@Suite struct QuickRandomTests {
    /// A closed store file of `count` quotes with sources, categories, favourites and community
    /// counts, some quotes personal.
    func storeFile(count: Int) throws -> URL {
        let url = freshStoreURL()
        let store = try QuoteStore(url: url)
        let lines = (1...count).map { "\"Quote \($0), \($0 % 5 == 0 ? "with ünïcode ✓" : "plain")\",Author \($0 % 7),\($0 % 3 == 0 ? "thirds" : "others")" }
        try store.importData(Data(("text,author,category\n" + lines.joined(separator: "\n")).utf8), name: "gen.csv", format: .csv)
        _ = try store.add("My own words.", source: "Me", categories: ["mine", "others"])
        for id in stride(from: 2, to: count, by: 4) { _ = try store.favorite(Quote.ID(Int64(id)), user: "ada") }
        _ = try store.favorite(4, user: "bob")
        let counted = try store.browse(QuoteFilter(), user: "ada").prefix(6)
        try store.applyCommunityCounts(counted.compactMap { quote in
            QuoteStore.communityKey(of: quote).map { CommunityFavoriteCount(key: $0, text: quote.text, source: quote.source?.name, count: 3) }
        }, cursor: 1, reset: false)
        return url
    }

    /// The shuffle-bag rows of a closed store file.
    func bags(_ url: URL) throws -> [String] {
        let connection = try #require(try DirectConnection.openCurrent(
            path: url.path, configuration: QuoteStore.configuration(busyTimeout: 5), schemaVersion: Store<QuoteError>.schemaVersion(of: QuoteStore.migrator),
            keptUntilExit: false))
        var rows: [String] = []
        for table in ["bag_state", "bag"] {
            let statement = try connection.prepare("SELECT * FROM \(table) ORDER BY 1, 2, 3")
            while try statement.step() {
                rows.append(table + ": " + (0..<9).map { statement.columns.optionalText($0) ?? "NULL" }.joined(separator: "|"))
            }
        }
        return rows
    }

    func copy(_ url: URL) throws -> URL {
        let other = freshStoreURL()
        try FileManager.default.createDirectory(at: other.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: url, to: other)
        return other
    }

    /// At every step a copy of the store picks with `random(_:user:)`'s whole rule (without the
    /// steady-state shortcut it shares with quickRandom) and the store itself with `quickRandom`
    /// (or `random` when that says nil): the same quote, the same bag afterwards.
    /// Quotes are removed and added on the way, and rounds end, so the steps that quickRandom must
    /// leave to the store come up too.
    @Test func everyQuickPickIsTheStoresOwnPick() throws {
        let url = try storeFile(count: 23)
        var compared = 0, declined = 0
        for step in 0..<90 {
            if step == 30 {
                let store = try QuoteStore(url: url)
                _ = try store.removeQuote(5)
                _ = try store.removeQuote(17)
            }
            if step == 55 {
                let store = try QuoteStore(url: url)
                _ = try store.add("Added in the middle of a round.", source: "Late", categories: ["thirds"])
            }
            let other = try copy(url)
            let before = try bags(url)
            let expected = try QuoteStore.$triesSteadyPickFirst.withValue(false) { try QuoteStore(url: other).random(user: "ada") }
            if let quick = try QuoteStore.quickRandom(path: url.path, user: "ada") {
                #expect(quick == expected, "step \(step)")
                #expect(try bags(url) == bags(other), "step \(step)")
                compared += 1
            } else {
                // Declined: nothing was written, and the store's own pick comes next (a new
                // round or a re-keyed one: random seeds, so not the copy's).
                #expect(try bags(url) == before, "step \(step)")
                _ = try QuoteStore(url: url).random(user: "ada")
                declined += 1
            }
        }
        // Declined: the first pick (no bag yet), the first of each new round, the one after the
        // quote was added (the store re-keys the round). Everything else is quick.
        #expect(compared >= 80, "\(compared) compared, \(declined) declined")
        #expect(declined >= 4, "\(compared) compared, \(declined) declined")
    }

    @Test func whatItDeclinesItLeavesAsItWas() throws {
        // No store: nothing is created.
        let missing = freshStoreURL()
        #expect(try QuoteStore.quickRandom(path: missing.path, user: "ada") == nil)
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        // No bag yet, and a bag whose round was joined by a new quote: declined, file unchanged.
        let url = try storeFile(count: 8)
        func contents() -> [Data] {
            [url.path, url.path + "-wal"].map { FileManager.default.contents(atPath: $0) ?? Data() }
        }
        var before = contents()
        #expect(try QuoteStore.quickRandom(path: url.path, user: "ada") == nil)
        #expect(contents() == before)
        _ = try QuoteStore(url: url).random(user: "ada")
        #expect(try QuoteStore.quickRandom(path: url.path, user: "ada") != nil)
        _ = try QuoteStore(url: url).add("New since the round began.")
        before = contents()
        #expect(try QuoteStore.quickRandom(path: url.path, user: "ada") == nil)
        #expect(contents() == before)
        // Another user's bag is not ada's.
        #expect(try QuoteStore.quickRandom(path: url.path, user: "bob") == nil)
    }

    @Test func badNamesAndUnusableFilesGetTheStoresErrors() throws {
        let url = try storeFile(count: 3)
        _ = try QuoteStore(url: url).random(user: "ada")
        #expect(throws: QuoteError.self) { try QuoteStore.quickRandom(path: url.path, user: "bell\u{7}") }
        var storeError: QuoteError?
        do { _ = try QuoteStore(url: url).random(user: "bell\u{7}") } catch { storeError = error }
        do {
            _ = try QuoteStore.quickRandom(path: url.path, user: "bell\u{7}")
        } catch {
            #expect(error == storeError)
        }

        // A file that is not a database: the same error as opening the store, and not modified.
        let damaged = freshStoreURL()
        try FileManager.default.createDirectory(at: damaged.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x41, count: 8192)
        try garbage.write(to: damaged)
        let quick = #expect(throws: QuoteError.self) { try QuoteStore.quickRandom(path: damaged.path, user: "ada") }
        let opened = #expect(throws: QuoteError.self) { try QuoteStore(url: damaged) }
        #expect(quick == opened)
        #expect(FileManager.default.contents(atPath: damaged.path) == garbage)

        // A read-only store file.
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path) }
        let readOnlyQuick = #expect(throws: QuoteError.self) { try QuoteStore.quickRandom(path: url.path, user: "ada") }
        let readOnlyOpen = #expect(throws: QuoteError.self) { try QuoteStore(url: url) }
        #expect(readOnlyQuick == readOnlyOpen)
    }

    @Test func aQuickPickDirtiesNothingThatSyncs() throws {
        // The store's writes stamp sync changes before they commit; the quick pick skips that
        // because the bag tables do not sync. If they ever did, this fails.
        let url = try storeFile(count: 5)
        _ = try QuoteStore(url: url).random(user: "ada")
        let connection = try #require(try DirectConnection.openCurrent(
            path: url.path, configuration: QuoteStore.configuration(busyTimeout: 5), schemaVersion: Store<QuoteError>.schemaVersion(of: QuoteStore.migrator),
            keptUntilExit: false))
        try connection.execute("UPDATE sync_control SET capture = 1")
        #expect(try QuoteStore.quickRandom(path: url.path, user: "ada") != nil)
        #expect(try !connection.prepare("SELECT 1 FROM sync_dirty").step())
    }
}
