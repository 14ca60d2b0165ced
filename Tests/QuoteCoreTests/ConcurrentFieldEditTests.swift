import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import QuoteCore

/// README's per-field merge, for every synced entity of the quotes store (see
/// `ConcurrentFieldEdits`: the entities and fields come from the store's sync schema).
@Suite struct QuoteConcurrentFieldEditTests {
    @Test func concurrentChangesOfDifferentFieldsAllSurviveInEveryEntity() async throws {
        let day = Date(timeIntervalSince1970: 1_800_000_000)
        // One wall clock that moves on a millisecond each time a device reads it: later writes
        // are stamped later, whichever device makes them.
        let clock = DeviceClock(millis: 1_800_000_000_000)
        let devices = try (0..<3).map { _ in try QuoteStore.inMemory(now: { clock.advance(1); return clock.date }) }
        let store = devices[0]
        let quotes = [
            try await store.run { try $0.add("Well begun is half done.", source: "Aristotle", categories: ["beginnings", "work"]) },
            try await store.run { try $0.add("Nothing will work unless you do.", source: "Maya Angelou", categories: ["work"], citation: "interview") },
            try await store.run { try $0.add("Done is better than perfect.", source: "Sheryl Sandberg", categories: ["focus"]) },
        ]
        _ = try await store.run { try $0.favorite(quotes[0].id, user: "ada") }
        _ = try await store.run { try $0.favorite(quotes[1].id, user: "ada") }
        _ = try await store.run { try $0.skip(quotes[2].id, user: "ada") }
        _ = try await store.run { try $0.addNote("Read this before the talk", on: quotes[0].id, user: "ada") }
        _ = try await store.run { try $0.addNotToDo("Check mail before ten", category: "focus", user: "ada") }
        try await store.run { try $0.setSchedule(try Schedule(times: .fixed([LocalTime(hour: 9, minute: 0)]), timeZoneIdentifier: "UTC", reminders: true), user: "ada") }
        _ = try #require(try await store.run({ try $0.deliverDue(now: day.addingTimeInterval(86_400), user: "ada", channel: "test") }))
        for device in devices { try device.store.syncEnable() }
        let report = try await ConcurrentFieldEdits.check(devices: devices.map(\.store), log: "quotes")
        #expect(report.failures.isEmpty, "\(report.failures.joined(separator: "\n"))")
        #expect(Set(report.entitiesChecked + report.singleField) == Set(QuoteStore.syncSchema.entities.map(\.name)))
        #expect(report.edits.count == ConcurrentFieldEdits.editCount(QuoteStore.syncSchema))
    }
}
