import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import MotivationCore

/// README's per-field merge, for every synced entity of the business-model store (see
/// `ConcurrentFieldEdits`: the entities and fields come from the store's sync schema).
@Suite struct MotivationConcurrentFieldEditTests {
    @Test func concurrentChangesOfDifferentFieldsAllSurviveInEveryEntity() async throws {
        // One wall clock that moves on a millisecond each time a device reads it: later writes
        // are stamped later, whichever device makes them.
        let clock = DeviceClock(millis: 1_800_000_000_000)
        let devices = try (0..<3).map { _ in try BusinessModelStore.inMemory(now: { clock.advance(1); return clock.date }) }
        let store = devices[0]
        let cafe = try await store.run { try $0.create(name: "Corner café") }
        _ = try await store.run { try $0.create(name: "Bike repair", makeCurrent: false) }
        try await store.run { try $0.save(text: "Good coffee near the station", confidence: .assumption, section: .valueProposition, in: cafe.id) }
        try await store.run { try $0.save(text: "Commuters", section: .customerType, in: cafe.id) }
        for device in devices { try device.store.syncEnable() }
        let report = try await ConcurrentFieldEdits.check(devices: devices.map(\.store), log: "bmm")
        #expect(report.failures.isEmpty, "\(report.failures.joined(separator: "\n"))")
        #expect(Set(report.entitiesChecked + report.singleField) == Set(BusinessModelStore.syncSchema.entities.map(\.name)))
        #expect(report.edits.count == ConcurrentFieldEdits.editCount(BusinessModelStore.syncSchema))
    }
}
