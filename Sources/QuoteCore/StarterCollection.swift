import Foundation
import GRDB

/// A small collection of public-domain quotes, each with its source, so that a new store has
/// something to show before anything is imported.
public enum StarterCollection {
    /// The quotes: text, source, kind, work, category.
    static let entries: [(String, String, SourceKind, String?, String)] = [
        ("Well done is better than well said.", "Benjamin Franklin", .person, "Poor Richard's Almanack", "work"),
        ("Lost time is never found again.", "Benjamin Franklin", .person, "Poor Richard's Almanack", "time"),
        ("Diligence is the mother of good luck.", "Benjamin Franklin", .person, "Poor Richard's Almanack", "work"),
        ("Either write something worth reading or do something worth writing.", "Benjamin Franklin", .person, "Poor Richard's Almanack", "work"),
        ("Our life is frittered away by detail. Simplify, simplify.", "Henry David Thoreau", .person, "Walden", "simplicity"),
        ("If one advances confidently in the direction of his dreams, and endeavors to live the life which he has imagined, he will meet with a success unexpected in common hours.", "Henry David Thoreau", .person, "Walden", "courage"),
        ("Nothing great was ever achieved without enthusiasm.", "Ralph Waldo Emerson", .person, "Circles", "motivation"),
        ("Trust thyself: every heart vibrates to that iron string.", "Ralph Waldo Emerson", .person, "Self-Reliance", "courage"),
        ("Whatever is worth doing at all is worth doing well.", "Lord Chesterfield", .person, "Letters to His Son", "work"),
        ("A journey of a thousand miles begins with a single step.", "Lao Tzu", .person, "Tao Te Ching", "perseverance"),
        ("The beginning is the most important part of the work.", "Plato", .person, "The Republic", "work"),
        ("Well begun is half done.", "Aristotle", .person, "Politics", "work"),
        ("Knowing is not enough; we must apply. Willing is not enough; we must do.", "Johann Wolfgang von Goethe", .person, "Wilhelm Meister's Journeyman Years", "motivation"),
        ("Genius is one per cent inspiration and ninety-nine per cent perspiration.", "Thomas Edison", .person, nil, "work"),
        ("The best way out is always through.", "Robert Frost", .person, "A Servant to Servants", "perseverance"),
        ("\"Hope\" is the thing with feathers - / That perches in the soul -", "Emily Dickinson", .person, nil, "courage"),
        ("Do what you can, with what you have, where you are.", "Theodore Roosevelt", .person, "An Autobiography", "motivation"),
        ("It is not the critic who counts; not the man who points out how the strong man stumbles, or where the doer of deeds could have done them better.", "Theodore Roosevelt", .person, "Citizenship in a Republic", "courage"),
        ("Fortune favours the bold.", "Terence", .person, "Phormio", "courage"),
        ("First say to yourself what you would be; and then do what you have to do.", "Epictetus", .person, "Discourses", "motivation"),
        ("No man is free who is not master of himself.", "Epictetus", .person, nil, "discipline"),
        ("It is not that we have a short time to live, but that we waste a lot of it.", "Seneca", .person, "On the Shortness of Life", "time"),
        ("Little by little, one travels far.", "Spanish proverb", .other, nil, "perseverance"),
        ("Rome was not built in a day.", "Proverb", .other, nil, "perseverance"),
        ("Be not afraid of growing slowly; be afraid only of standing still.", "Chinese proverb", .other, nil, "perseverance"),
        ("The harder the conflict, the more glorious the triumph.", "Thomas Paine", .person, "The American Crisis", "courage"),
        ("Action is eloquence.", "William Shakespeare", .person, "Coriolanus", "work"),
        ("Our doubts are traitors, and make us lose the good we oft might win, by fearing to attempt.", "William Shakespeare", .person, "Measure for Measure", "courage"),
        ("Great works are performed not by strength but by perseverance.", "Samuel Johnson", .person, "Rasselas", "perseverance"),
        ("Nothing will ever be attempted if all possible objections must be first overcome.", "Samuel Johnson", .person, "Rasselas", "courage"),
        ("Patience and time do more than strength or passion.", "Jean de La Fontaine", .person, "Fables", "perseverance"),
        ("Courage is resistance to fear, mastery of fear - not absence of fear.", "Mark Twain", .person, "Pudd'nhead Wilson", "courage"),
        ("Always do right. This will gratify some people and astonish the rest.", "Mark Twain", .person, nil, "character"),
        ("Make haste slowly.", "Augustus", .person, nil, "discipline"),
        ("Heaven is not reached at a single bound; but we build the ladder by which we rise.", "Josiah Gilbert Holland", .person, "Gradatim", "perseverance"),
    ]

    /// How many quotes the collection has.
    public static var count: Int { entries.count }
}

extension QuoteStore {
    /// Adds the starter collection (quotes already present are skipped).
    ///
    /// - Returns: how many were added.
    @discardableResult
    public func installStarterCollection() throws(QuoteError) -> Int {
        let moment = stamp
        return try write { db in try Self.insertStarterCollection(db: db, stamp: moment) }
    }

    /// Whether the store is due its starter collection: it holds no quote (it is new, or every
    /// quote was removed). ``addStarterCollectionIfEmpty()-9ltem`` adds it then; a read-only store can
    /// ask this first and open for writing only when it must.
    public func needsStarterCollection() throws(QuoteError) -> Bool {
        try isEmpty()
    }

    /// Adds the starter collection when the store holds no quote, so that a new store has
    /// something to pick, show and search before anything is imported. A store with quotes is
    /// left as it is. The check and the adding are one transaction: two processes doing this at
    /// once add the collection once.
    ///
    /// Call it before picking from a store that may be new (an app at launch; the CLI before
    /// `random`, `today` and `tick`).
    ///
    /// - Returns: how many quotes were added: 0 when the store already had quotes, else
    ///   ``StarterCollection/count``.
    /// - Throws: ``QuoteError/store(_:)``; a store opened read-only cannot take it (ask
    ///   ``needsStarterCollection()-21oi9`` first, and open for writing only when it is due).
    @discardableResult
    public func addStarterCollectionIfEmpty() throws(QuoteError) -> Int {
        let moment = stamp
        return try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM quote)") != true else { return 0 }
            return try Self.insertStarterCollection(db: db, stamp: moment)
        }
    }

    /// Stores the starter quotes not present yet; returns how many were.
    static func insertStarterCollection(db: Database, stamp: Int64) throws -> Int {
        var cache = ImportCache()
        var added = 0
        for (index, entry) in StarterCollection.entries.enumerated() {
            let quote = ImportedQuote(text: entry.0, source: entry.1, kind: entry.2, citation: entry.3, categories: [entry.4],
                                      personal: false, addedAt: nil, line: index + 1)
            if try insert(quote, db: db, stamp: stamp, cache: &cache) != nil { added += 1 }
        }
        return added
    }
}
