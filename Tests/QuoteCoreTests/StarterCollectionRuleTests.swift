import Foundation
import Testing
@testable import QuoteCore

/// The store owns the rule of when the starter collection is added (the CLI only reports it).
@Suite struct StarterCollectionRuleTests {
    @Test func aNewStoreIsDueTheStarterCollectionOnce() throws {
        let store = try freshStore()
        #expect(try store.needsStarterCollection())
        #expect(try store.addStarterCollectionIfEmpty() == StarterCollection.count)
        #expect(try store.count() == StarterCollection.count)
        #expect(try !store.needsStarterCollection())
        #expect(try store.addStarterCollectionIfEmpty() == 0)
        #expect(try store.count() == StarterCollection.count)
    }

    @Test func aStoreWithQuotesOfItsOwnDoesNotGetIt() throws {
        let store = try freshStore()
        try store.add("My own words.")
        #expect(try !store.needsStarterCollection())
        #expect(try store.addStarterCollectionIfEmpty() == 0)
        #expect(try store.allQuotes().map(\.text) == ["My own words."])
    }

    @Test func aStoreWhoseQuotesWereAllRemovedIsDueItAgain() throws {
        let store = try freshStore()
        let quote = try store.add("Soon gone.")
        try store.removeQuote(quote.id)
        #expect(try store.needsStarterCollection())
        #expect(try store.addStarterCollectionIfEmpty() == StarterCollection.count)
    }

    @Test func aReadOnlyStoreSaysItIsDueButCannotTakeIt() throws {
        let url = freshStoreURL()
        _ = try QuoteStore(url: url)
        let reader = try QuoteStore(url: url, readOnly: true)
        #expect(try reader.needsStarterCollection())
        #expect {
            try reader.addStarterCollectionIfEmpty()
        } throws: { error in
            guard case .store(let failure) = error as? QuoteError else { return false }
            return failure.kind == .readOnly
        }
    }

    @Test func twoStoresOnOneFileAddItOnce() throws {
        let url = freshStoreURL()
        let stores = [try QuoteStore(url: url), try QuoteStore(url: url)]
        let added = Results()
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            added.append((try? stores[index].addStarterCollectionIfEmpty()) ?? -1)
        }
        #expect(added.values.sorted() == [0, StarterCollection.count])
        #expect(try stores[0].count() == StarterCollection.count)
    }
}

/// Numbers appended from several threads.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int] = []
    var values: [Int] { lock.withLock { storage } }
    func append(_ value: Int) { lock.withLock { storage.append(value) } }
}
