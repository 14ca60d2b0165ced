import Foundation

// The community channel: what an account chose to make public, in plaintext, beside its
// end-to-end encrypted logs. Only favourites of collected quotes and ratings of provider places
// travel here, and only while the account publishes them (`CommunitySettings`). Nothing on this
// channel names an account: counts and medians are all anyone gets back.

/// What an account can publish.
public enum CommunityKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Favourites of collected quotes (never personal quotes, never notes).
    case favourites
    /// Ratings of provider places (the 0–5 scales; notes and menu only when asked).
    case ratings
}

/// What an account publishes (`GET`/`PUT /v1/community/settings`). Off by default; turning a
/// kind off removes everything of that kind the account had published.
public struct CommunitySettings: Sendable, Hashable, Codable {
    public var favourites: Bool
    public var ratings: Bool
    /// Whether published ratings carry their notes and menu.
    public var ratingNotes: Bool

    public init(favourites: Bool = false, ratings: Bool = false, ratingNotes: Bool = false) {
        self.favourites = favourites
        self.ratings = ratings
        self.ratingNotes = ratingNotes
    }

    public func publishes(_ kind: CommunityKind) -> Bool {
        switch kind {
        case .favourites: return favourites
        case .ratings: return ratings
        }
    }
}

/// Keys that two people's devices compute alike for the same quote or place, and that nobody can
/// make collide on purpose (SHA-256 of normalised ingredients).
public enum CommunityKey {
    /// The key of a collected quote: its words and its source, each normalised (compatibility
    /// forms, case, typographic quotes and dashes, runs of white space).
    public static func quote(text: String, source: String?) -> String {
        "q" + hex("suite-community-quote-v1\u{0}" + normalised(text) + "\u{0}" + normalised(source ?? ""))
    }

    /// The key of a place a provider knows: the provider ("osm", "yelp") and its id there.
    public static func place(provider: String, id: String) -> String {
        "p" + hex("suite-community-place-v1\u{0}" + provider + "\u{0}" + id)
    }

    /// Whether a text has the shape of a key (a letter and 64 lower-case hex digits).
    public static func isWellFormed(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 65, bytes[0] == UInt8(ascii: "q") || bytes[0] == UInt8(ascii: "p") else { return false }
        return bytes.dropFirst().allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The text as the key sees it.
    public static func normalised(_ text: String) -> String {
        let folded = text.precomposedStringWithCompatibilityMapping.lowercased()
        var result = ""
        var pendingSpace = false
        for character in folded {
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace { result.append(" "); pendingSpace = false }
            switch character {
            case "\u{2018}", "\u{2019}", "\u{201B}", "\u{2032}": result.append("'")
            case "\u{201C}", "\u{201D}", "\u{201F}", "\u{2033}": result.append("\"")
            case "\u{2013}", "\u{2014}", "\u{2212}": result.append("-")
            default: result.append(character)
            }
        }
        return result
    }

    private static func hex(_ text: String) -> String {
        let digits = Array("0123456789abcdef")
        var result = ""
        result.reserveCapacity(64)
        for byte in PlainSHA256.hash(Array(text.utf8)) {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 15)])
        }
        return result
    }
}

/// A published favourite: the quote's key, words and source (public, so that top lists can show them).
public struct CommunityQuote: Sendable, Hashable, Codable {
    public var key: String
    public var text: String
    public var source: String?

    public init(key: String, text: String, source: String?) {
        self.key = key
        self.text = text
        self.source = source
    }

    /// A favourite of this quote, its key computed.
    public init(text: String, source: String?) {
        self.init(key: CommunityKey.quote(text: text, source: source), text: text, source: source)
    }
}

/// A published rating of a place.
public struct CommunityRating: Sendable, Hashable, Codable {
    public var key: String
    /// Values 0…5 by scale name ("noise", "outlets", "wifi", "cost", "seating").
    public var scales: [String: Int]
    public var wifiMbps: Double?
    /// Only with ``CommunitySettings/ratingNotes``.
    public var menu: String?
    /// Only with ``CommunitySettings/ratingNotes``.
    public var notes: String?

    public init(key: String, scales: [String: Int], wifiMbps: Double? = nil, menu: String? = nil, notes: String? = nil) {
        self.key = key
        self.scales = scales
        self.wifiMbps = wifiMbps
        self.menu = menu
        self.notes = notes
    }
}

/// `PUT /v1/community/favourites`: the account's whole published set (it replaces the last one).
public struct CommunityFavouritesUpload: Sendable, Hashable, Codable {
    public var quotes: [CommunityQuote]
    public init(quotes: [CommunityQuote]) { self.quotes = quotes }
}

/// `PUT /v1/community/ratings`: the account's whole published set (it replaces the last one).
public struct CommunityRatingsUpload: Sendable, Hashable, Codable {
    public var ratings: [CommunityRating]
    public init(ratings: [CommunityRating]) { self.ratings = ratings }
}

/// How many accounts favourite a quote. A count of 0 (text and source empty) says that the last
/// favourite went away.
public struct CommunityQuoteCount: Sendable, Hashable, Codable {
    public var key: String
    public var text: String
    public var source: String?
    public var count: Int
    /// Its place in the feed.
    public var seq: Int64

    public init(key: String, text: String, source: String?, count: Int, seq: Int64) {
        self.key = key
        self.text = text
        self.source = source
        self.count = count
        self.seq = seq
    }
}

/// What the accounts that publish ratings say of a place: how many, the median of each scale,
/// the median wifi speed, the most named menu and the published notes (newest first, at most 10).
public struct CommunityPlaceSummary: Sendable, Hashable, Codable {
    public var key: String
    public var count: Int
    public var medians: [String: Double]
    public var wifiMbps: Double?
    public var menu: String?
    public var notes: [String]
    public var seq: Int64

    public init(key: String, count: Int, medians: [String: Double], wifiMbps: Double?, menu: String?, notes: [String], seq: Int64) {
        self.key = key
        self.count = count
        self.medians = medians
        self.wifiMbps = wifiMbps
        self.menu = menu
        self.notes = notes
        self.seq = seq
    }
}

/// A page of the community feed (`GET /v1/community/{quotes|places}?after=N&limit=M[&fresh=1]`):
/// entries that changed after position N, in order. `reset` says the reader's position is older
/// than the server's memory of removals: drop what was kept and read again from the start, with
/// `fresh=1` on every page of that pass (a reader that kept nothing cannot have missed a removal).
public struct CommunityFeed<Item: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public var items: [Item]
    public var next: Int64
    public var reset: Bool
    public var more: Bool

    public init(items: [Item], next: Int64, reset: Bool, more: Bool) {
        self.items = items
        self.next = next
        self.reset = reset
        self.more = more
    }
}

/// `POST /v1/community/{quotes|places}/lookup`: the entries for some keys.
public struct CommunityLookupRequest: Sendable, Hashable, Codable {
    public var keys: [String]
    public init(keys: [String]) { self.keys = keys }
}

/// A quote in a shared list.
public struct SharedQuote: Sendable, Hashable, Codable {
    public var text: String
    public var source: String?
    public var citation: String?

    public init(text: String, source: String?, citation: String?) {
        self.text = text
        self.source = source
        self.citation = citation
    }
}

/// `POST /v1/shared`: a read-only snapshot of a list, published under an unguessable link.
public struct SharedListRequest: Sendable, Hashable, Codable {
    public var title: String
    public var quotes: [SharedQuote]

    public init(title: String, quotes: [SharedQuote]) {
        self.title = title
        self.quotes = quotes
    }
}

/// A published list as its owner sees it (`POST /v1/shared`, `GET /v1/shared`).
public struct SharedListInfo: Sendable, Hashable, Codable {
    public var id: String
    public var title: String
    public var count: Int
    public var createdAt: Date
    /// The page's path on the server (`/s/ID`; `/s/ID.json` is the same list as JSON).
    public var path: String

    public init(id: String, title: String, count: Int, createdAt: Date) {
        self.id = id
        self.title = title
        self.count = count
        self.createdAt = createdAt
        self.path = "/s/\(id)"
    }
}

/// A published list as anyone with the link sees it (`GET /s/ID.json`).
public struct SharedList: Sendable, Hashable, Codable {
    public var title: String
    public var quotes: [SharedQuote]
    public var createdAt: Date

    public init(title: String, quotes: [SharedQuote], createdAt: Date) {
        self.title = title
        self.quotes = quotes
        self.createdAt = createdAt
    }
}

/// The limits both sides check.
public enum CommunityRules {
    /// Items in one published set.
    public static let maximumItems = 20_000
    /// Keys in one lookup.
    public static let maximumLookup = 1_000
    /// Characters of a quote's words.
    public static let maximumText = 4_000
    /// Characters of a source or citation.
    public static let maximumSource = 500
    /// Characters of a rating's notes.
    public static let maximumNotes = 2_000
    /// Characters of a shared list's title.
    public static let maximumTitle = 200
    /// Quotes in one shared list.
    public static let maximumShared = 5_000
    /// The scales a rating may carry.
    public static let scales: Set<String> = ["noise", "outlets", "wifi", "cost", "seating"]
    /// The menus a rating may name.
    public static let menus: Set<String> = ["drinks", "snacks", "lunch", "full"]

    /// Why a text cannot be published, or nil: empty (when `required`), too long, or holding
    /// control characters other than line breaks and tabs.
    public static func problem(_ text: String, name: String, limit: Int, required: Bool = true) -> String? {
        if required && text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "\(name) is empty" }
        if text.count > limit { return "\(name) is longer than \(limit) characters" }
        if text.unicodeScalars.contains(where: { ($0.value < 32 && $0 != "\n" && $0 != "\t") || (127...159).contains($0.value) }) {
            return "\(name) holds control characters"
        }
        return nil
    }

    /// Why a favourite cannot be published, or nil.
    public static func problem(_ quote: CommunityQuote) -> String? {
        if let problem = problem(quote.text, name: "a quote's text", limit: maximumText) { return problem }
        if let source = quote.source, let problem = problem(source, name: "a quote's source", limit: maximumSource, required: false) { return problem }
        if quote.key != CommunityKey.quote(text: quote.text, source: quote.source) { return "a favourite's key does not match its quote" }
        return nil
    }

    /// Why a rating cannot be published, or nil.
    public static func problem(_ rating: CommunityRating) -> String? {
        guard CommunityKey.isWellFormed(rating.key), rating.key.hasPrefix("p") else { return "a rating's key is not a place key" }
        for (scale, value) in rating.scales {
            guard scales.contains(scale) else { return "unknown scale \(scale)" }
            guard (0...5).contains(value) else { return "a rating's \(scale) is not 0 to 5" }
        }
        if let mbps = rating.wifiMbps, !(mbps.isFinite && mbps >= 0 && mbps <= 100_000) { return "a rating's wifi speed is out of range" }
        if let menu = rating.menu, !menus.contains(menu) { return "unknown menu \(menu)" }
        if let notes = rating.notes, let problem = problem(notes, name: "a rating's notes", limit: maximumNotes, required: false) { return problem }
        if rating.scales.isEmpty && rating.wifiMbps == nil && rating.menu == nil && (rating.notes ?? "").isEmpty { return "a rating is empty" }
        return nil
    }

    /// Why a shared list cannot be published, or nil.
    public static func problem(_ list: SharedListRequest) -> String? {
        if let problem = problem(list.title, name: "the title", limit: maximumTitle) { return problem }
        guard !list.quotes.isEmpty else { return "the list is empty" }
        guard list.quotes.count <= maximumShared else { return "a shared list holds at most \(maximumShared) quotes" }
        for quote in list.quotes {
            if let problem = problem(quote.text, name: "a quote's text", limit: maximumText) { return problem }
            for (field, name) in [(quote.source, "a quote's source"), (quote.citation, "a quote's citation")] {
                if let field, let problem = problem(field, name: name, limit: maximumSource, required: false) { return problem }
            }
        }
        return nil
    }
}
