import Foundation
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import BundleCore

/// Reusable routines (seed 003): a bundle saved by name, brought back as new todos at a check-in.
@Suite struct RoutineTests {
    let utc = TimeZone(identifier: "UTC")!

    func gymBundle(_ store: BundleStore) throws -> TodoBundle {
        let towel = try store.addTodo("Pack a towel", event: "go to the gym", preposition: .before, notes: "the big one", allowNewEvent: true)
        let shoes = try store.addTodo("Pack the shoes", event: "go to the gym", preposition: .before)
        return try store.checkIn(event: "go to the gym", direction: .aboutTo, todoIDs: [towel.id, shoes.id], icon: "🏋️", timeZone: utc)
    }

    @Test func aSavedRoutineComesBackAsNewTodosInANewBundle() throws {
        let store = try BundleStore.inMemory()
        let first = try gymBundle(store)
        _ = try store.markDone(first.items[0].todo.id, in: first.id)
        let routine = try store.saveRoutine(named: "Gym bag", fromBundle: first.id)
        #expect(routine.items == [Routine.Item(text: "Pack a towel", notes: "the big one"), Routine.Item(text: "Pack the shoes", notes: "")])
        #expect(routine.icon == "🏋️")
        #expect(throws: BundleError.duplicateRoutine("gym  BAG")) { try store.saveRoutine(named: "gym  BAG", fromBundle: first.id) }
        _ = try store.throwBack(first.items[1].todo.id, in: first.id)

        let again = try store.checkIn(event: "go to the gym", direction: .aboutTo, routine: "gym bag", timeZone: utc)
        #expect(again.id != first.id)
        #expect(again.icon == "🏋️")
        #expect(again.title.hasPrefix("Gym bag, Go to the gym"))
        #expect(again.items.map(\.todo.text) == ["Pack a towel", "Pack the shoes"])
        #expect(again.items.allSatisfy { $0.todo.status == .inBundle && $0.todo.preposition == .before && $0.outcome == .open })
        #expect(Set(again.items.map(\.todo.id)).isDisjoint(with: first.items.map(\.todo.id)), "new todos, not the old ones")
        #expect(again.items[0].todo.notes == "the big one")
        // Just finished: the todos come back as 'after' todos.
        let after = try store.checkIn(event: "go to the gym", direction: .justFinished, routine: "Gym bag", title: "Unpack", timeZone: utc)
        #expect(after.title == "Unpack" && after.items.allSatisfy { $0.todo.preposition == .after })

        #expect(try store.routines().map(\.name) == ["Gym bag"])
        #expect(throws: BundleError.routineNotFound("Sauna")) { try store.checkIn(event: "go to the gym", direction: .aboutTo, routine: "Sauna", timeZone: utc) }
        #expect(throws: BundleError.self) { try store.checkIn(event: "go swimming", direction: .aboutTo, routine: "Gym bag", timeZone: utc) }
        #expect(try store.removeRoutine(named: "GYM BAG").name == "Gym bag")
        #expect(try store.routines().isEmpty)
        #expect(throws: BundleError.routineNotFound("Gym bag")) { try store.removeRoutine(named: "Gym bag") }
    }

    @Test func routinesFollowTheUserToOtherDevices() async throws {
        let server = InMemorySyncServer()
        let laptop = try BundleStore.inMemory(), phone = try BundleStore.inMemory()
        try laptop.syncStore.syncEnable()
        try phone.syncStore.syncEnable()
        let bundle = try gymBundle(laptop)
        try await laptop.saveRoutine(named: "Gym bag", fromBundle: bundle.id)
        for store in [laptop, phone] { _ = try await SyncSession(store: store.syncStore, log: "bundle", transport: server).run() }
        #expect(try await phone.routines().first?.items.map(\.text) == ["Pack a towel", "Pack the shoes"])
        let made = try await phone.checkIn(event: "go to the gym", direction: .aboutTo, routine: "Gym bag", timeZone: utc)
        #expect(made.items.count == 2)
    }
}
