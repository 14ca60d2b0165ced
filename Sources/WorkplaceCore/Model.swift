import Foundation

/// A point on Earth in degrees (WGS 84).
public struct Coordinate: Codable, Sendable, Hashable, CustomStringConvertible {
    /// −90…90.
    public var latitude: Double
    /// −180…180.
    public var longitude: Double

    /// Creates a checked coordinate.
    ///
    /// - Throws: ``WorkplaceError/invalidCoordinate(_:)`` for values out of range or not finite.
    public init(latitude: Double, longitude: Double) throws(WorkplaceError) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw .invalidCoordinate("\(latitude),\(longitude): latitude must be −90…90 and longitude −180…180")
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    init(unchecked latitude: Double, _ longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Reads `LAT,LON` (decimal degrees).
    public static func parse(_ text: String) throws(WorkplaceError) -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
            throw .invalidCoordinate("'\(text)' is not LAT,LON in decimal degrees, like 52.5200,13.4050")
        }
        return try Coordinate(latitude: latitude, longitude: longitude)
    }

    public var description: String { String(format: "%.6f,%.6f", latitude, longitude) }
}

/// What kind of place it is.
public enum BusinessType: String, Codable, Sendable, Hashable, CaseIterable {
    case coffeeShop = "coffee-shop"
    case library
    case coworkingSpace = "coworking"
    case bar
    case restaurant
    case other
}

/// Where a place's data came from.
public enum PlaceOrigin: String, Codable, Sendable, Hashable, CaseIterable {
    case yelp
    case openStreetMap = "osm"
    case imported
    case user
}

/// What food a place serves.
public enum MenuOption: String, Codable, Sendable, Hashable, CaseIterable {
    case drinksOnly = "drinks"
    case lightSnacks = "snacks"
    case lunch
    case fullMenu = "full"
}

/// The pin colours a user can choose.
public enum PinColor: String, Codable, Sendable, Hashable, CaseIterable {
    case red, blue, green, orange, purple, yellow, gray

    /// The colour as SVG/CSS hex.
    public var hex: String {
        switch self {
        case .red: return "#d62828"
        case .blue: return "#1d6fd8"
        case .green: return "#2a9d3f"
        case .orange: return "#f28c28"
        case .purple: return "#7b3fb5"
        case .yellow: return "#e9c400"
        case .gray: return "#7a7a7a"
        }
    }
}

/// The five things rated, each 0…5.
public enum RatingDimension: String, Codable, Sendable, Hashable, CaseIterable {
    /// How noisy (0 silent … 5 very loud).
    case noise
    /// How many electrical outlets (0 none … 5 plenty).
    case outlets
    /// Wifi strength and speed (0 none … 5 excellent).
    case wifi
    /// Cost of menu items (0 free … 5 expensive).
    case cost
    /// Seating availability and comfort (0 none … 5 great).
    case seating

    /// True when a higher value is better for working.
    public var higherIsBetter: Bool { self != .noise && self != .cost }
}

/// The user's rating of a place. Every dimension is optional so that a rating can be given a
/// piece at a time.
public struct Rating: Codable, Sendable, Hashable {
    /// Values 0…5 per dimension.
    public var values: [RatingDimension: Int]
    /// A measured wifi speed.
    public var wifiMbps: Double?
    /// What food is served.
    public var menu: MenuOption?
    /// Free notes.
    public var notes: String
    /// A chosen pin colour (overrides the automatic one).
    public var pinColor: PinColor?
    /// When the user last changed it.
    public var updatedAt: Date

    /// Creates a rating; values are checked by ``validate()``.
    public init(values: [RatingDimension: Int] = [:], wifiMbps: Double? = nil, menu: MenuOption? = nil, notes: String = "",
                pinColor: PinColor? = nil, updatedAt: Date = Date(timeIntervalSince1970: 0)) {
        self.values = values
        self.wifiMbps = wifiMbps
        self.menu = menu
        self.notes = notes
        self.pinColor = pinColor
        self.updatedAt = updatedAt
    }

    /// Checks every value.
    ///
    /// - Throws: ``WorkplaceError/invalidRating(dimension:value:)`` naming the dimension and the
    ///   allowed range.
    public func validate() throws(WorkplaceError) {
        for dimension in RatingDimension.allCases {
            if let value = values[dimension], !(0...5).contains(value) { throw .invalidRating(dimension: dimension.rawValue, value: String(value)) }
        }
        if let mbps = wifiMbps, !(mbps.isFinite && mbps >= 0 && mbps <= 100_000) {
            throw .invalidRating(dimension: "wifi-mbps", value: String(mbps))
        }
        _ = try PlaceStore.validated(notes: notes)
    }

    /// Reads a rating value as typed: a whole number 0…5.
    public static func value(_ text: String, for dimension: RatingDimension) throws(WorkplaceError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), (0...5).contains(value) else {
            throw .invalidRating(dimension: dimension.rawValue, value: text)
        }
        return value
    }

    /// True when the user gave any value, speed, menu or note.
    public var isEmpty: Bool { values.isEmpty && wifiMbps == nil && menu == nil && notes.isEmpty }

    /// The quality of the place for working, 0…5: the mean of the rated dimensions, noise and
    /// cost counted the other way round. Nil when nothing is rated.
    public var quality: Double? {
        guard !values.isEmpty else { return nil }
        let total = values.reduce(0.0) { $0 + Double($1.key.higherIsBetter ? $1.value : 5 - $1.value) }
        return total / Double(values.count)
    }
}

/// How a place shows on a map.
public enum PinState: String, Codable, Sendable, Hashable {
    /// A place from a provider that the user has not rated or saved.
    case system
    /// A place the user rated, saved or entered.
    case saved
}

/// A place where one might work: what the provider (or the user) says of it, a ``PlaceRecord``,
/// with what the store adds (its number, when it was fetched, the user's rating and whether they
/// saved it). The record's fields read and write as the place's own: `place.name`,
/// `place.coordinate`.
@dynamicMemberLookup
public struct Place: Codable, Sendable, Hashable, Identifiable {
    /// A place's identifier in its store: encodes as the bare number.
    public typealias ID = RecordID<Place>

    /// The place's number in its store.
    public var id: ID
    /// Its name, kind, position, address, phone, website, opening hours (an OSM `opening_hours`
    /// string, or Yelp's hours written in that syntax), categories, origin and provider id (Yelp
    /// business id, `node/123` for OSM).
    public var record: PlaceRecord
    /// When the provider data was last fetched.
    public var fetchedAt: Date?
    /// The user's rating, if any.
    public var rating: Rating?
    /// True when the user saved the place (rated, entered or saved it explicitly).
    public var isSaved: Bool
    /// What the people who publish ratings on the sync server say of it, as last synced (nil when
    /// nobody does, and for places not from a provider).
    public var community: CommunityRatingSummary?

    /// Red for a system place the user has not rated or saved, blue once they have; a chosen
    /// colour overrides both.
    public var pinColor: PinColor {
        if let chosen = rating?.pinColor { return chosen }
        return pinState == .saved ? .blue : .red
    }

    /// Whether the user has made the place theirs.
    public var pinState: PinState {
        (isSaved || record.origin == .user || rating.map { !$0.isEmpty } == true) ? .saved : .system
    }

    /// The record's fields, as the place's own.
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<PlaceRecord, T>) -> T {
        get { record[keyPath: keyPath] }
        set { record[keyPath: keyPath] = newValue }
    }

    enum CodingKeys: String, CodingKey {
        case id, name, type, coordinate, address, phone, website, openingHours, categories, origin, providerID, fetchedAt, rating, isSaved
        case pinColor, pinState, community
    }

    /// Creates a place (the store makes them; this is for tests and previews).
    public init(id: ID, name: String, type: BusinessType, coordinate: Coordinate, address: String?, phone: String?, website: String?,
                openingHours: String?, categories: [String], origin: PlaceOrigin, providerID: String?, fetchedAt: Date?, rating: Rating?, isSaved: Bool) {
        self.id = id
        record = PlaceRecord(name: name, type: type, coordinate: coordinate, address: address, phone: phone, website: website,
                             openingHours: openingHours, categories: categories, origin: origin, providerID: providerID)
        self.fetchedAt = fetchedAt; self.rating = rating; self.isSaved = isSaved
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(ID.self, forKey: .id), name: try c.decode(String.self, forKey: .name),
                  type: try c.decode(BusinessType.self, forKey: .type), coordinate: try c.decode(Coordinate.self, forKey: .coordinate),
                  address: try c.decodeIfPresent(String.self, forKey: .address), phone: try c.decodeIfPresent(String.self, forKey: .phone),
                  website: try c.decodeIfPresent(String.self, forKey: .website), openingHours: try c.decodeIfPresent(String.self, forKey: .openingHours),
                  categories: try c.decode([String].self, forKey: .categories), origin: try c.decode(PlaceOrigin.self, forKey: .origin),
                  providerID: try c.decodeIfPresent(String.self, forKey: .providerID), fetchedAt: try c.decodeIfPresent(Date.self, forKey: .fetchedAt),
                  rating: try c.decodeIfPresent(Rating.self, forKey: .rating), isSaved: try c.decode(Bool.self, forKey: .isSaved))
        community = try c.decodeIfPresent(CommunityRatingSummary.self, forKey: .community)
    }

    /// Encodes every stored field plus the pin colour and state, so listings carry the pin.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(record.name, forKey: .name); try c.encode(record.type, forKey: .type)
        try c.encode(record.coordinate, forKey: .coordinate); try c.encodeIfPresent(record.address, forKey: .address)
        try c.encodeIfPresent(record.phone, forKey: .phone); try c.encodeIfPresent(record.website, forKey: .website)
        try c.encodeIfPresent(record.openingHours, forKey: .openingHours); try c.encode(record.categories, forKey: .categories)
        try c.encode(record.origin, forKey: .origin); try c.encodeIfPresent(record.providerID, forKey: .providerID)
        try c.encodeIfPresent(fetchedAt, forKey: .fetchedAt); try c.encodeIfPresent(rating, forKey: .rating)
        try c.encode(isSaved, forKey: .isSaved); try c.encode(pinColor, forKey: .pinColor); try c.encode(pinState, forKey: .pinState)
        try c.encodeIfPresent(community, forKey: .community)
    }
}

/// The location the user set as theirs (a machine without GPS keeps one).
public struct CurrentLocation: Codable, Sendable, Hashable {
    /// Where.
    public var coordinate: Coordinate
    /// What the address lookup called it, when it was set from an address.
    public var label: String?

    /// Creates a location.
    public init(coordinate: Coordinate, label: String? = nil) {
        self.coordinate = coordinate
        self.label = label
    }
}

/// A place found by a search, with its distance and score.
public struct NearbyPlace: Codable, Sendable, Hashable {
    /// The place.
    public var place: Place
    /// Metres from the search point.
    public var distance: Double
    /// The rating smoothed towards the mean of all ratings, 0…5.
    public var smoothedQuality: Double
    /// The ranking score (quality with distance decay), 0…1.
    public var score: Double
    /// Open now, closed now, or nil when the hours are unknown.
    public var isOpen: Bool?
}
extension RatingDimension: CodingKeyRepresentable {}

extension BusinessType {
    /// Reads a kind of place as files and people write it: Suite's own names, OpenStreetMap's
    /// `amenity`/`office` values and Yelp's category aliases, in any case, with `_`, `-` or
    /// spaces: `cafe`, `café`, `coffee`, `coffee_shop` → coffee-shop; `libraries` → library;
    /// `coworking_space`, `shared office` → coworking; `pub`, `biergarten` → bar;
    /// `fast_food`, `food_court` → restaurant.
    ///
    /// - Parameter synonym: the text.
    /// - Returns: nil when it names no kind Suite knows.
    public init?(synonym: String) {
        let key = synonym.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .filter { $0 != "_" && $0 != "-" && !$0.isWhitespace }
        switch key {
        case "coffeeshop", "cafe", "cafes", "coffee", "coffeehouse", "coffeeroasteries", "coffeeroastery", "internetcafe", "teahouse", "bubbletea":
            self = .coffeeShop
        case "library", "libraries", "publiclibrary":
            self = .library
        case "coworking", "coworkingspace", "coworkingspaces", "sharedoffice", "sharedofficespaces", "sharedofficespace", "coworkspace":
            self = .coworkingSpace
        case "bar", "bars", "pub", "pubs", "biergarten", "winebar":
            self = .bar
        case "restaurant", "restaurants", "fastfood", "foodcourt", "bistro":
            self = .restaurant
        case "other":
            self = .other
        default:
            return nil
        }
    }
}
