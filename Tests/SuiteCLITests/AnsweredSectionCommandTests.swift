import Foundation
import GRDB
import Testing

/// `bmm list` and `bmm sections` count a section as answered by one rule: a section holding only
/// white space (no-break, ideographic or any other Unicode space) is unanswered in both. (The
/// list once trimmed ASCII white space in SQL and counted a section of no-break spaces as 10 %.)
@Suite struct AnsweredSectionCommandTests {
    struct ListLine: Decodable { let name: String; let percent: Int }
    struct Sections: Decodable {
        struct Line: Decodable { let shortID: String; let done: Bool }
        let percent: Int
        let done: Int
        let sections: [Line]
    }

    @Test(arguments: ["\u{00A0}\u{00A0}\u{00A0}", "\u{3000}\u{2003}", "\u{00A0}\n\u{202F}"])
    func aSectionOfUnicodeWhiteSpaceIsUnansweredInTheListAndTheSections(blank: String) throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        try suite.run("bmm", "set", "cn", "--text", "Breakfast on the way")
        // As a store written before the text rule (or by another program) may hold it.
        let queue = try DatabaseQueue(path: suite.storeFolder.appendingPathComponent("bmm.sqlite").path)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO section_entry (model_id, section, text, confidence, updated_ms)
                SELECT id, 'value-proposition', ?, NULL, 0 FROM model
                """, arguments: [blank])
        }
        try queue.close()

        let list = try suite.run("bmm", "list", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try JSONDecoder().decode([ListLine].self, from: Data(list.stdout.utf8)).map(\.percent) == [10])
        let sections = try suite.run("bmm", "sections", "--json")
        #expect(sections.status == 0, "\(sections.stderr)")
        let shown = try JSONDecoder().decode(Sections.self, from: Data(sections.stdout.utf8))
        #expect(shown.percent == 10)
        #expect(shown.done == 1)
        #expect(shown.sections.first { $0.shortID == "vp" }?.done == false)
        #expect(try suite.run("bmm", "list").stdout.contains("Acme  10%"))
    }

    @Test func setRefusesTextOfOnlyUnicodeWhiteSpaceAsEmpty() throws {
        let suite = try Suite()
        try suite.run("bmm", "new", "Acme")
        expectFailure(try suite.run(["bmm", "set", "vp", "-"], stdin: Data("\u{00A0}\u{3000}\n".utf8)), status: 65,
                      "the text is empty; nothing was saved (to empty the section: suite bmm clear vp)")
    }
}
