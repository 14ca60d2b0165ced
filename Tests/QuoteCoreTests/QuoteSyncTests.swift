import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import QuoteCore

@Suite struct QuoteSyncTests {
    func device() throws -> QuoteStore {
        let store = try QuoteStore.inMemory()
        try store.store.syncEnable()
        return store
    }

    func sync(_ stores: QuoteStore..., through server: InMemorySyncServer) async throws {
        for store in stores { _ = try await SyncSession(store: store.store, log: "quotes", transport: server).run() }
    }

    /// One device changes a quote's words, the other its source, at once: both changes stay, and
    /// the quote's dedupe key is made again from the merged quote on every device, so adding the
    /// same quote again is still caught as a duplicate.
    @Test func wordsAndSourceChangedAtOnceBothStayAndTheQuoteIsStillKnownAsItself() async throws {
        let server = InMemorySyncServer()
        let laptop = try device(), phone = try device()
        let quote = try await laptop.run { try $0.add("Small steps every day.", source: "Ada") }
        try await sync(laptop, phone, through: server)
        let onPhone = try #require(try await phone.run({ try $0.browse(QuoteFilter(), user: "ada", limit: 10) }).first)
        _ = try await laptop.run { try $0.editQuote(quote.id, text: "Small steps, every day.") }
        _ = try await phone.run { try $0.editQuote(onPhone.id, source: "Ada Lovelace") }
        try await sync(laptop, phone, laptop, phone, through: server)
        for store in [laptop, phone] {
            let merged = try #require(try await store.run({ try $0.browse(QuoteFilter(), user: "ada", limit: 10) }).first)
            #expect(merged.text == "Small steps, every day." && merged.source?.name == "Ada Lovelace")
            let dedupe = try store.store.syncWinners().first { $0.entity == "quote" && $0.field == "dedupe" }?.value
            #expect(dedupe == .blob(QuoteStore.dedupeKey(text: "Small steps, every day.", source: "Ada Lovelace")))
            await #expect(throws: QuoteError.self) { try await store.run({ try $0.add("Small steps, every day.", source: "Ada Lovelace") }) }
        }
        #expect(try laptop.store.syncWinners() == phone.store.syncWinners())
    }

    @Test func favouritesNotesAndOwnQuotesFollowTheUser() async throws {
        let server = InMemorySyncServer()
        let laptop = try device(), phone = try device()
        // The starter collection added on both devices is one collection.
        #expect(try await laptop.run({ try $0.addStarterCollectionIfEmpty() }) > 0)
        #expect(try await phone.run({ try $0.addStarterCollectionIfEmpty() }) > 0)
        let mine = try await laptop.run { try $0.add("Small steps every day.", source: "Me", categories: ["perseverance"]) }
        let first = try #require(try await laptop.run({ try $0.browse(QuoteFilter(), user: "ada", limit: 1000) }).first { $0.id != mine.id })
        _ = try await laptop.run { try $0.favorite(first.id, user: "ada") }
        _ = try await laptop.run { try $0.addNote("Read this on Mondays", on: first.id, user: "ada") }
        try await sync(laptop, phone, laptop, through: server)
        let onLaptop = try await laptop.run { try $0.browse(QuoteFilter(), user: "ada", limit: 1000) }.count
        #expect(try await phone.run({ try $0.browse(QuoteFilter(), user: "ada", limit: 1000) }).count == onLaptop)
        #expect(try await phone.run({ try $0.favorites(user: "ada") }).map(\.text) == [first.text])
        #expect(try await phone.run({ try $0.notes(user: "ada") }).map(\.text) == ["Read this on Mondays"])
        #expect(try await phone.run({ try $0.browse(QuoteFilter(), user: "ada", limit: 1000) }).contains { $0.text == "Small steps every day." })
        // Unfavouriting on the phone, later, wins.
        let onPhone = try #require(try await phone.run({ try $0.favorites(user: "ada") }).first)
        _ = try await phone.run { try $0.unfavorite(onPhone.id, user: "ada") }
        try await sync(phone, laptop, through: server)
        #expect(try await laptop.run({ try $0.favorites(user: "ada") }).isEmpty)
    }

    @Test func aNoteEditedOnTwoDevicesAtOnceKeepsTheLoserAsARevision() async throws {
        let server = InMemorySyncServer()
        let laptop = try device(), phone = try device()
        let quote = try await laptop.run { try $0.add("Small steps every day.", source: "Me", categories: []) }
        let note = try await laptop.run { try $0.addNote("First thoughts", on: quote.id, user: "ada") }
        try await sync(laptop, phone, through: server)
        let onPhone = try #require(try await phone.run({ try $0.notes(user: "ada") }).first)
        // An edit made after seeing the other is no conflict.
        _ = try await phone.run { try $0.editNote(onPhone.id, text: "Second thoughts", user: "ada") }
        try await sync(phone, laptop, through: server)
        #expect(try await laptop.run({ try $0.notes(user: "ada") }).map(\.text) == ["Second thoughts"])
        #expect(try laptop.revisions(ofNote: note.id, user: "ada").isEmpty)
        // Two edits that did not see each other: one wins everywhere, the other is a revision everywhere.
        _ = try await laptop.run { try $0.editNote(note.id, text: "Written on the laptop", user: "ada") }
        _ = try await phone.run { try $0.editNote(onPhone.id, text: "Written on the phone", user: "ada") }
        try await sync(laptop, phone, laptop, through: server)
        let shown = try #require(try await laptop.run({ try $0.notes(user: "ada") }).first?.text)
        #expect(try await phone.run({ try $0.notes(user: "ada") }).map(\.text) == [shown])
        let lost = shown == "Written on the laptop" ? "Written on the phone" : "Written on the laptop"
        #expect(try laptop.revisions(ofNote: note.id, user: "ada").map(\.text) == [lost])
        #expect(try phone.revisions(ofNote: onPhone.id, user: "ada").map(\.text) == [lost])
        // Fields that are not free text keep no losers.
        #expect(try laptop.store.syncConflicts().allSatisfy { $0.field == "text" })
    }
}
