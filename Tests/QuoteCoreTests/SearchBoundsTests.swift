import Foundation
import Testing
@testable import QuoteCore

/// §6 of issue 14: a search's work is bounded whatever is typed.
@Suite struct SearchBounds {
    @Test func aRepeatedWordIsSearchedForOnce() throws {
        let repeated = try SearchQuery(Array(repeating: "love", count: 800).joined(separator: " "))
        #expect(repeated.match == "\"love\"")
        let mixed = try SearchQuery("war and peace and war \"and peace\" \"and peace\" imag* imag*")
        #expect(mixed.match == "\"war\" \"and\" \"peace\" \"and peace\" \"imag\"*")
    }

    @Test func moreThan32DifferentWordsAreRefused() throws {
        let words = (0..<33).map { "word\($0)" }
        #expect(try SearchQuery(words.dropLast().joined(separator: " ")).match.split(separator: " ").count == 32)
        for query in [words.joined(separator: " "), "\"" + words.joined(separator: " ") + "\"",
                      (0..<16_000).map { "w\($0)" }.joined(separator: " ")] {
            #expect(throws: QuoteError.self) { try SearchQuery(query) }
            do {
                _ = try SearchQuery(query)
            } catch {
                guard case .invalidQuery(.tooManyWords(let count, let limit)) = error else { Issue.record("unexpected \(error)"); continue }
                #expect(count > 32 && limit == 32)
                #expect(error.description.contains("at most 32"))
            }
        }
    }

    @Test func aSearchWithRepeatsFindsWhatTheWordFinds() throws {
        let store = try freshStore()
        try store.add("Love is patient, love is kind.", source: "Paul", kind: .person, categories: [])
        try store.add("All you need is love.", source: "The Beatles", kind: .song, categories: [])
        let once = try store.search("love", user: "me").map(\.quote.id)
        let often = try store.search(Array(repeating: "love", count: 800).joined(separator: " "), user: "me").map(\.quote.id)
        #expect(once.count == 2)
        #expect(Set(often) == Set(once))
    }
}
