import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import QuoteCore

/// The seed's NotToDo list, and deliveries that carry one as a reminder.
@Suite struct NotToDoTests {
    @Test func theListKeepsEachUsersThingsToAvoid() throws {
        let store = try freshStore()
        let email = try store.addNotToDo("Check e-mail before noon", category: "work", user: "ada")
        let scroll = try store.addNotToDo("Doom-scroll in bed", user: "ada")
        _ = try store.addNotToDo("Skip breakfast", user: "bo")
        #expect(try store.notToDos(user: "ada").map(\.text) == ["Check e-mail before noon", "Doom-scroll in bed"])
        #expect(try store.notToDos(user: "ada").first?.category == "work")
        // Edit words, move to a category, untie it.
        #expect(try store.editNotToDo(scroll.id, text: "No phone in bed", user: "ada").text == "No phone in bed")
        #expect(try store.editNotToDo(scroll.id, category: .some("discipline"), user: "ada").category == "discipline")
        #expect(try store.editNotToDo(email.id, category: .some(nil), user: "ada").category == nil)
        // Another user's item is not found, and bad text changes nothing.
        #expect(throws: QuoteError.notToDoNotFound(email.id)) { try store.removeNotToDo(email.id, user: "bo") }
        #expect(throws: QuoteError.self) { try store.addNotToDo("two\nlines", user: "ada") }
        #expect(throws: QuoteError.self) { try store.editNotToDo(email.id, text: "  ", user: "ada") }
        #expect(try store.notToDos(user: "ada").count == 2)
        #expect(try store.removeNotToDo(email.id, user: "ada").text == "Check e-mail before noon")
        #expect(try store.notToDos(user: "ada").map(\.text) == ["No phone in bed"])
    }

    @Test func aScheduleWithRemindersCarriesOneOfTheQuotesCategoryElseAnUntiedOne() throws {
        let store = try freshStore()
        #expect(try store.addStarterCollectionIfEmpty() > 0)
        _ = try store.addNotToDo("Put off the hard task", category: "perseverance", user: "ada")
        _ = try store.addNotToDo("Work through lunch", user: "ada")
        try store.setSchedule(try Schedule(times: .fixed([LocalTime(minutes: 9 * 60)]), timeZoneIdentifier: "UTC", category: "perseverance", reminders: true), user: "ada")
        let day1 = try #require(ISO8601DateFormatter().date(from: "2026-11-02T09:01:00Z"))
        let first = try #require(try store.deliverDue(now: day1, user: "ada", channel: "test"))
        #expect(first.reminder?.text == "Put off the hard task")
        // Quotes of a category with no item of its own get an untied one.
        try store.setSchedule(try Schedule(times: .fixed([LocalTime(minutes: 9 * 60)]), timeZoneIdentifier: "UTC", category: "courage", reminders: true), user: "ada")
        let day2 = try #require(ISO8601DateFormatter().date(from: "2026-11-03T09:01:00Z"))
        #expect(try store.deliverDue(now: day2, user: "ada", channel: "test")?.reminder?.text == "Work through lunch")
        // Without reminders, none.
        try store.setSchedule(try Schedule(times: .fixed([LocalTime(minutes: 9 * 60)]), timeZoneIdentifier: "UTC"), user: "ada")
        let day3 = try #require(ISO8601DateFormatter().date(from: "2026-11-04T09:01:00Z"))
        #expect(try store.deliverDue(now: day3, user: "ada", channel: "test")?.reminder == nil)
    }

    @Test func theListFollowsTheUserToOtherDevices() async throws {
        let server = InMemorySyncServer()
        let laptop = try QuoteStore.inMemory(), phone = try QuoteStore.inMemory()
        try laptop.store.syncEnable()
        try phone.store.syncEnable()
        let item = try await laptop.run { try $0.addNotToDo("Check e-mail before noon", category: "work", user: "ada") }
        for store in [laptop, phone] { _ = try await SyncSession(store: store.store, log: "quotes", transport: server).run() }
        let there = try #require(try await phone.run({ try $0.notToDos(user: "ada") }).first)
        #expect(there.text == item.text && there.category == "work")
        try await phone.run { try $0.editNotToDo(there.id, text: "Check e-mail after lunch", user: "ada") }
        for store in [phone, laptop] { _ = try await SyncSession(store: store.store, log: "quotes", transport: server).run() }
        #expect(try await laptop.run({ try $0.notToDos(user: "ada") }).map(\.text) == ["Check e-mail after lunch"])
        try await laptop.run { try $0.removeNotToDo(item.id, user: "ada") }
        for store in [laptop, phone] { _ = try await SyncSession(store: store.store, log: "quotes", transport: server).run() }
        #expect(try await phone.run({ try $0.notToDos(user: "ada") }).isEmpty)
    }
}
