import Foundation
import GRDB
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import BundleCore

/// Reusable routines (seed 003): a bundle saved by name, its own todos brought back at a check-in
/// (never copies: issue 38, §1).
@Suite struct RoutineTests {
    let utc = TimeZone(identifier: "UTC")!

    func gymBundle(_ store: BundleStore) throws -> TodoBundle {
        let towel = try store.addTodo("Pack a towel", event: "go to the gym", preposition: .before, notes: "the big one", allowNewEvent: true)
        let shoes = try store.addTodo("Pack the shoes", event: "go to the gym", preposition: .before)
        return try store.checkIn(event: "go to the gym", direction: .aboutTo, todoIDs: [towel.id, shoes.id], icon: "🏋️", timeZone: utc)
    }

    @Test func aSavedRoutineBringsBackItsOwnTodosInANewBundle() throws {
        let store = try BundleStore.inMemory()
        let first = try gymBundle(store)
        _ = try store.markDone(first.items[0].todo.id, in: first.id)
        let routine = try store.saveRoutine(named: "Gym bag", fromBundle: first.id)
        #expect(routine.items == [Routine.Item(text: "Pack a towel", notes: "the big one", todo: first.items[0].todo.uuid),
                                  Routine.Item(text: "Pack the shoes", notes: "", todo: first.items[1].todo.uuid)])
        #expect(routine.icon == "🏋️")
        #expect(throws: BundleError.duplicateRoutine("gym  BAG")) { try store.saveRoutine(named: "gym  BAG", fromBundle: first.id) }
        _ = try store.throwBack(first.items[1].todo.id, in: first.id)

        let again = try store.checkIn(event: "go to the gym", direction: .aboutTo, routine: "gym bag", timeZone: utc)
        #expect(again.id != first.id)
        #expect(again.icon == "🏋️")
        #expect(again.title.hasPrefix("Gym bag, Go to the gym"))
        #expect(again.items.map(\.todo.text) == ["Pack a towel", "Pack the shoes"])
        #expect(again.items.allSatisfy { $0.todo.status == .inBundle && $0.todo.preposition == .before && $0.outcome == .open })
        #expect(again.items.map(\.todo.id) == first.items.map(\.todo.id), "its own todos (the done one reopened), not copies")
        #expect(again.items[0].todo.notes == "the big one")
        #expect(try store.todos(includeFinished: true).count == 2)
        // While they are in an open bundle, the routine is refused.
        #expect(throws: BundleError.conflict(.routineTodoInOpenBundle(first.items[0].todo.id, bundle: again.id, routine: "Gym bag"))) {
            try store.checkIn(event: "go to the gym", direction: .aboutTo, routine: "Gym bag", timeZone: utc)
        }
        _ = try store.abandon(again.id)
        // Just finished: the todos come back as 'after' todos.
        let after = try store.checkIn(event: "go to the gym", direction: .justFinished, routine: "Gym bag", title: "Unpack", timeZone: utc)
        #expect(after.title == "Unpack" && after.items.allSatisfy { $0.todo.preposition == .after })
        #expect(try store.todos(includeFinished: true).count == 2)
        _ = try store.abandon(after.id)

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
        try laptop.store.syncEnable()
        try phone.store.syncEnable()
        let bundle = try gymBundle(laptop)
        try await laptop.run { try $0.saveRoutine(named: "Gym bag", fromBundle: bundle.id) }
        _ = try await laptop.run { try $0.abandon(bundle.id) }
        for store in [laptop, phone] { _ = try await SyncSession(store: store.store, log: "bundle", transport: server).run() }
        #expect(try await phone.run({ try $0.routines() }).first?.items.map(\.text) == ["Pack a towel", "Pack the shoes"])
        let made = try await phone.run { try $0.checkIn(event: "go to the gym", direction: .aboutTo, routine: "Gym bag", timeZone: utc) }
        #expect(made.items.count == 2)
        #expect(try await phone.run({ try $0.todos(includeFinished: true) }).count == 2, "the synced todos came back, not copies")
    }

    /// A routine saved before routines kept their todos makes its todos once, then keeps them.
    @Test func aRoutineWithoutItsTodosMakesThemOnce() throws {
        let store = try BundleStore.inMemory()
        let first = try gymBundle(store)
        _ = try store.abandon(first.id)
        _ = try store.saveRoutine(named: "Gym bag", fromBundle: first.id)
        try store.write { db in try db.execute(sql: "UPDATE routine SET items = ?", arguments: [#"[{"text":"Pack a towel","notes":""}]"#]) }
        let made = try store.checkIn(event: "go to the gym", direction: .aboutTo, routine: "Gym bag", timeZone: utc)
        #expect(made.items.map(\.todo.text) == ["Pack a towel"] && !first.items.map(\.todo.id).contains(made.items[0].todo.id))
        #expect(try store.routines().first?.items.first?.todo == made.items[0].todo.uuid)
        _ = try store.markDone(made.items[0].todo.id, in: made.id)
        _ = try store.complete(made.id)
        let again = try store.checkIn(event: "go to the gym", direction: .aboutTo, routine: "Gym bag", timeZone: utc)
        #expect(again.items.map(\.todo.id) == made.items.map(\.todo.id))
        #expect(try store.todos(includeFinished: true).count == 3)
    }
}
