import Foundation
import SuiteStorage

/// What kind of thing a quote comes from.
public enum SourceKind: String, Codable, Sendable, Hashable, CaseIterable {
    case person, book, movie, tv, comic, song, other
}

/// Where a quote comes from: a person, a book, a film …
public struct Source: Codable, Sendable, Hashable, Identifiable {
    /// A source's id in the store.
    public typealias ID = RecordID<Source>

    /// The source's id (encoded as its number).
    public var id: ID
    /// Its name, as written.
    public var name: String
    /// What kind of source it is.
    public var kind: SourceKind
}

/// A quote.
public struct Quote: Codable, Sendable, Hashable, Identifiable {
    /// A quote's id in the store.
    public typealias ID = RecordID<Quote>

    /// The quote's id (encoded as its number).
    public var id: ID
    /// The words.
    public var text: String
    /// Who or what said it, when known.
    public var source: Source?
    /// The work it is from ("Richard III"), when the attribution names one.
    public var citation: String?
    /// Categories (tags); a fortune file's name becomes one.
    public var categories: [String]
    /// True for the user's own quotes, false for collected ones.
    public var isPersonal: Bool
    /// When it was added.
    public var addedAt: Date
    /// How many users favourited it.
    public var favoriteCount: Int
    /// How many people favourite it across the sync server's accounts that publish favourites, as
    /// this store last heard (nil when it has not heard of it, and for personal quotes).
    public var communityFavoriteCount: Int? = nil
}

/// A user's note on a quote.
public struct Note: Codable, Sendable, Hashable, Identifiable {
    /// A note's id in the store.
    public typealias ID = RecordID<Note>

    /// The note's id (encoded as its number).
    public var id: ID
    /// The quote it is about.
    public var quoteID: Quote.ID
    /// Whose note it is.
    public var user: String
    /// The note.
    public var text: String
    /// When it was written.
    public var createdAt: Date
    /// When it last changed.
    public var modifiedAt: Date
}

/// Today's quote as one user sees it: the quote of the day, whether it is one of the user's
/// favourites, and the user's notes on it.
public struct TodaysQuote: Codable, Sendable, Hashable {
    /// The quote of the day (the same for every user).
    public var quote: Quote
    /// Whether it is one of the user's favourites.
    public var isFavorite: Bool
    /// The user's notes on it, oldest first.
    public var notes: [Note]
}

/// A quote sent to a user.
public struct Delivery: Codable, Sendable, Hashable {
    /// The quote.
    public var quote: Quote
    /// The planned slot it was sent for.
    public var slot: Date
    /// When it was actually sent.
    public var deliveredAt: Date
    /// How it was sent ("notify-send", "stdout", …).
    public var channel: String
    /// A not-to-do to remind the user of, when the schedule asks for reminders.
    public var reminder: NotToDo?

    public init(quote: Quote, slot: Date, deliveredAt: Date, channel: String, reminder: NotToDo? = nil) {
        self.quote = quote; self.slot = slot; self.deliveredAt = deliveredAt; self.channel = channel; self.reminder = reminder
    }
}

/// Which quotes a pick, listing or search considers.
public struct QuoteFilter: Codable, Sendable, Hashable {
    /// Only this category.
    public var category: String?
    /// Only this source.
    public var source: String?
    /// Only the user's favourites.
    public var favoritesOnly: Bool
    /// Only the quotes added by hand (``Quote/isPersonal``), not imported or from the starter collection.
    public var personalOnly: Bool

    /// Creates a filter; no arguments means every quote.
    public init(category: String? = nil, source: String? = nil, favoritesOnly: Bool = false, personalOnly: Bool = false) {
        self.category = category
        self.source = source
        self.favoritesOnly = favoritesOnly
        self.personalOnly = personalOnly
    }

    enum CodingKeys: String, CodingKey { case category, source, favoritesOnly, personalOnly }

    /// Decodes a filter; one written before ``personalOnly`` existed reads as not personal-only.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        category = try container.decodeIfPresent(String.self, forKey: .category)
        source = try container.decodeIfPresent(String.self, forKey: .source)
        favoritesOnly = try container.decodeIfPresent(Bool.self, forKey: .favoritesOnly) ?? false
        personalOnly = try container.decodeIfPresent(Bool.self, forKey: .personalOnly) ?? false
    }

    /// A stable key naming the filter (for shuffle bags); unchanged for filters without
    /// ``personalOnly``, so existing bags keep their place.
    var key: String {
        "c=\(category.map(QuoteStore.nameKey) ?? "");s=\(source.map(QuoteStore.nameKey) ?? "");f=\(favoritesOnly ? 1 : 0)" + (personalOnly ? ";p=1" : "")
    }

    var isEmpty: Bool { category == nil && source == nil && !favoritesOnly && !personalOnly }
}

/// A search hit.
public struct SearchHit: Codable, Sendable, Hashable {
    /// The quote.
    public var quote: Quote
    /// The text with every match wrapped in the markers asked for.
    public var highlighted: String
    /// The rank (lower is better): bm25 without the quote's length, so rarer words and more of
    /// them rank higher; nil for the substring fallback.
    public var rank: Double?
}

/// A category or source with how many quotes it has.
public struct NameCount: Codable, Sendable, Hashable {
    /// The name.
    public var name: String
    /// The source kind, for sources.
    public var kind: SourceKind?
    /// How many quotes.
    public var count: Int
}

/// What an import did.
public struct QuoteImportSummary: Codable, Sendable, Hashable {
    /// Quotes read from the files.
    public var read: Int
    /// New quotes stored.
    public var imported: Int
    /// Quotes already present (same normalised text and source), skipped.
    public var duplicates: Int
    /// Empty entries skipped.
    public var skipped: Int
}
