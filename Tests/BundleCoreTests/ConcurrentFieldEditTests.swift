import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import BundleCore

/// README's per-field merge, for every synced entity of the bundle store (see
/// `ConcurrentFieldEdits`: the entities and fields come from the store's sync schema).
@Suite struct BundleConcurrentFieldEditTests {
    @Test func concurrentChangesOfDifferentFieldsAllSurviveInEveryEntity() async throws {
        let utc = TimeZone(identifier: "UTC")!
        // One wall clock that moves on a millisecond each time a device reads it: later writes
        // are stamped later, whichever device makes them.
        let clock = DeviceClock(millis: 1_800_000_000_000)
        let devices = try (0..<3).map { _ in try BundleStore.inMemory(now: { clock.advance(1); return clock.date }) }
        let store = devices[0]
        let stamps = try await store.run { try $0.addTodo("Buy stamps", event: "go to the post office", preposition: .before, allowNewEvent: true) }
        let form = try await store.run { try $0.addTodo("Post the form", event: "go to the post office", preposition: .before) }
        _ = try await store.run { try $0.addTodo("Water the plants", event: "get home", preposition: .after, allowNewEvent: true) }
        _ = try await store.run { try $0.addAlias("the post office", to: "go to the post office") }
        _ = try await store.run { try $0.addLink("https://example.org/stamps", to: stamps.id) }
        _ = try await store.run { try $0.addLink("https://example.org/form", to: form.id) }
        let bundle = try await store.run { try $0.checkIn(event: "go to the post office", direction: .aboutTo, todoIDs: [stamps.id, form.id], title: "Post office run", timeZone: utc) }
        _ = try await store.run { try $0.saveRoutine(named: "post run", fromBundle: bundle.id) }
        _ = try await store.run { try $0.importCalendarEvents(Data("""
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//Example//Calendar//EN\r
            BEGIN:VEVENT\r
            UID:dentist-1@example.org\r
            DTSTAMP:20261120T100000Z\r
            DTSTART:20270120T150000Z\r
            DTEND:20270120T154500Z\r
            SUMMARY:Dentist\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:dentist-2@example.org\r
            DTSTAMP:20261120T100000Z\r
            DTSTART:20270127T150000Z\r
            DTEND:20270127T154500Z\r
            SUMMARY:Dentist\r
            END:VEVENT\r
            END:VCALENDAR\r

            """.utf8), timeZone: utc) }
        for device in devices { try device.store.syncEnable() }
        let report = try await ConcurrentFieldEdits.check(devices: devices.map(\.store), log: "bundle")
        #expect(report.failures.isEmpty, "\(report.failures.joined(separator: "\n"))")
        #expect(Set(report.entitiesChecked + report.singleField) == Set(BundleStore.syncSchema.entities.map(\.name)))
        #expect(report.edits.count == ConcurrentFieldEdits.editCount(BundleStore.syncSchema))
    }
}
