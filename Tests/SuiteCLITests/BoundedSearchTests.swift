import Foundation
import Testing

/// §6 of issue 14: `quotes search` refuses a query past 32 words (repeats removed) with exit 64,
/// whatever its size, and searches a repeated word once.
@Suite struct BoundedSearch {
    @Test func anEightyKilobyteQueryIsExit64() throws {
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        #expect(try suite.run("quotes", "add", "Love is patient.").status == 0)
        let query = (0..<14_000).map { "w\($0)" }.joined(separator: " ")
        #expect(query.utf8.count > 80_000)
        for environment in [[:], ["SUITE_NO_FAST_PATH": "1"]] as [[String: String?]] {
            let result = try suite.run(["quotes", "search", query], environment: environment)
            expectFailure(result, status: 64, "at most 32")
            #expect(result.stderr.utf8.count < 300, "the error line echoes the whole query")
        }
    }

    @Test func eightHundredRepeatedWordsSearchLikeOne() throws {
        let suite = try Suite()
        defer { try? FileManager.default.removeItem(at: suite.folder) }
        #expect(try suite.run("quotes", "add", "Love is patient.").status == 0)
        let once = try suite.run("quotes", "search", "patient", "--json")
        let often = try suite.run("quotes", "search", Array(repeating: "patient", count: 800).joined(separator: " "), "--json")
        #expect(once.status == 0 && often.status == 0, "\(often.stderr)")
        #expect(often.stdout == once.stdout)
    }
}
