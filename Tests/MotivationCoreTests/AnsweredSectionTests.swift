import Foundation
import GRDB
import Testing
@testable import MotivationCore

/// A section is answered by one rule: `bmm list`'s percentage (``BusinessModelStore/models()``)
/// and `bmm sections` (``BusinessModel/isAnswered(_:)``) once disagreed about a section of
/// no-break spaces, which SQL's trim kept and Swift's trimmed.
@Suite struct AnsweredSectionTests {
    static let blanks = ["\u{00A0}\u{00A0}", "\u{3000}", "\u{2003} \u{2009}", "\u{1680}", "\u{205F}\t\u{00A0}\n", " \u{200A} "]

    /// Writes `text` as the section's stored text, past the text rule (as a store written before
    /// it, or by another program, may hold).
    func storeRaw(_ text: String, section: SectionID, in id: BusinessModel.ID, store: BusinessModelStore) throws {
        try store.write { db in
            try db.execute(sql: """
                INSERT INTO section_entry (model_id, section, text, confidence, updated_ms) VALUES (?, ?, ?, NULL, 0)
                ON CONFLICT (model_id, section) DO UPDATE SET text = excluded.text
                """, arguments: [id.uuidString, section.rawValue, text])
        }
    }

    @Test(arguments: blanks)
    func aSectionOfUnicodeWhiteSpaceIsUnansweredInTheListAndTheSections(blank: String) throws {
        let store = try freshStore()
        let model = try store.create(name: "Acme")
        try storeRaw(blank, section: .channels, in: model.id, store: store)
        #expect(try store.current().text(of: .channels) == blank)
        #expect(try store.models().map(\.percent) == [0])
        #expect(try !store.current().isAnswered(.channels))
        #expect(try store.current().completeness.percent == 0)
        #expect(!SectionEntry.isAnswered(blank))
    }

    @Test(arguments: ["Ünterwegs", "\u{00A0}x", "日本のパン", "\u{3000}answer\u{3000}", "\tTab first", "🍞"])
    func anyTextWithMoreThanWhiteSpaceIsAnsweredInBoth(text: String) throws {
        let store = try freshStore()
        let model = try store.create(name: "Acme")
        try storeRaw(text, section: .channels, in: model.id, store: store)
        #expect(try store.models().map(\.percent) == [10])
        #expect(try store.current().completeness.percent == 10)
    }

    @Test func savingOnlyWhiteSpaceStoresAnEmptySection() throws {
        let store = try freshStore()
        let model = try store.create(name: "Acme")
        for blank in Self.blanks {
            let saved = try store.save(text: blank, section: .channels, in: model.id)
            #expect(saved.text(of: .channels) == "")
        }
        #expect(try store.models().map(\.percent) == [0])
    }
}
