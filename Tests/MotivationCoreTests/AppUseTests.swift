import Foundation
import GRDB
import SuiteStorage
import SuiteTestSupport
import Testing
@testable import MotivationCore

/// An observation's values, collected (SuiteTestSupport's `Recorder`) for this core's errors.
typealias Recorder<Value: Sendable & Equatable> = SuiteTestSupport.Recorder<Value, MotivationError>

func temporaryStoreURL() -> URL {
    TestFolders.make("suite-bmm-tests")
        .appendingPathComponent(BusinessModelStore.fileName)
}

@Suite struct InMemoryStoreTests {
    @Test func hasTheSameSchemaAsAStoreFileAndWorks() throws {
        let memory = try BusinessModelStore.inMemory()
        let file = try BusinessModelStore(url: temporaryStoreURL())
        func schema(_ store: BusinessModelStore) throws -> [String] {
            try store.read { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name") }
        }
        #expect(try schema(memory) == schema(file))
        #expect(try memory.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") } == ["v1", "v2-sync", "v3-sync-set-aside"])
        let model = try memory.create(name: "Acme")
        try memory.save(text: "Bread by 7", section: .valueProposition, in: model.id)
        #expect(try memory.current().completeness.done == [.valueProposition])
        #expect(try memory.models().map(\.percent) == [10])
    }

    @Test func writesNothingToDiskAndIsSeenByNoOtherStore() throws {
        let folder = FileManager.default.currentDirectoryPath
        let before = try FileManager.default.contentsOfDirectory(atPath: folder)
        let first = try BusinessModelStore.inMemory(), second = try BusinessModelStore.inMemory()
        try first.create(name: "Acme")
        #expect(first.path == ":memory:")
        #expect(try second.models().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == before)
        #expect(!FileManager.default.fileExists(atPath: ":memory:"))
    }
}

@Suite struct AsyncCallTests {
    @Test func openAndEveryScreenCallWorkFromAsyncCode() async throws {
        let url = temporaryStoreURL()
        let store = try await BusinessModelStore.open(at: url)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(try await store.run({ try $0.currentIfAny() }) == nil)
        let model = try await store.run { try $0.create(name: "Acme") }
        try await store.run { try $0.save(text: "first", section: .valueProposition, in: model.id) }
        try await store.run { try $0.save(text: "second", confidence: .validated, section: .valueProposition, in: model.id) }
        try await store.run { try $0.setConfidence(.assumption, section: .valueProposition, in: model.id) }
        #expect(try await store.run({ try $0.history(of: .valueProposition, in: model.id) }).map(\.text) == ["first", "second", "second"])
        try await store.run { try $0.restore(section: .valueProposition, version: 1, in: model.id) }
        #expect(try await store.run({ try $0.model(model.id) }).text(of: .valueProposition) == "first")
        #expect(try await store.run({ try $0.model(named: "ACME") }).id == model.id)
        let copy = try await store.run { try $0.duplicate(model.id, as: "Acme 2") }
        try await store.run { try $0.rename(copy.id, to: "Acme Two") }
        try await store.run { try $0.use(model.id) }
        #expect(try await store.run({ try $0.current() }).id == model.id)
        try await store.run { try $0.use(named: "acme two") }
        #expect(try await store.run({ try $0.models() }).map(\.name) == ["Acme", "Acme Two"])
        let document = try await store.run { try $0.document(for: model.id) }
        try await store.run { try $0.delete(model.id) }
        try await store.run { try $0.delete(named: "Acme Two") }
        #expect(try await store.run({ try $0.models() }).isEmpty)
        #expect(try await store.run({ try $0.importDocument(document, as: "Imported") }).name == "Imported")

        let readOnly = try await BusinessModelStore.open(at: url, readOnly: true)
        #expect(try await readOnly.run({ try $0.current() }).name == "Imported")
        await #expect(throws: MotivationError.self) { try await readOnly.run({ try $0.create(name: "Nope") }) }
    }

    @Test func errorsArriveTyped() async throws {
        let store = try BusinessModelStore.inMemory()
        let missing = BusinessModel.ID()
        #expect(!Background.isCurrent)
        #expect(try await store.run { _ in Background.isCurrent })
        #expect(try await BusinessModelStore.run { Background.isCurrent })
        do throws(MotivationError) {
            try await store.run { s throws(MotivationError) in try s.save(text: "x", section: .channels, in: missing) }
            Issue.record("saved into a missing model")
        } catch .modelNotFound(let id) {
            #expect(id == missing)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

@Suite struct ObservationTests {
    @Test func givesTheCurrentValueAtOnceThenEachOwnWrite() async throws {
        let store = try BusinessModelStore.inMemory()
        let recorder = Recorder<BusinessModel?>()
        let task = recorder.follow(store.observeCurrent())
        defer { task.cancel() }
        // Nothing is written: the first value comes without a change.
        #expect(await recorder.wait { $0.count == 1 })
        #expect(await recorder.values == [nil])

        let model = try await store.run { try $0.create(name: "Acme") }
        #expect(await recorder.wait { $0.last??.id == model.id })
        try await store.run { try $0.save(text: "Bread", section: .valueProposition, in: model.id) }
        #expect(await recorder.wait { $0.last??.completeness.percent == 10 })
        // A write that changes nothing observed gives no new value.
        let count = await recorder.values.count
        try await store.run { try $0.create(name: "Other", makeCurrent: false) }
        // Values come in commit order: once the next change's value is here, the one before gave none.
        try await store.run { try $0.save(text: "Ovens", section: .customerNeeds, in: model.id) }
        #expect(await recorder.wait { $0.last??.completeness.percent == 20 })
        #expect(await recorder.values.count == count + 1)
    }

    @Test func completenessChangesOnlyWhenWhatIsDoneChanges() async throws {
        let store = try BusinessModelStore.inMemory()
        let model = try await store.run { try $0.create(name: "Acme") }
        let recorder = Recorder<Completeness?>()
        let task = recorder.follow(store.observeCurrentCompleteness())
        defer { task.cancel() }
        #expect(await recorder.wait { $0.count == 1 })
        try await store.run { try $0.save(text: "Bread", section: .valueProposition, in: model.id) }
        #expect(await recorder.wait { $0.last??.percent == 10 })
        try await store.run { try $0.save(text: "Bread by 7", section: .valueProposition, in: model.id) }
        // Values come in commit order: once the next change's value is here, the one before gave none.
        try await store.run { try $0.save(text: "Ovens", section: .customerNeeds, in: model.id) }
        #expect(await recorder.wait { $0.last??.percent == 20 })
        #expect(await recorder.values.compactMap { $0?.percent } == [0, 10, 20])
    }

    @Test func aWriteThroughAnotherConnectionArrivesWithinASecond() async throws {
        let url = temporaryStoreURL()
        let screen = try await BusinessModelStore.open(at: url)
        let model = try await screen.run { try $0.create(name: "Acme") }
        let recorder = Recorder<[BusinessModelSummary]>()
        let task = recorder.follow(screen.observeModels())
        defer { task.cancel() }
        #expect(await recorder.wait { $0.count == 1 })

        // Another store value on the same file stands for another process (the CLI): its commit
        // reaches this store only through the file. (How fast is measured with real processes on
        // idle cores by Scripts/check-watch-todos, not by a timed unit test.)
        let other = try BusinessModelStore(url: url)
        let seen = await recorder.values.count
        try await other.run { try $0.save(text: "Bread", section: .valueProposition, in: model.id) }
        #expect(await recorder.wait { $0.count > seen })
        #expect(await recorder.values.last?.first?.percent == 10)
    }

    @Test func cancellingTheTaskEndsTheSequenceAndTheWatching() async throws {
        let store = try BusinessModelStore(url: temporaryStoreURL())
        let model = try await store.run { try $0.create(name: "Acme") }
        let recorder = Recorder<[SectionVersion]>()
        let task = recorder.follow(store.observeHistory(of: .channels, in: model.id))
        #expect(await recorder.wait { $0.count == 1 })
        #expect(store.store.changes.subscriberCount == 1)
        task.cancel()
        #expect(await recorder.waitUntilFinished())
        #expect(await recorder.failure == nil)
        #expect(await eventually { store.store.changes.subscriberCount == 0 })
    }

    @Test func aDeletedModelEndsItsObservationWithTheTypedError() async throws {
        let store = try BusinessModelStore.inMemory()
        let model = try await store.run { try $0.create(name: "Acme") }
        let recorder = Recorder<BusinessModel>()
        let task = recorder.follow(store.observeModel(model.id))
        defer { task.cancel() }
        #expect(await recorder.wait { $0.count == 1 })
        try await store.run { try $0.delete(model.id) }
        #expect(await recorder.waitUntilFinished())
        #expect(await recorder.failure == .modelNotFound(model.id))
    }
}

@Suite struct TypedErrorTests {
    @Test func notFoundErrorsCarryTheIdOrTheName() throws {
        let store = try BusinessModelStore.inMemory()
        let id = BusinessModel.ID()
        #expect(throws: MotivationError.modelNotFound(id)) { try store.model(id) }
        #expect(throws: MotivationError.modelNotFound(id)) { try store.rename(id, to: "x") }
        #expect(throws: MotivationError.noModelNamed("Nope")) { try store.use(named: "Nope") }
        let model = try store.create(name: "Acme")
        #expect(throws: MotivationError.versionNotFound(section: .channels, version: 3)) {
            try store.restore(section: .channels, version: 3, in: model.id)
        }
    }

    @Test func invalidTextCarriesTheFieldAndTheProblem() throws {
        let store = try BusinessModelStore.inMemory()
        #expect(throws: MotivationError.invalidText(InvalidText(field: .businessName, problem: .empty))) { try store.create(name: " ") }
        #expect(throws: MotivationError.invalidText(InvalidText(field: .businessName, problem: .lineBreak))) { try store.create(name: "a\nb") }
        #expect(throws: MotivationError.invalidText(InvalidText(field: .businessName, problem: .tooLong(length: 201, limit: 200, bytes: false)))) {
            try store.create(name: String(repeating: "n", count: 201))
        }
        let model = try store.create(name: "Acme")
        #expect(throws: MotivationError.invalidText(InvalidText(field: .sectionText, problem: .controlCharacter(0x1B)))) {
            try store.save(text: "a\u{1B}[31m", section: .channels, in: model.id)
        }
        #expect(throws: MotivationError.textTooLong(length: 1_000_001, limit: 1_000_000)) {
            try store.save(text: String(repeating: "t", count: 1_000_001), section: .channels, in: model.id)
        }
    }

    @Test func noMessageNamesACommandOrAFlag() throws {
        let errors: [MotivationError] = [
            .modelNotFound(BusinessModel.ID()), .noModelNamed("x"), .duplicateName("x"), .noCurrentModel,
            .textTooLong(length: 2, limit: 1), .invalidText(InvalidText(field: .businessName, problem: .empty)),
            .versionNotFound(section: .channels, version: 2), .notShareable(missingName: true, missingSections: [.valueProposition]),
            .malformedDocument(reason: "x"), .store(StoreError(kind: .busy, path: "/x")),
        ]
        for error in errors {
            #expect(!error.description.contains("suite "), "\(error)")
            #expect(!error.description.contains("--"), "\(error)")
        }
    }
}
