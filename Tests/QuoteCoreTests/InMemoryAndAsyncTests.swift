import Foundation
import SuiteStorage
import Testing
@testable import QuoteCore

@Suite struct InMemoryStoreTests {
    @Test func anInMemoryStoreHasTheWholeSchemaAndWorks() throws {
        let clock = TestClock(date("2026-11-20T09:00:10Z"))
        let store = try QuoteStore.inMemory(now: { clock.now })
        #expect(store.path == ":memory:")
        #expect(try store.isEmpty())
        // Every table the migrations make is used: quotes, sources, categories, the full-text
        // index, favourites, notes, shuffle bags (with the second migration's column), schedules
        // and deliveries.
        let summary = try store.importData(Data("Stay hungry.,Steve Jobs,life\nLove is patient.,Paul,love\n".utf8), name: "q.csv", format: .csv)
        #expect(summary.imported == 2)
        let quote = try store.add("Bake before dawn.", source: "Me", categories: ["work"])
        #expect(try store.search("hungry", user: "ada").map(\.quote.source?.name) == ["Steve Jobs"])
        let picks = try (0..<3).map { _ in try store.random(user: "ada").id }
        #expect(Set(picks).count == 3)
        try store.add("A fourth one, added while the bag is walked.")
        #expect(try store.random(user: "ada").id == 4)
        try store.favorite(quote.id, user: "ada")
        let note = try store.addNote("Every day.", on: quote.id, user: "ada")
        #expect(try store.notes(on: quote.id, user: "ada") == [note])
        try store.setSchedule(try schedule("09:00"), user: "ada")
        #expect(try store.deliverDue(now: clock.now, user: "ada", channel: "app") != nil)
        #expect(try store.history(user: "ada").count == 1)
    }

    @Test func inMemoryStoresAreSeparateAndLeaveNothingOnDisk() throws {
        let first = try QuoteStore.inMemory()
        let second = try QuoteStore.inMemory()
        try first.add("Only in the first.")
        #expect(try first.count() == 1)
        #expect(try second.count() == 0)
        #expect(!FileManager.default.fileExists(atPath: ":memory:"))
        #expect(!FileManager.default.fileExists(atPath: first.path))
    }
}

@Suite struct AsyncCallTests {
    @Test func aStoreOpenedAsynchronouslyAnswersAsynchronously() async throws {
        let url = freshStoreURL()
        let store = try await QuoteStore.open(at: url)
        #expect(store.path == url.standardizedFileURL.path)
        #expect(try await store.run({ try $0.addStarterCollectionIfEmpty() }) == StarterCollection.count)
        let quote = try await store.run { try $0.add("Bake before dawn.", source: "Me", categories: ["work"]) }
        #expect(try await store.run({ try $0.quote(quote.id) }) == quote)
        #expect(try await store.run({ try $0.favorite(quote.id, user: "ada") }))
        #expect(try await store.run({ try $0.favorites(user: "ada") }).map(\.id) == [quote.id])
        #expect(try await store.run({ try $0.search("bake", user: "ada") }).first?.quote.id == quote.id)
        let note = try await store.run { try $0.addNote("Always.", on: quote.id, user: "ada") }
        #expect(try await store.run({ try $0.editNote(note.id, text: "Nearly always.", user: "ada") }).text == "Nearly always.")
        #expect(try await store.run({ try $0.todaysQuote(year: 2026, month: 11, day: 20, user: "ada") }) != nil)
        #expect(try await store.run({ try $0.random(QuoteFilter(category: "work"), user: "ada") }).categories.contains("work"))
        let reader = try await QuoteStore.open(at: url, readOnly: true)
        #expect(try await reader.run({ try $0.count() }) == StarterCollection.count + 1)
        #expect(try await QuoteStore.run({ try QuoteStore.checkIntegrity(at: url) }).isEmpty)
        let file = try temporaryFile("more.txt", Data("text,author\nOne more.,Me\n".utf8))
        let format = try await QuoteStore.run { try QuoteImportFormat.detect([file]) }
        #expect(try await store.run({ try $0.importFiles([file], format: format) }).imported == 1)
    }

    @Test func errorsArriveTypedThroughAsyncCalls() async throws {
        let store = try QuoteStore.inMemory()
        #expect(!Background.isCurrent)
        #expect(try await store.run { _ in Background.isCurrent })
        #expect(try await QuoteStore.run { Background.isCurrent })
        await #expect(throws: QuoteError.quoteNotFound(42)) { try await store.run({ try $0.quote(42) }) }
        await #expect(throws: QuoteError.noteNotFound(7)) { try await store.run({ try $0.deleteNote(7, user: "ada") }) }
        await #expect(throws: QuoteError.noQuotes(.emptyCollection)) { try await store.run({ try $0.random(user: "ada") }) }
    }

    @Test func aFolderThatCannotHoldAStoreIsAStoreError() async throws {
        let file = try temporaryFile("plain", Data("x".utf8))
        await #expect {
            _ = try await QuoteStore.open(at: file.appendingPathComponent(QuoteStore.fileName))
        } throws: { error in
            guard case .store(let failure) = error as? QuoteError else { return false }
            return failure.kind == .unavailable
        }
    }
}
