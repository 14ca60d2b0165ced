import Foundation
import SuiteTestSupport
import Testing
@testable import MotivationCore

func freshStore(now: @escaping @Sendable () -> Date = Date.init) throws -> BusinessModelStore {
    let folder = TestFolders.make("suite-bmm-tests")
    return try BusinessModelStore(url: folder.appendingPathComponent(BusinessModelStore.fileName), now: now)
}

@Suite struct BusinessModelStoreTests {
    @Test func createsModelsAndTracksTheCurrentOne() throws {
        let store = try freshStore()
        #expect(throws: MotivationError.noCurrentModel) { try store.current() }
        let first = try store.create(name: "  Acme Bakery ")
        #expect(first.name == "Acme Bakery")
        #expect(try store.current().id == first.id)
        let second = try store.create(name: "Acme Online", makeCurrent: false)
        #expect(try store.current().id == first.id)
        try store.use(named: "acme online")
        #expect(try store.current().id == second.id)
        #expect(try store.models().map(\.name) == ["Acme Bakery", "Acme Online"])
        #expect(try store.models().filter(\.isCurrent).map(\.name) == ["Acme Online"])
        #expect(throws: MotivationError.duplicateName("ACME BAKERY")) { try store.create(name: "ACME BAKERY") }
    }

    @Test func savesSectionsAndComputesCompleteness() throws {
        let store = try freshStore()
        let model = try store.create(name: "Acme")
        try store.save(text: "Bread by 7 am", section: .valueProposition, in: model.id)
        let updated = try store.save(text: "Commuters", confidence: .someEvidence, section: .customerType, in: model.id)
        #expect(updated.completeness.done == [.valueProposition, .customerType])
        #expect(updated.completeness.percent == 20)
        #expect(updated.completeness.missing(at: .core) == [.customerNeeds, .productsAndServices, .costAndRevenueModels])
        let reloaded = try store.current()
        #expect(reloaded == updated)
        #expect(reloaded.entries[.customerType]?.confidence == .someEvidence)
        // Whitespace does not count as an answer.
        let blank = try store.save(text: " \n\t ", section: .channels, in: model.id)
        #expect(!blank.isAnswered(.channels))
    }

    @Test func everySaveIsKeptAndCanBeRestored() throws {
        let store = try freshStore()
        let model = try store.create(name: "Acme")
        try store.save(text: "first", section: .valueProposition, in: model.id)
        try store.save(text: "second", section: .valueProposition, in: model.id)
        try store.save(text: "", section: .valueProposition, in: model.id)
        #expect(try store.history(of: .valueProposition, in: model.id).map(\.text) == ["first", "second", ""])
        let restored = try store.restore(section: .valueProposition, version: 1, in: model.id)
        #expect(restored.text(of: .valueProposition) == "first")
        #expect(try store.history(of: .valueProposition, in: model.id).map(\.version) == [1, 2, 3, 4])
        #expect(throws: MotivationError.versionNotFound(section: .valueProposition, version: 9)) {
            try store.restore(section: .valueProposition, version: 9, in: model.id)
        }
    }

    @Test func copiesRenamesAndDeletes() throws {
        let store = try freshStore()
        let model = try store.create(name: "Acme")
        try store.save(text: "v1", section: .valueProposition, in: model.id)
        try store.save(text: "v2", section: .valueProposition, in: model.id)
        let copy = try store.duplicate(model.id, as: "Acme Variant")
        #expect(copy.id != model.id)
        #expect(copy.text(of: .valueProposition) == "v2")
        #expect(try store.history(of: .valueProposition, in: copy.id).map(\.text) == ["v1", "v2"])
        #expect(try store.current().id == copy.id)
        // The copy is independent.
        try store.save(text: "changed", section: .valueProposition, in: copy.id)
        #expect(try store.model(named: "Acme").text(of: .valueProposition) == "v2")
        try store.rename(model.id, to: "Acme Original")
        #expect(throws: MotivationError.duplicateName("Acme Variant")) { try store.rename(model.id, to: "Acme Variant") }
        try store.delete(named: "Acme Variant")
        #expect(try store.current().name == "Acme Original")
        try store.delete(named: "Acme Original")
        #expect(throws: MotivationError.noCurrentModel) { try store.current() }
        #expect(throws: MotivationError.noModelNamed("nope")) { try store.delete(named: "nope") }
        #expect(throws: MotivationError.modelNotFound(model.id)) { try store.delete(model.id) }
    }

    @Test(arguments: ["", "   ", "\n", "bad\u{0}name", "tab\u{7}bell", String(repeating: "x", count: 201)])
    func refusesBadNames(name: String) throws {
        let store = try freshStore()
        #expect {
            try store.create(name: name)
        } throws: { error in
            if case .invalidText(let invalid) = error as? MotivationError { return invalid.field == .businessName }
            return false
        }
        #expect(try store.models().isEmpty)
    }

    @Test func refusesTextOverTheLimitAndControlCharacters() throws {
        let store = try freshStore()
        let model = try store.create(name: "Acme")
        let huge = String(repeating: "a", count: 5_000_000)
        #expect(throws: MotivationError.textTooLong(length: 5_000_000, limit: BusinessModelStore.maximumTextLength)) {
            try store.save(text: huge, section: .valueProposition, in: model.id)
        }
        #expect(throws: MotivationError.invalidText(InvalidText(field: .sectionText, problem: .controlCharacter(0)))) {
            try store.save(text: "a\u{0}b", section: .valueProposition, in: model.id)
        }
        #expect(try store.history(of: .valueProposition, in: model.id).isEmpty)
        // The limit itself is accepted.
        try store.save(text: String(repeating: "b", count: BusinessModelStore.maximumTextLength), section: .valueProposition, in: model.id)
    }

    @Test func theStoreSurvivesReopening() throws {
        let folder = TestFolders.make("suite-bmm-tests")
        let url = folder.appendingPathComponent(BusinessModelStore.fileName)
        do {
            let store = try BusinessModelStore(url: url)
            let model = try store.create(name: "Acme")
            try store.save(text: "kept", section: .channels, in: model.id)
        }
        let again = try BusinessModelStore(url: url)
        #expect(try again.current().text(of: .channels) == "kept")
    }
}
